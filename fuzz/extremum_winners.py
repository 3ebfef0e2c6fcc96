"""Gradients of running min/max loops on the numba backend (`python fuzz/extremum_winners.py
--count 30`): a grammar of its own (`random.Random(f"extremum winners {seed}")`) writes
`f(x, y, a)` keeping a running `m = min(m, e)` or `m = max(m, e)` (the elements and starts of
fuzz/extremum_lanes.py: +-inf, +-0.0, NaN, `x[0]`, `a`), used after the loop as it is, squared,
in `exp`, or to shift a sum over the elements (GradBench's lse), and loops srcad must leave as
written (the extremum read by another statement of the loop, `max(e, m)` with the value first,
a second accumulator). Each program's gradient in `x`, `y` or both (the other `Const`), on
extremum_lanes.py's inputs (NaN first, inside and last; zeros of both signs; ties;
infinities; lengths 1 to 13) and two longer ones (17 to 70 values, ties and NaN among them):

- numba's gradient with the loop's reverse run for the winning step alone
  (srcad/transform/numba_extremum_winners.py) has the bits of numba's gradient of the same
  code without that rewrite, except where that one is NaN from `0.0 * inf` or `0.0 * nan`
  (an element not taken), where it must be forward mode's value (the python backend's
  `jacfwd`) unless that is NaN too (a NaN extremum: forward mode multiplies its NaN
  derivative by the zero tangents of the elements not taken);
- on finite inputs, it agrees with the python backend's gradient to 1e-12.

    python fuzz/extremum_winners.py --count 30 --seed 0
"""

from __future__ import annotations

import math
import os
import random
import sys

import numpy as np

sys.path.append(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))  # after PYTHONPATH

from checking import load_module  # noqa: E402
from extremum_lanes import ELEMENTS, STARTS  # noqa: E402
from extremum_lanes import inputs as short_inputs  # noqa: E402
from seed_runs import run_seeds  # noqa: E402

import srcad  # noqa: E402
from srcad.transform import numba_stage  # noqa: E402

USES = ("m * 2.0", "m * m", "math.exp(m)", "m * a + 1.0", "shifted")


def program(seed: int) -> tuple:
    """(module text, kind, argnums): the seed's `f(x, y, a)` and the arguments varied."""
    rng = random.Random(f"extremum winners {seed}")
    kind = rng.choices(["winner", "read", "value-first", "two"], [8, 1, 1, 1])[0]
    span = rng.choice(["range(len(x))", "range(1, len(x))"])
    op = rng.choice(["min", "max"])
    e = rng.choice(ELEMENTS)
    body = [f"m = {op}(m, {e})"]
    if kind == "read":
        body.insert(0, "r = r + m * 0.5")
    elif kind == "value-first":
        body = [f"m = {op}({e}, m)"]
    elif kind == "two":
        body.append(f"k = {rng.choice(['min', 'max'])}(k, {rng.choice(ELEMENTS)})")
    use = rng.choice(USES)
    after = []
    if use == "shifted":  # lse's shape: the extremum shifts a sum of exponentials
        after = ["s = 0.0", "for i in range(len(x)):",
                 "    s += math.exp(min(x[i] - m, 50.0)) * y[i]"]
        use = "s + m"
    result = f"{use} + r + k" if kind in ("read", "two") else use
    lines = ["import math", "", "", "def f(x, y, a):", "    r = 0.0", "    k = y[0]",
             f"    m = {rng.choice(STARTS)}", f"    for i in {span}:",
             *(f"        {s}" for s in body), *(f"    {s}" for s in after),
             f"    return {result}", ""]
    argnums = rng.choice([(0,), (1,), (0, 1)])
    return "\n".join(lines), kind, argnums


