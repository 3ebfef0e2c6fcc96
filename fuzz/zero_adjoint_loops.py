"""Reverse loops guarded by their adjoint on the numba backend (`python fuzz/zero_adjoint_loops.py
--count 30`): a grammar of its own (`random.Random(f"zero adjoint loops {seed}")`) writes
nearest- and farthest-centroid sums, k-means' shape: over the rows of `p`, a running `min` or
`max` over the rows of `c` of a reduction over the columns (an inner loop, inline or in a helper
function on row views; terms `(p - c) ** 2`, weighted, `abs`, a product, `exp`), a start of
+-inf or the first row's value, combined as a sum of the extrema, their squares or a weighted
sum. Their numba reverse code runs the reverse of the inner loop behind `if g != 0.0:`
(srcad/transform/numba_zero_adjoints.py). Each program's gradient in `c` on inputs with ties
(repeated rows of `c`), zero distances and, for some, a coordinate at infinity:

- numba's gradient with the guard, the `min`/`max` recorded as its comparison's outcome
  (srcad/transform/numba_compare_tapes.py) and, where that applies, only the last winning
  step recorded and replayed (srcad/transform/numba_last_winner.py) has the bits of numba's
  gradient of the same code without any of them (the three rewrites switched off), except
  where that one is NaN from `0.0 * inf`, where it must agree with forward mode (the python
  backend's `jacfwd`);
- on finite inputs, numba's `gradient_and_hvp` (reverse over forward: the guard runs there
  too) agrees with the python backend's (forward over reverse) to 1e-9.

    python fuzz/zero_adjoint_loops.py --count 30 --seed 0
"""

from __future__ import annotations

import math
import os
import random
import sys

import numpy as np

sys.path.append(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))  # after PYTHONPATH

from checking import load_module  # noqa: E402
from seed_runs import run_seeds  # noqa: E402

import srcad  # noqa: E402
from srcad.transform import numba_stage  # noqa: E402

TERMS = ("(a[t] - b[t]) * (a[t] - b[t])", "(a[t] - b[t]) ** 2", "w[t] * (a[t] - b[t]) ** 2",
         "abs(a[t] - b[t])", "a[t] * b[t]", "math.exp(b[t] - a[t])")
COMBINE = ("cost += m", "cost += m * m", "cost += w[0] * m")


def program(seed: int) -> tuple:
    """(module text, whether the reduction is a helper function): the seed's function `f(c,
    p, w)`."""
    rng = random.Random(f"zero adjoint loops {seed}")
    op = rng.choice(["min", "max"])
    term = rng.choice(TERMS)
    helper = rng.random() < 0.5
    start = rng.choice(["inf", "first"])
    combine = rng.choice(COMBINE)
    infinity = "math.inf" if op == "min" else "-math.inf"
    reduction = ["s = 0.0", "for t in range(len(a)):", f"    s += {term}"]
    lines = ["import math", ""]
    if helper:
        lines += ["def reduce(a, b, w):", *(f"    {r}" for r in reduction), "    return s",
                  "", ""]
    lines += ["def f(c, p, w):", "    cost = 0.0", "    for i in range(p.shape[0]):",
              "        a = p[i]"]
    first = "0" if start == "first" else None
    lines.append(f"        m = {infinity}")
    lines.append(f"        for j in range({first + ', ' if first else ''}c.shape[0]):")
    lines.append("            b = c[j]")
    if helper:
        lines.append("            m = {op}(m, reduce(a, b, w))".format(op=op))
    else:
        lines += [f"            {r}" for r in reduction]
        lines.append(f"            m = {op}(m, s)")
    lines += [f"        {combine}", "    return cost", ""]
    return "\n".join(lines), helper


