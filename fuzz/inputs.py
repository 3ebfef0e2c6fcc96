"""Input values for a fuzz program: drawn so that the primal runs, stays finite and within
bounds, its branch trace is stable under small perturbations, and no comparison or kink that
moves with the inputs is within MARGIN of its threshold (an instrumented copy of the program
records the margins, fuzz/instrument.py).
"""

from __future__ import annotations

import collections
import copy
import linecache
import math
import signal
import zlib

import numpy as np
from checking import Timeout, _alarm
from instrument import instrument
from program import Program, make_inputs

MARGIN = 1e-3
MAX_ABS = 1e3
INPUT_DRAWS = 8


def plain_namespace(source: str):
    ns = {"__name__": "fuzz_plain"}
    text = instrument(source)
    # the text kept, for a primal that calls srcad.grad (srcad reads its helpers' source)
    name = f"<fuzz plain {zlib.crc32(text.encode()):08x}>"
    linecache.cache[name] = (len(text), None, text.splitlines(True), name)
    exec(compile(text, name, "exec"), ns)
    return ns


def plain_run(ns, entry, values):
    """(outputs, margins, diffs, trace) of one instrumented run; raises what the primal raises."""
    for name in ("_MARGINS", "_DIFFS", "_TRACE"):
        del ns[name][:]
    vals = [copy.deepcopy(v) for v in values]
    out = ns[entry](*vals)
    outputs = [float(out)] if isinstance(out, float) else []
    for v in vals:
        if isinstance(v, np.ndarray):
            outputs += [float(e) for e in v.ravel()]
    return outputs, list(ns["_MARGINS"]), list(ns["_DIFFS"]), list(ns["_TRACE"])


def inputs_ok(ns, entry, values, rng) -> str | None:
    """None when the inputs are acceptable, else why not.

    Acceptable: the primal runs, its outputs are finite and within MAX_ABS, the branch trace
    (every float comparison and kink) is the same under four perturbations of size 1e-4, and
    every comparison or kink whose operands move with the inputs is at least MARGIN (relative)
    away from its threshold. (A comparison of values that do not depend on the inputs, such as
    `min(0.3, 0.1 * i)` at i = 3, is no kink for the derivative.)
    """
    with np.errstate(all="raise"):
        try:
            outputs, margins, diffs, trace = plain_run(ns, entry, values)
        except Exception as err:  # noqa: BLE001
            return f"primal raises {type(err).__name__}"
        if not all(math.isfinite(o) and abs(o) <= MAX_ABS for o in outputs):
            return "primal output not finite or too large"
        moving = [False] * len(diffs)
        for _ in range(4):
            moved = [v + 1e-4 * rng.standard_normal(np.shape(v))
                     if isinstance(v, (float, np.ndarray)) else v for v in values]
            try:
                _, _, diffs2, trace2 = plain_run(ns, entry, moved)
            except Exception as err:  # noqa: BLE001
                return f"perturbed primal raises {type(err).__name__}"
            if trace2 != trace:
                return "branch trace not stable"
            moving = [m or d != d2 for m, d, d2 in zip(moving, diffs, diffs2)]
        if any(m and margin < MARGIN for m, margin in zip(moving, margins)):
            return "near a kink"
    return None


def choose_inputs(program: Program, timeout: float = 10.0):
    """Acceptable input values for the program, or (None, why not)."""
    signal.signal(signal.SIGALRM, _alarm)
    signal.setitimer(signal.ITIMER_REAL, timeout, 1.0)
    try:
        return _choose_inputs(program)
    except Timeout:
        return None, "primal too slow"
    finally:
        signal.setitimer(signal.ITIMER_REAL, 0)


def _choose_inputs(program: Program):
    ns = plain_namespace(program.source)
    reasons = []
    for draw in range(INPUT_DRAWS):
        rng = np.random.default_rng([program.seed, draw])
        values = make_inputs(program, rng)
        why = inputs_ok(ns, program.entry, values, rng)
        if why is None:
            return values, None
        reasons.append(why)
    return None, collections.Counter(reasons).most_common(1)[0][0]
