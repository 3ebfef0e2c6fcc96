"""Running min/max loops on the numba backend (`python fuzz/extremum_lanes.py --count 50`):
a grammar of its own (`random.Random(f"extremum lanes {seed}")`) writes loops keeping one or
two running minima or maxima (`m = min(m, e)`, `m = max(m, e)`; temporaries of the
iteration; a second accumulator; bounds `range(len(x))`, `range(1, len(x))`, `range(j,
len(x))`; starts `x[0]`, `a`, +-inf, +-0.0, NaN) and loops srcad must leave as written
(the extremum read by another statement, `max(e, m)` with the value first, a value carried
from the last iteration, an argmin `if e < m: m = e; k = i`), the running extremum with the
index of its step (`if e < m: k = i` then `m = min(m, e)`, in lanes by
srcad/transform/numba_argmin_lanes.py), and extrema of sums an inner
loop computes (`s = 0.0; for t in range(len(y)): s += e`, jammed by
srcad/transform/numba_extremum_jam.py, or over `range(min(i, len(y)))`, a length that
changes with the row, left as written), and extrema of sums over the rows of a 2-D
argument (`b = x[i]; for t in range(len(b)): s += e(b[t])`, the sums of all rows computed
at once by srcad/transform/numba_row_sums.py; `x` is then the 1-D input's columns stacked:
x, y reversed, x). Each program's functions
`f<j>(x, y, a)` (one per accumulator) run on inputs full of what the lanes must get right
(NaN first, inside and last; zeros of both signs in different lanes; ties; infinities;
every length from 1 to 13) through srcad's generated code on numba (srcad/transform/
numba_extremum_lanes.py runs such loops in lanes) and must give the bits CPython gives and
numba gives compiling the function as written (`numba.njit`); for the rows, a prepared
gradient called again on other rows gives the bits of a gradient computed afresh (its
transposed copy and sums live in the tape the prepared call keeps).

    python fuzz/extremum_lanes.py --count 50 --seed 0
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

VALUES = (-2.0, -1.0, -0.0, 0.0, 0.0, -0.0, 0.5, 1.0, 1.0, 3.0, math.inf, -math.inf, math.nan)
ELEMENTS = ("x[i]", "y[i]", "x[i] * a", "x[i] - y[i]", "abs(x[i])", "-x[i]",
            "(x[i] - a) * (x[i] - a)", "min(x[i], y[i])", "x[i] * 0.0", "x[i] + y[i]")
INNER_TERMS = ("(x[i] - y[t]) * (x[i] - y[t])", "x[i] * y[t]", "abs(x[i] - y[t])",
               "min(x[i], y[t]) * a", "x[i] * 0.0", "x[i] * y[t] * 0.0")
ROW_TERMS = ("(b[t] - y[t % len(y)]) * (b[t] - y[t % len(y)])", "b[t] * y[t % len(y)]",
             "abs(b[t] - a)", "b[t] * 0.0", "min(b[t], a) * y[t % len(y)]", "b[t] * b[t]")
STARTS = ("x[0]", "a", "math.inf", "-math.inf", "0.0", "-0.0", "math.nan", "y[0] * a")


def program(seed: int) -> tuple:
    """(module text, names of its functions): the seed's loop, once per accumulator."""
    rng = random.Random(f"extremum lanes {seed}")
    kind = rng.choices(["lanes", "read", "value-first", "carried", "argmin", "inner",
                        "ragged", "rows", "nearest"], [6, 1, 1, 1, 1, 4, 1, 4, 3])[0]
    indexed = kind in ("argmin", "nearest")  # the function returns m + k
    span = rng.choice(["range(len(x))", "range(1, len(x))", "range(j, len(x))"])
    accumulators = ["m0", "m1"] if rng.random() < 0.4 else ["m0"]
    body, starts = [], []
    temps = []
    for t in range(rng.choice([0, 0, 1, 2])):
        name = f"t{t}"
        body.append(f"{name} = {rng.choice(ELEMENTS)}")
        temps.append(name)
    for m in accumulators:
        starts.append(f"{m} = {rng.choice(STARTS)}")
        op = rng.choice(["min", "max"])
        e = rng.choice(ELEMENTS + tuple(temps) * 2)
        body.append(f"{m} = {op}({m}, {e})")
    if kind == "read":
        body.append(f"s = s + {accumulators[0]}")
    elif kind == "value-first":
        e = rng.choice(ELEMENTS)
        body[-1] = f"{accumulators[-1]} = max({e}, {accumulators[-1]})"
    elif kind == "carried":
        body.insert(0, "c = c * 0.5 + x[i]")
        body[-1] = f"{accumulators[-1]} = max({accumulators[-1]}, c)"
    elif kind in ("inner", "ragged"):  # a value an inner loop sums: lanes jammed, or not
        start = rng.choice(["0.0", "-0.0"])
        span_t = "range(len(y))" if kind == "inner" else "range(min(i, len(y)))"
        # half the time a term that is a zero of x[i]'s sign: rows of zeros of both signs
        term = rng.choice(INNER_TERMS[-2:] if rng.random() < 0.5 else INNER_TERMS)
        body = body[:len(temps)] + [f"s = {start}", f"for t in {span_t}:",
                                    f"    s += {term}", f"{accumulators[0]} = "
                                    f"{rng.choice(['min', 'max'])}({accumulators[0]}, s)"]
        accumulators = accumulators[:1]
        starts = starts[:1]
    elif kind == "rows":  # sums over the rows of x, 2-D: all rows at once, or as written
        term = rng.choice(ROW_TERMS[3:4] if rng.random() < 0.3 else ROW_TERMS)
        body = ["b = x[i]", f"s = {rng.choice(['0.0', '-0.0', 'a'])}",
                 "for t in range(len(b)):", f"    s += {term}",
                 f"{accumulators[0]} = {rng.choice(['min', 'max'])}({accumulators[0]}, s)"]
        if rng.random() < 0.5:  # and the index of the nearest (farthest) row
            taken = "<" if "= min(" in body[-1] else ">"
            body[-1:-1] = [f"if s {taken} {accumulators[0]}:", "    k = i"]
            indexed = True
        accumulators = accumulators[:1]
        starts = [s.replace("x[0]", "x[0, 0]") for s in starts[:1]]
    elif kind == "nearest":  # the running extremum and the index of its step: in lanes
        op = rng.choice(["min", "max"])
        e = rng.choice(ELEMENTS + tuple(temps) * 2)
        m = accumulators[0]
        body = body[:len(temps)] + [f"if {e} {'<' if op == 'min' else '>'} {m}:", "    k = i",
                                    f"{m} = {op}({m}, {e})"]
        accumulators = accumulators[:1]
        starts = starts[:1]
    elif kind == "argmin":
        e = rng.choice(ELEMENTS)
        body = [f"if {e} < {accumulators[0]}:", f"    {accumulators[0]} = {e}", "    k = i"]
        accumulators = accumulators[:1]
        starts = starts[:1]
    functions, texts = [], []
    for j, m in enumerate(accumulators):
        name = f"f{j}"
        extra = " + k" if indexed else " + 0.0 * s" if kind == "read" else ""
        lines = [f"def {name}(x, y, a):", "    j = 2 if len(x) > 2 else 0", "    s = 0.0",
                 "    c = 0.0", "    k = 0", *(f"    {s}" for s in starts),
                 f"    for i in {span}:", *(f"        {s}" for s in body),
                 f"    return {m}{extra}"]
        texts.append("\n".join(lines))
        functions.append(name)
    return "import math\n\n\n" + "\n\n\n".join(texts) + "\n", functions, kind


