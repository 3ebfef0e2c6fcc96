"""Short vectors at several lengths in one process (`python fuzz/small_lengths.py --count 10
[--seed S] [--backend numba]`): each program of fuzz/grammar_small_lengths.py is called at
three lengths, two of 1..5 and the first again (on numba a length of at most 4 gets code made
for it, 5 the general code, and the second call of a length the code made for it before),
with its matrix passed as the seed's layout (C, F, a transpose, a strided view) and one
annotation mix for all three (x, w, A each `Duplicated` or `Const`, a `Active` or `Const`).
At each length: forward, 2-lane vector and reverse mode against central differences
(`check_grads`, each mode alone; a disagreement confirmed with steps 1e-5 and 1e-7),
batched reverse lanes against one reverse call (fuzz/lanes_check.py), and srcad.gradient in x
(forward and reverse) against central differences of the primal.
"""

from __future__ import annotations

import argparse
import collections
import os
import random
import sys
import traceback

import numpy as np

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path[:0] = [p for p in (os.path.dirname(HERE), HERE) if p not in sys.path]

import lanes_check  # noqa: E402
from checking import _alarm, _outcome, check_mode, load_module  # noqa: E402
from grammar_small_lengths import generate, layout  # noqa: E402

import srcad  # noqa: E402

PAIRS = [(1, 5), (2, 5), (3, 5), (4, 5), (5, 2), (5, 4), (2, 3), (1, 4), (3, 4), (4, 2),
         (3, 1), (2, 1)]


def lengths(seed: int) -> list:
    first, second = random.Random(f"small lengths sizes {seed}").choice(PAIRS)
    return [first, second, first]


def annotations(seed: int) -> dict:
    rng = random.Random(f"small lengths mix {seed}")
    kinds = {name: rng.random() < 0.7 for name in ("x", "w", "A", "a")}
    kinds["x"] = kinds["x"] or not any(kinds.values())
    return kinds  # True: varied


def _matrix(values: np.ndarray, how: str) -> np.ndarray:
    if how == "F":
        return np.asfortranarray(values)
    if how == "transposed":
        return np.ascontiguousarray(values.T).T
    if how == "strided":
        taller = np.zeros((2 * values.shape[0], values.shape[1]))
        taller[::2] = values
        return taller[::2]
    return np.ascontiguousarray(values)


def make_args(seed: int, n: int):
    rng = np.random.default_rng([seed, n])
    x, w = rng.uniform(-1.0, 1.0, n), rng.uniform(-1.0, 1.0, n)
    A = _matrix(rng.uniform(-0.5, 0.5, (n, n)), layout(seed))
    a = float(rng.uniform(0.3, 0.9))
    varied = annotations(seed)

    def args():
        out = []
        for name, value in (("x", x), ("w", w), ("A", A)):
            copy = _matrix(value.copy(), layout(seed)) if name == "A" else value.copy()
            out.append(srcad.Duplicated(copy, np.zeros_like(copy)) if varied[name]
                       else srcad.Const(copy))
        out.append(srcad.Active(a) if varied["a"] else srcad.Const(a))
        return out
    return args, (x, w, A, a)


def _gradient_check(f, plain, backend):
    x, w, A, a = plain
    h = 1e-6
    want = np.array([(f(x + h * e, w, A.copy(), a) - f(x - h * e, w, A.copy(), a)) / (2 * h)
                     for e in np.eye(x.size)])
    for mode in ("forward", "reverse"):
        got = srcad.gradient(f, x.copy(), srcad.Constant(w), srcad.Constant(A),
                             srcad.Constant(a), mode=mode, backend=backend)
        scale = max(1.0, float(np.max(np.abs(want))))
        if not np.allclose(got, want, rtol=1e-5, atol=1e-6 * scale):
            raise AssertionError(f"srcad.gradient mode={mode}: {np.asarray(got).tolist()} != "
                                 f"central differences {want.tolist()}")


def check(seed: int, backend: str, timeout: float) -> dict:
    """{(length, mode): (category, signature, detail)} of program `seed`."""
    os.environ["SRCAD_FUZZ_BACKEND"] = backend
    module, name = load_module(generate(seed))
    outcomes = {}
    try:
        for call, n in enumerate(lengths(seed)):
            args, plain = make_args(seed, n)
            with np.errstate(all="ignore"):
                primal = module.f(*[np.copy(v) for v in plain])
            if not np.isfinite(primal) or abs(primal) > 1e6:
                outcomes[(n, "all")] = ("skipped", None, "primal not finite")
                continue
            for mode in ("fwd", "vec", "rev"):
                outcomes[(n, call, mode)] = check_mode(module.f, args, mode, timeout)
            outcomes[(n, call, "lanes")] = _outcome(
                lambda args=args: lanes_check.check(module.f, args, timeout, _alarm), timeout,
                "batched reverse lanes disagree with one reverse call")
            outcomes[(n, call, "gradient")] = _outcome(
                lambda plain=plain: _gradient_check(module.f, plain, backend), timeout,
                "srcad.gradient disagrees with central differences")
    finally:
        sys.modules.pop(name, None)
        srcad.build.cache.clear()
    return outcomes


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--count", type=int, default=10)
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--backend", default="python", choices=["python", "numba"])
    parser.add_argument("--timeout", type=float, default=120.0)
    args = parser.parse_args(argv)
    programs, checks = collections.Counter(), collections.Counter()
    for seed in range(args.seed, args.seed + args.count):
        try:
            outcomes = check(seed, args.backend, args.timeout)
        except Exception:  # noqa: BLE001 - the harness itself: report and go on
            programs["harness error"] += 1
            print(f"seed {seed}: harness error\n{traceback.format_exc()}", flush=True)
            continue
        worst = "agreed"
        order = ("crashed", "disagreed", "timeout", "refused", "skipped", "agreed")
        for key, (category, sig, detail) in outcomes.items():
            checks[category] += 1
            worst = min(worst, category, key=order.index)
            if category in ("crashed", "disagreed", "timeout", "refused"):
                print(f"seed {seed} {key}: {category}: {sig}\n{detail[:1500]}", flush=True)
        programs[worst] += 1
        print(f"seed {seed} (lengths {lengths(seed)}, A {layout(seed)}): {worst}", flush=True)
    print(f"small lengths, {args.backend}, seeds {args.seed}..{args.seed + args.count - 1}: "
          f"programs {dict(programs)}; checks {dict(checks)}")
    return 0 if set(programs) <= {"agreed", "refused", "skipped"} else 1


if __name__ == "__main__":
    sys.exit(main())
