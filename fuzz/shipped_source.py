"""Fuzz the shipping of a function's source to Dask workers (srcad/scale/shipped_source.py)
with the fuzzer's random programs: each program's `f` (with its helpers, the modules and the
globals they read) is packed as `srcad.dask` packs a function of `__main__`, pickled,
rebuilt from its text as on a fresh worker, and differentiated in reverse mode next to the
original. The rebuilt function runs the same text, so its value and every derivative must be
equal to the last bit, and a refusal must be the same refusal.

    python fuzz/shipped_source.py --count 300 --seed 0 [--functions] [--arrays]

The programs are fuzz/generator.py's for the same seeds and switches (no random stream of its
own: it adds a check, not a construct). Outcomes:

  agreed         same value and derivatives
  both-refused   srcad refused the original and the rebuilt function alike
  not-shipped    ShippedFunction refused to pack f (a lambda, an unpicklable global), by name
  differed       the value, a derivative or the refusal differ (a bug)
  crashed        any other exception (a bug)
  skipped        no acceptable inputs for the program
"""

from __future__ import annotations

import argparse
import collections
import os
import pickle
import sys
import time

import numpy as np

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(HERE)
sys.path[:0] = [p for p in (ROOT, HERE) if p not in sys.path]

from checking import load_module, normalize_message  # noqa: E402
from generator import generate, module_text  # noqa: E402
from inputs import choose_inputs  # noqa: E402

import srcad  # noqa: E402
from srcad.scale import shipped_source  # noqa: E402


def _reverse(function, arguments):
    """(value, shadows) of one reverse call, or ("refused", message kind)."""
    try:
        result = srcad.autodiff(srcad.Reverse, function, *arguments)
    except srcad.SrcadError as err:
        return "refused", normalize_message(str(err))
    # what f wrote into its arguments and the derivatives added into their shadows
    written = [tuple(np.copy(v) if isinstance(v, np.ndarray) else v
                     for v in (getattr(a, "value", a), getattr(a, "shadow", None)))
               for a in arguments]
    return result, written


def _same(a, b) -> bool:
    """Equal to the last bit (NaN equal to NaN), through tuples, lists and dicts."""
    if isinstance(a, (tuple, list)) and isinstance(b, (tuple, list)):
        return len(a) == len(b) and all(_same(x, y) for x, y in zip(a, b))
    if isinstance(a, dict) and isinstance(b, dict):
        return a.keys() == b.keys() and all(_same(a[k], b[k]) for k in a)
    if isinstance(a, np.ndarray) or isinstance(b, np.ndarray):
        a, b = np.asarray(a), np.asarray(b)
        if a.dtype.kind in "fc" and b.dtype.kind in "fc":
            return a.shape == b.shape and np.array_equal(a, b, equal_nan=True)
        return a.shape == b.shape and bool(np.all(a == b))
    if isinstance(a, float) and isinstance(b, float) and a != a and b != b:
        return True
    return a == b


def check_seed(seed: int, **switches) -> dict:
    program = generate(seed, **switches)
    values, why = choose_inputs(program)
    if values is None:
        return {"seed": seed, "category": "skipped", "signature": why}
    module, _ = load_module(module_text(program, values))
    try:
        shipment = shipped_source.ShippedFunction.of(module.f)
    except srcad.ArgumentError as err:
        return {"seed": seed, "category": "not-shipped", "signature": normalize_message(str(err))}
    try:
        shipment = pickle.loads(pickle.dumps(shipment))  # what a task carries
        shipped_source._RESOLVED.clear()  # as on a fresh worker
        rebuilt = shipment.resolve()
        original, again = _reverse(module.f, module.args()), _reverse(rebuilt, module.args())
    except Exception as err:  # noqa: BLE001 - any other failure is the bug this looks for
        return {"seed": seed, "category": "crashed", "signature": f"{type(err).__name__}: "
                f"{normalize_message(str(err))}"}
    if original[0] == "refused" or again[0] == "refused":
        same = original == again
        return {"seed": seed, "category": "both-refused" if same else "differed",
                "signature": f"{original[1]} | {again[1]}" if not same else original[1]}
    same = _same(original[0], again[0]) and _same(original[1], again[1])
    return {"seed": seed, "category": "agreed" if same else "differed", "signature": ""}


def main(argv=None) -> dict:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--count", type=int, default=200)
    parser.add_argument("--seed", type=int, default=0)
    for switch in ("functions", "arrays", "python", "containers"):
        parser.add_argument(f"--{switch}", action="store_true")
    args = parser.parse_args(argv)
    switches = {k: True for k in ("functions", "arrays", "python", "containers")
                if getattr(args, k)}
    start, counts, bad = time.time(), collections.Counter(), []
    for seed in range(args.seed, args.seed + args.count):
        result = check_seed(seed, **switches)
        counts[result["category"]] += 1
        if result["category"] in ("differed", "crashed"):
            bad.append(result)
    print(f"{args.count} programs in {time.time() - start:.0f} s: " +
          ", ".join(f"{k} {v}" for k, v in sorted(counts.items())))
    for result in bad:
        print(f"  seed {result['seed']}: {result['category']}: {result['signature']}")
    return counts


if __name__ == "__main__":
    sys.exit(1 if {"differed", "crashed"} & set(main()) else 0)