def inputs(seed: int, count: int = 6) -> list:
    """(x, y, a) triples: lengths 1-13, values from VALUES and random normals."""
    rng = random.Random(f"extremum lanes inputs {seed}")
    out = []
    for _ in range(count):
        n = rng.randint(1, 13)
        pool = VALUES if rng.random() < 0.7 else VALUES[:10]  # some without inf and NaN
        x = [rng.choice(pool) if rng.random() < 0.7 else rng.gauss(0.0, 2.0) for _ in range(n)]
        y = [rng.choice(pool) if rng.random() < 0.5 else rng.gauss(0.0, 2.0) for _ in range(n)]
        out.append((np.array(x), np.array(y), rng.choice([-1.0, -0.0, 0.0, 0.5, 2.0])))
    # a first row that is never taken (NaN, or inf * 0.0), then rows whose sums are zeros of
    # the sign of x[i]: lane 0's first zero comes after lane 1's
    for first in (math.nan, math.inf)[:max(0, count - 4)]:
        x = [first, -1.0, -1.0, -1.0, 1.0, 1.0, 1.0, 1.0, 1.0]
        out.append((np.array(x), np.linspace(0.5, 2.0, 9), -1.0))
    return out


def _bits(v) -> bytes:
    return np.float64(v).tobytes()


