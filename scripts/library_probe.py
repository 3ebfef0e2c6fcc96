"""Probe the library surface as a new user meets it: every case of
scripts/library_probe_cases.py, a one-line function of an array, differentiated in reverse
(`jacrev`), forward (`jvp`, one direction) and vector mode (`jacfwd`, a lane per input
element) and checked against central finite differences. Prints one line per case and mode
that does not agree, and a table of counts per family:

    agree    the derivative matches central differences
    refused  srcad said no (SrcadError), with its reason
    WRONG    a derivative that does not match
    crash    any other exception

Usage: PYTHONPATH=$PWD python scripts/library_probe.py [--backend numba] [--family linalg]
       [--all]   (print every case, not only the ones that do not agree)
"""

from __future__ import annotations

import argparse
import collections
import linecache
import math
import statistics
import sys
import warnings
from pathlib import Path

import numpy as np
import scipy.linalg
import scipy.signal
import scipy.special
import scipy.stats

import srcad
from srcad.errors import SrcadError

sys.path.insert(0, str(Path(__file__).resolve().parent))
from library_probe_cases import CASES, CONSTANTS, INPUTS  # noqa: E402

MODES = ("reverse", "forward", "vector")


def function_of(number: int, expression: str):
    """`def probe(x): return <expression>` with source srcad reads (linecache)."""
    filename = f"<library probe {number}>"
    text = f"def probe(x):\n    return {expression}\n"
    linecache.cache[filename] = (len(text), None, text.splitlines(True), filename)
    namespace = {"np": np, "math": math, "scipy": scipy, "statistics": statistics,
                 **CONSTANTS}
    exec(compile(text, filename, "exec"), namespace)
    return namespace["probe"]


def finite_differences(f, x, eps=1e-6):
    """The Jacobian of f at x, shaped output.shape + x.shape, by central differences."""
    columns = []
    for k in range(x.size):
        step = np.zeros(x.size)
        step[k] = eps * max(1.0, abs(x.flat[k]))
        step = step.reshape(x.shape)
        columns.append((np.asarray(f(x + step), float) - np.asarray(f(x - step), float))
                       / (2 * step.flat[k]))
    out = np.asarray(f(x)).shape
    return np.moveaxis(np.array(columns), 0, -1).reshape(out + x.shape)


def derivative(mode, f, x, direction, backend):
    if mode == "reverse":
        return srcad.jacrev(f, backend=backend)(x)
    if mode == "forward":
        return srcad.jvp(f, (x,), (direction,), backend=backend)[1]
    return srcad.jacfwd(f, backend=backend)(x)


def agrees(value, expected) -> bool:
    value = np.asarray(value, float)
    if value.shape != expected.shape:
        return False
    scale = max(1.0, float(np.max(np.abs(expected), initial=0.0)))
    return bool(np.allclose(value, expected, rtol=1e-4, atol=1e-5 * scale))


def probe(number, expression, kind, backend):
    """{mode: (outcome, detail)} for one case."""
    f = function_of(number, expression)
    x = INPUTS[kind].copy()
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        jacobian = finite_differences(f, x)
    direction = np.cos(np.arange(x.size) + 0.5).reshape(x.shape)
    expected = {"reverse": jacobian, "vector": jacobian,
                "forward": np.tensordot(jacobian, direction, axes=x.ndim)}
    outcomes = {}
    for mode in MODES:
        try:
            value = derivative(mode, f, x.copy(), direction, backend)
        except SrcadError as error:
            outcomes[mode] = ("refused", str(error).strip().splitlines()[0][:150])
        except Exception as error:  # noqa: BLE001 - a crash is what the probe reports
            outcomes[mode] = ("crash", f"{type(error).__name__}: {error}"[:150])
        else:
            good = agrees(value, expected[mode])
            outcomes[mode] = ("agree", "") if good else ("WRONG", f"max error "
                              f"{np.max(np.abs(np.asarray(value) - expected[mode]), initial=0):.3g}"
                              if np.shape(value) == expected[mode].shape else
                              f"shape {np.shape(value)} != {expected[mode].shape}")
    return outcomes


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--backend", default="python")
    parser.add_argument("--family", default=None)
    parser.add_argument("--all", action="store_true")
    options = parser.parse_args(argv)
    counts = collections.defaultdict(collections.Counter)
    cases = collections.Counter()
    for number, (family, label, expression, kind) in enumerate(CASES):
        if options.family and family != options.family:
            continue
        outcomes = probe(number, expression, kind, options.backend)
        cases[family, all(o == "agree" for o, _ in outcomes.values())] += 1
        for mode, (outcome, detail) in outcomes.items():
            counts[family][mode, outcome] += 1
            if outcome != "agree" or options.all:
                print(f"{family:11} {label:36} {mode:8} {outcome:8} {detail}", flush=True)
    print(f"\nbackend {options.backend}: cases agreeing in every mode / cases, and per mode "
          "agree/refused/WRONG/crash")
    totals = collections.Counter()
    for family, counter in counts.items():
        agreeing, total = cases[family, True], cases[family, True] + cases[family, False]
        row = [f"{family:11} {agreeing:3}/{total:3}"]
        for mode in MODES:
            numbers = [counter[mode, o] for o in ("agree", "refused", "WRONG", "crash")]
            row.append(f"{mode} {'/'.join(map(str, numbers))}")
            for o, n in zip(("agree", "refused", "WRONG", "crash"), numbers):
                totals[mode, o] += n
        print("  ".join(row))
    all_cases = sum(cases.values())
    print(f"{'total':11} {sum(n for (f, ok), n in cases.items() if ok):3}/{all_cases:3}  " +
          "  ".join(f"{m} " + "/".join(str(totals[m, o]) for o in
                                      ("agree", "refused", "WRONG", "crash")) for m in MODES))
    return 1 if any(totals[m, o] for m in MODES for o in ("WRONG", "crash")) else 0


if __name__ == "__main__":
    raise SystemExit(main())
