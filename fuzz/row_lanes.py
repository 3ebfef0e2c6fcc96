"""Nests of row sums over points on the numba backend (`python fuzz/row_lanes.py --count 40`):
a grammar of its own (`random.Random(f"row lanes {seed}")`) writes k-means-shaped nests
`for i in range(len(p)): <values per point>; for j in range(len(c)): a = p[i]; b = c[j];
s = <start>; for t in range(len(a)): <temporaries>; s += <term>; <running min/max, the
index of the nearest row, a max from a start per point>; <tail>` (the sum inline or in a
helper; the tail adding the point's values into a total, taking their max, or restoring them
and reading them after the nest), which srcad runs with the points in lanes
(srcad/transform/numba_row_lanes.py), and nests it must leave as written (an index carried
from one point to the next, the row counter read in the tail, the tail writing the rows, a
tail that breaks, a value per point started from the last point's). Each program's function
`f(c, p, a)` runs on inputs across the block of 128 points and the 4 coordinates per pass
(0 to 200 points, 0 to 9 coordinates, 0 to 9 rows; ties, NaN, infinities, zeros of both
signs) through srcad's generated primal on numba and must give the bits CPython gives and
numba gives compiling the function as written (`numba.njit`; any NaN for a NaN); its gradient
in the rows on numba (the reverse sweep's forward nest in lanes too) must agree with the
python backend's within 1e-12 of its size.

    python fuzz/row_lanes.py --count 40 --seed 0
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

TERMS = ("(a[t] - b[t]) * (a[t] - b[t])", "abs(a[t] - b[t])", "a[t] * b[t]",
         "(a[t] - b[t]) * (a[t] - b[t]) * w", "min(a[t], b[t]) * 0.0", "d * d")
STARTS = ("math.inf", "-math.inf", "0.0", "-0.0", "math.nan", "w", "0.25 * i - w")
TAILS = ("total += m", "total = max(total, m)", "total += m * (k + 1)", "total += m - top")
ILLEGAL = ("carried", "counter", "writes", "breaks", "last point")


def program(seed: int) -> tuple:
    """(module text, the kind of nest)."""
    rng = random.Random(f"row lanes {seed}")
    kind = rng.choice(["lanes"] * 3 + ["helper"] * 2 + list(ILLEGAL))
    op = rng.choice(["min", "max"])
    term = rng.choice(TERMS)
    temps = ["d = a[t] - b[t]"] if term == "d * d" or rng.random() < 0.3 else []
    start = rng.choice(["0.0", "-0.0", "w"])
    if kind == "helper":
        value = ["        s = measure(p[i], c[j], w)"]
    else:
        value = ["        a = p[i]", "        b = c[j]", f"        s = {start}",
                 "        for t in range(len(a)):", *(f"            {x}" for x in temps),
                 f"            s += {term}"]
    index = rng.random() < 0.5 or kind == "carried"
    after = ([f"        if s {'<' if op == 'min' else '>'} m:", "            k = j"]
             if index else [])
    after += [f"        m = {op}(m, s)"]
    if rng.random() < 0.4:
        after += ["        top = max(top, 0.5 * s)"]
    pre = ["    top = -math.inf", f"    m = {rng.choice(STARTS)}"]
    if index and kind != "carried":
        pre.append("    k = -1")
    tail = [f"    {rng.choice(TAILS)}"]
    if kind == "counter":
        tail = ["    total += m + j"]
        pre.append("    j = 0")
    elif kind == "writes":
        tail += ["    if c.size > 0:", "        c[0, 0] = total"]
    elif kind == "breaks":
        tail += ["    if total > 4.0:", "        break"]
    elif kind == "last point":
        pre = ["    start = m", *pre]
        after = [x.replace("m = min(m, s)", "m = min(m, s + start")
                 .replace("m = max(m, s)", "m = max(m, s + start") for x in after]
        after = [x + ")" if "+ start" in x else x for x in after]
    lines = ["import math", "", "", "def measure(a, b, w):", f"    s = {start}",
             "    for t in range(len(a)):", *(f"        {x}" for x in temps),
             f"        s += {term}", "    return s", "", "",
             "def f(c, p, w):", "    total = 0.0", "    m = 0.0", "    k = 0", "    j = 0",
             "    top = 0.0", "    for i in range(len(p)):", *(f"    {x}" for x in pre),
             "        for j in range(len(c)):", *(f"    {x}" for x in value),
             *(f"    {x}" for x in after), *(f"    {x}" for x in tail),
             "    return total + 0.5 * m + k"]
    return "\n".join(lines) + "\n", kind


def inputs(seed: int) -> list:
    """(c, p, w) triples across the block and the coordinates per pass."""
    rng = np.random.RandomState(seed % 2**32)
    specials = np.array([np.nan, np.inf, -np.inf, 0.0, -0.0, 1.0, 1.0])
    out = []
    for n, d, k in ((0, 3, 2), (1, 1, 1), (5, 0, 3), (127, 4, 5), (129, 5, 9), (200, 9, 4),
                    (130, 3, 0)):
        c, p = rng.standard_normal((k, d)), rng.standard_normal((n, d))
        if k > 2 and d:
            c[-1] = c[0]  # a tie
        if rng.random_sample() < 0.6 and n and d:
            p.flat[rng.randint(0, p.size, 3)] = specials[rng.randint(0, 7, 3)]
        if rng.random_sample() < 0.4 and k and d:
            c.flat[rng.randint(0, c.size)] = specials[rng.randint(0, 7)]
        out.append((c, p, rng.choice([-1.0, -0.0, 0.5, 2.0])))
    return out


def _bits(v) -> bytes:
    """The bytes of `v`, one for every NaN (srcad, CPython and numba may differ in NaN's sign
    bit and payload)."""
    return b"nan" if math.isnan(v) else np.float64(v).tobytes()


def check(seed: int) -> str:
    """'agreed in lanes' or 'agreed as written', or the first disagreement."""
    import numba

    text, kind = program(seed)
    module, _ = load_module(text)
    written, _ = load_module(text)  # numba's own compilation, its helper compiled too
    written.measure = numba.njit(written.measure)
    compiled = numba.njit(written.f)
    for c, p, w in inputs(seed):
        with np.errstate(all="ignore"):
            want = module.f(c.copy(), p, w)
        as_written = compiled(c.copy(), p, w)
        got = srcad.autodiff(srcad.ForwardWithPrimal, module.f, srcad.Const(c.copy()),
                             srcad.Const(p), srcad.Const(w), backend="numba")[-1]
        if not (_bits(got) == _bits(want) == _bits(as_written)):
            return (f"disagreed ({kind}): f(c of shape {c.shape}, p of shape {p.shape}, "
                    f"w={w}) (inputs({seed})): "
                    f"srcad {got!r}, CPython {want!r}, numba as written {as_written!r}")
    problem = _gradients_agree(module.f, *inputs(seed)[4], kind)
    if problem:
        return problem
    c, p, w = inputs(seed)[1]
    code = srcad.source(module.f, srcad.ForwardWithPrimal,
                        *(srcad.Const(v) for v in (c, p, w)), backend="numba")
    taken = "numba_row_lanes" in code
    if taken and kind in ILLEGAL:
        return f"disagreed ({kind}): a nest to leave as written runs in lanes"
    return "agreed in lanes" if taken else "agreed as written"


def _gradients_agree(f, c, p, w, kind) -> str:
    """The gradient in the rows `c` on numba (its forward sweep's nest in lanes, recording
    each point's nearest row) against the python backend's (no lanes), within 1e-12 of its
    size, at finite values; '' when they agree."""
    c, p = np.nan_to_num(c, posinf=3.0, neginf=-3.0), np.nan_to_num(p, posinf=3.0, neginf=-3.0)
    try:
        with np.errstate(all="ignore"):
            got = srcad.gradient(f, c.copy(), srcad.Constant(p), srcad.Constant(w),
                                 backend="numba")
            want = srcad.gradient(f, c.copy(), srcad.Constant(p), srcad.Constant(w))
    except srcad.SrcadError:
        return ""  # refused on both (a write into c, say)
    if not np.allclose(got, want, rtol=1e-12, atol=1e-12 * max(1.0, np.abs(want).max()),
                       equal_nan=True):
        return f"gradients disagreed ({kind}): numba {got!r}, python {want!r}"
    return ""


def main(argv=None) -> int:
    return run_seeds(__doc__.splitlines()[0], check, argv, count=40)


if __name__ == "__main__":
    sys.exit(main())