def check(seed: int) -> str:
    """'agreed in lanes' or 'agreed as written' (whether srcad ran the loop in lanes), or a
    description of the first disagreement."""
    import numba

    text, names, kind = program(seed)
    module, _ = load_module(text)
    for name in names:
        f = getattr(module, name)
        compiled = numba.njit(f)
        for x, y, a in inputs(seed):
            if kind == "rows":
                x = np.column_stack([x, y[::-1], x])
            with np.errstate(all="ignore"):
                want = f(x, y, a)
            as_written = compiled(x, y, a)
            got = srcad.autodiff(srcad.ForwardWithPrimal, f, srcad.Const(x), srcad.Const(y),
                                 srcad.Const(a), backend="numba")[-1]
            if not (_bits(got) == _bits(want) == _bits(as_written)):
                return (f"disagreed ({kind}): {name}(x={x.tolist()}, y={y.tolist()}, a={a}): "
                        f"srcad {got!r}, CPython {want!r}, numba as written {as_written!r}")
    x, y, a = inputs(seed, 1)[0]
    if kind == "rows":
        x = np.column_stack([x, y[::-1], x])
        problem = _prepared_gradients_agree(getattr(module, names[0]), x, y, a)
        if problem:
            return problem
    code = srcad.source(getattr(module, names[0]), srcad.ForwardWithPrimal,
                        *(srcad.Const(v) for v in (x, y, a)), backend="numba")
    if "numba_row_sums" in code:
        return "agreed, rows at once" + (", index in lanes" if "numba_argmin_lanes" in code
                                         else "")
    if "numba_argmin_lanes" in code:
        return "agreed, index in lanes"
    if "numba_extremum_jam" in code:
        return "agreed in jammed lanes"
    return "agreed in lanes" if "zero_signs_differ" in code else "agreed as written"


def _prepared_gradients_agree(f, x, y, a) -> str:
    """A prepared numba gradient keeps its tape across calls, and the rows' transposed copy
    and sums are carved from it (srcad/transform/numba_row_sums.py): its second call, on
    other rows, must give the bits of a gradient computed afresh. '' when it does."""
    if not np.isfinite(x).all():
        x = np.nan_to_num(x, posinf=4.0, neginf=-4.0)
    other = x[::-1] * 0.5 - 0.25
    try:
        prep = srcad.prepare_gradient(f, x, srcad.Const(y), srcad.Const(a), backend="numba")
        with np.errstate(all="ignore"):
            srcad.gradient(f, x, srcad.Const(y), srcad.Const(a), prep=prep)
            again = srcad.gradient(f, other, srcad.Const(y), srcad.Const(a), prep=prep)
            fresh = srcad.gradient(f, other, srcad.Const(y), srcad.Const(a), backend="numba")
    except srcad.SrcadError:
        return ""  # not differentiable as written (an int result, say)
    if np.asarray(again).tobytes() != np.asarray(fresh).tobytes():
        return (f"prepared gradient disagreed: {f.__name__}(x={other.tolist()}, "
                f"y={y.tolist()}, a={a}): {again!r}, afresh {fresh!r}")
    return ""


def main(argv=None) -> int:
    return run_seeds(__doc__.splitlines()[0], check, argv, count=50)


if __name__ == "__main__":
    sys.exit(main())