def inputs(seed: int) -> list:
    """extremum_lanes.py's inputs (lengths 1 to 13) and two of lengths 17 to 70 (the winner's
    search compares 16 values at a time): values from a few, so ties, some NaN and
    infinities, zeros of both signs."""
    rng = random.Random(f"extremum winners inputs {seed}")
    out = short_inputs(seed)
    for pool in ((-1.0, -0.0, 0.0, 0.5, 2.0, 2.0, math.nan, -math.inf), (-3.0, 1.0, 1.5, 4.0)):
        n = rng.randint(17, 70)
        x = np.array([rng.choice(pool) if rng.random() < 0.6 else rng.gauss(0.0, 1.0)
                      for _ in range(n)])
        y = np.array([rng.choice(pool[:5]) if rng.random() < 0.3 else rng.uniform(0.5, 2.0)
                      for _ in range(n)])
        out.append((x, y, rng.choice([-1.0, 0.5, 2.0])))
    return out


def _gradient(f, x, y, a, argnums, backend="numba"):
    with np.errstate(all="ignore"):
        got = srcad.grad(f, argnums=argnums, backend=backend)(x, y, a)
    return got if isinstance(got, tuple) else (got,)


def _forward(f, x, y, a, argnums):
    with np.errstate(all="ignore"):
        got = srcad.jacfwd(f, argnums=argnums, backend="python")(x, y, a)
    return got if isinstance(got, tuple) else (got,)


def check(seed: int) -> str:
    """'agreed rewritten' or 'agreed as written' (whether the numba reverse code runs the
    winning step alone), ', a NaN of 0 * v skipped' added where the code as written gave a NaN
    the rewrite does not, or a description of the first disagreement."""
    text, kind, argnums = program(seed)
    rewritten, _ = load_module(text)
    cases = inputs(seed)
    saved = numba_stage.extremum_winners
    numba_stage.extremum_winners = lambda tree, namer, types, adjoints: tree
    try:
        plain, _ = load_module(text)
        wanted = [_gradient(plain.f, *case, argnums) for case in cases]
    finally:
        numba_stage.extremum_winners = saved
    skipped_nan = False
    for (x, y, a), want in zip(cases, wanted):
        got = _gradient(rewritten.f, x, y, a, argnums)
        for g, w, k in zip(got, want, argnums):
            differ = g.view(np.uint64) != w.view(np.uint64)
            if not differ.any():
                continue
            forward = _forward(rewritten.f, x, y, a, argnums)[argnums.index(k)]
            numbers = differ & ~np.isnan(forward)  # forward mode NaN too: no value to match
            if not (np.isnan(w[differ]).all()
                    and np.array_equal(g[numbers], forward[numbers])):
                return (f"disagreed ({kind}): argument {k}: rewritten {g.tolist()}, as "
                        f"written {w.tolist()}, forward {forward.tolist()} at x={x.tolist()}, "
                        f"y={y.tolist()}, a={a}")
            skipped_nan = True
        if all(np.isfinite(v).all() for v in (x, y, a)):
            for g, p in zip(got, _gradient(rewritten.f, x, y, a, argnums, "python")):
                if not np.allclose(g, p, rtol=1e-12, atol=1e-14, equal_nan=True):
                    return (f"disagreed with the python backend ({kind}): numba {g.tolist()}, "
                            f"python {p.tolist()} at x={x.tolist()}, y={y.tolist()}, a={a}")
    x, y, a = cases[0]
    annotated = [srcad.Duplicated(v, np.zeros_like(v)) if k in argnums else srcad.Const(v)
                 for k, v in enumerate((x, y))]
    code = srcad.source(rewritten.f, srcad.Reverse, *annotated, srcad.Const(a),
                        backend="numba")
    outcome = ("agreed rewritten" if "numba_extremum_winners" in code
               else "agreed as written")
    if kind != "winner" and outcome == "agreed rewritten":
        return f"disagreed ({kind}): a loop to leave as written was rewritten"
    return outcome + (", a NaN of 0 * v skipped" if skipped_nan else "")


def main(argv=None) -> int:
    return run_seeds(__doc__.splitlines()[0], check, argv, count=30, program=lambda s:
                     program(s)[0])


if __name__ == "__main__":
    sys.exit(main())