def inputs(seed: int, count: int = 3) -> list:
    """(c, p, w, whether finite): 1-6 rows of c, 1-9 of p, 1-5 columns; repeated rows of c, a
    row of p equal to one of c, and in some an infinite coordinate of c."""
    rng = np.random.default_rng(seed)
    out = []
    for k in range(count):
        rows, n, d = rng.integers(1, 7), rng.integers(1, 10), rng.integers(1, 6)
        c = rng.normal(size=(rows, d))
        p = rng.normal(size=(n, d))
        w = rng.uniform(0.5, 2.0, size=d)
        if rows > 2:
            c[rows - 1] = c[0]  # a tie
        p[0] = c[rng.integers(rows)]  # a zero distance
        finite = k != count - 1 or rows < 2
        if not finite:
            c[rng.integers(1, rows), rng.integers(d)] = rng.choice([math.inf, -math.inf])
        out.append((c, p, w, finite))
    return out


def _gradient(module, c, p, w):
    with np.errstate(all="ignore"):
        return srcad.grad(module.f, backend="numba")(c, srcad.Const(p), srcad.Const(w))


def check(seed: int) -> str:
    """'agreed guarded' or 'agreed as written' (whether the numba reverse code holds the
    guard; 'agreed guarded, a NaN of 0 * inf skipped' where the loop as written gave a NaN
    the guard skipped), or a description of the first disagreement."""
    text, _ = program(seed)
    guarded, _ = load_module(text)
    rewrites = (numba_stage.zero_adjoint_loops, numba_stage.compare_tapes,
                numba_stage.last_winner_steps)
    numba_stage.zero_adjoint_loops = lambda tree, bars, types: tree
    numba_stage.compare_tapes = lambda tree, namer: tree
    numba_stage.last_winner_steps = lambda tree, namer: tree
    try:
        plain, _ = load_module(text)
        for c, p, w, _ in inputs(seed):
            _gradient(plain, c, p, w)  # compiles the code as written now
    finally:
        (numba_stage.zero_adjoint_loops, numba_stage.compare_tapes,
         numba_stage.last_winner_steps) = rewrites
    skipped_nan = False
    for c, p, w, finite in inputs(seed):
        got, want = _gradient(guarded, c, p, w), _gradient(plain, c, p, w)
        differ = np.frombuffer(got.tobytes(), np.uint64) != np.frombuffer(want.tobytes(),
                                                                          np.uint64)
        if differ.any():
            with np.errstate(all="ignore"):
                forward = srcad.jacfwd(guarded.f, backend="python")(c, srcad.Const(p),
                                                                    srcad.Const(w))
            at = differ.reshape(got.shape)
            if not (np.isnan(want[at]).all()
                    and np.allclose(got[at], forward[at], rtol=1e-9, atol=1e-12)):
                return (f"disagreed: guarded {got[at].tolist()}, as written "
                        f"{want[at].tolist()}, forward {forward[at].tolist()} at c={c.tolist()}, "
                        f"p={p.tolist()}, w={w.tolist()}")
            skipped_nan = True
        if finite:
            ones = np.ones_like(c)
            pair = [srcad.gradient_and_hvp(guarded.f, c, srcad.Constant(p), srcad.Constant(w),
                                           tangent=ones, backend=b) for b in ("numba", "python")]
            for a, b in zip(*pair):
                if not np.allclose(a, b, rtol=1e-9, atol=1e-12):
                    return (f"gradient_and_hvp disagreed: numba {a.tolist()}, python "
                            f"{b.tolist()} at c={c.tolist()}, p={p.tolist()}, w={w.tolist()}")
    code = srcad.source(guarded.f, srcad.Reverse, srcad.Duplicated(c, np.zeros_like(c)),
                        srcad.Const(p), srcad.Const(w), backend="numba")
    if "numba_zero_adjoints" not in code:
        return "agreed as written"
    guarded = "agreed guarded, one step replayed" if "numba_last_winner" in code \
        else "agreed guarded"
    return f"{guarded}, a NaN of 0 * inf skipped" if skipped_nan else guarded


def main(argv=None) -> int:
    return run_seeds(__doc__.splitlines()[0], check, argv, count=30)


if __name__ == "__main__":
    sys.exit(main())
