"""Python's math (and statistics) functions beyond those of srcad/rules/table.py: numbers in,
a number out, one formula for both modes. `math.lgamma` and `math.gamma`, whose derivatives
are scipy.special functions, are in srcad/rules/special.py.

| primitive                  | partial applied to seed g                                    |
|----------------------------|--------------------------------------------------------------|
| log2(x), log10(x)          | g / (x * log(2)), g / (x * log(10))                          |
| hypot(x0, x1, ...)         | g * x_k / ans for each (at 0: 0.5 each of two, as jnp.hypot) |
| log(x, base)               | g / (x * log(base)), -g * ans / (base * log(base))           |
| exp2(x), cbrt(x)           | g * ans * log(2), g / (3 * ans^2)                            |
| asinh, acosh, atanh        | g / sqrt(x^2 + 1), g / sqrt(x^2 - 1), g / (1 - x^2)          |
| degrees(x), radians(x)     | g * 180 / pi, g * pi / 180                                   |
| fmod(x, y), remainder(x, y)| g, -g * trunc(x / y); g, -g * round(x / y)                   |
| ldexp(x, i)                | g * 2.0 ** i, -                                              |
| fsum([a, b, ...])          | g for each                                                   |
| prod([a, b, ...])          | g * (the product of the others) for each                     |
| statistics.fmean([a, ...]) | g / n for each                                               |
| dist([a, ...], [c, ...])   | g * (a - c) / ans, -g * (a - c) / ans, ...                   |
| fsum(v), prod(v), fmean(v) | of a vector v: np.sum's, np.prod's and np.mean's rules       |
| dist(p, q) of vectors      | sum(g * (p - q)) / ans, the same negated in q                |

fmod and remainder are not differentiable where x / y is an integer (a jump): the formula
there is that of the side the truncation or rounding picks, as JAX's does.
"""

from __future__ import annotations

import math
import statistics
from dataclasses import dataclass

from srcad.errors import SrcadError
from srcad.rules.reductions import reduction
from srcad.rules.rule_type import Rule, linear, rule
from srcad.rules.statistics import prod as numpy_prod

_LN2, _LN10 = "0.6931471805599453", "2.302585092994046"


@dataclass(frozen=True)
class Entry:
    """A function of the family and where its rule tests sample each operand (an interval of
    floats, or an int constant)."""

    function: object
    rule: Rule
    domain: tuple


POSITIVE, ANY, ABOVE_ONE, UNIT = (0.5, 3.0), (-2.0, 2.0), (1.5, 3.0), (-0.9, 0.9)

ENTRIES = [
    Entry(math.log2, rule("log2", "x", f"g / (x * {_LN2})"), (POSITIVE,)),
    Entry(math.log10, rule("log10", "x", f"g / (x * {_LN10})"), (POSITIVE,)),
    Entry(math.exp2, rule("exp2", "x", f"g * ans * {_LN2}"), (ANY,)),
    Entry(math.cbrt, rule("cbrt", "x", "g / (3.0 * ans * ans)"), (POSITIVE,)),
    Entry(math.asinh, rule("asinh", "x", "g / math.sqrt(x * x + 1.0)"), (ANY,)),
    Entry(math.acosh, rule("acosh", "x", "g / math.sqrt(x * x - 1.0)"), (ABOVE_ONE,)),
    Entry(math.atanh, rule("atanh", "x", "g / (1.0 - x * x)"), (UNIT,)),
    Entry(math.degrees, rule("degrees", "x", "g * 57.29577951308232"), (ANY,)),
    Entry(math.radians, rule("radians", "x", "g * 0.017453292519943295"), (ANY,)),
    Entry(math.fmod, rule("fmod", "x y", "g", "-g * math.trunc(x / y)"), ((2.1, 2.9), POSITIVE)),
    Entry(math.remainder, rule("remainder", "x y", "g", "-g * round(x / y)"),
          ((2.1, 2.4), (1.0, 1.05))),
    Entry(math.ldexp, rule("ldexp", "x i", "g * 2.0 ** i", None), (ANY, 3)),
]

LOG = rule("log", "x", "g / x")
LOG_BASE = rule("log", "x base", "g / (x * math.log(base))",
                "-g * ans / (base * math.log(base))")


def _numbers(name, ranks):
    if any(ranks):
        raise SrcadError(f"math.{name} of an array", construct=f"math.{name}",
                         hint=f"math.{name} takes numbers; use NumPy's function of arrays")


def log(ranks, keywords):
    """math.log(x) or math.log(x, base)."""
    _numbers("log", ranks)
    return LOG if len(ranks) == 1 else LOG_BASE


def hypot(ranks, keywords):
    """math.hypot(*coordinates): each coordinate's partial is g * x_k / ans. At the origin:
    of one coordinate abs'(0) = 1, of two 0.5 each (np.hypot's, as jnp.hypot), of more NaN
    (as jnp.linalg.norm at 0), on both backends."""
    _numbers("hypot", ranks)
    if len(ranks) == 1:
        return Rule("hypot", ("x0",), ("(g if x0 >= 0.0 else -g)",))
    xs = tuple(f"x{k}" for k in range(len(ranks)))
    at_zero = "0.5 * g" if len(ranks) == 2 else "g * math.nan"
    return Rule("hypot", xs, tuple(f"({at_zero} if ans == 0.0 else g * {x} / ans)"
                                   for x in xs))


def numba_hypot(count: int) -> str:
    """numba compiles math.hypot of any number of coordinates (more than two:
    srcad/runtime/numba_math.py)."""
    return ""


def numba_log(count: int) -> str:
    """numba compiles math.log(x) and math.log(x, base) (srcad/runtime/numba_math.py)."""
    return ""


def fsum(ranks, keywords):
    """math.fsum of a list written out: the sum's rule, one operand per item."""
    _numbers("fsum", ranks)
    return Rule("fsum", tuple(f"x{k}" for k in range(len(ranks))), ("g",) * len(ranks))


def fmean(ranks, keywords):
    """statistics.fmean of a list written out."""
    _numbers("fmean", ranks)
    n = len(ranks)
    return Rule("fmean", tuple(f"x{k}" for k in range(n)), (f"g / {float(n)!r}",) * n)


def prod(ranks, keywords):
    """math.prod of a list written out: each item's partial is the product of the others
    (no division, so a zero item is no special case)."""
    _numbers("prod", ranks)
    xs = [f"x{k}" for k in range(len(ranks))]
    partials = tuple(" * ".join(["g"] + [x for j, x in enumerate(xs) if j != k])
                     for k in range(len(xs)))
    return Rule("prod", tuple(xs), partials)


def dist(ranks, keywords):
    """math.dist(p, q) of two lists written out (operands p's items, then q's): hypot of the
    differences; at p == q the partials are NaN (0 / 0), as jnp.linalg.norm's at 0."""
    _numbers("dist", ranks)
    n = len(ranks) // 2
    if len(ranks) != 2 * n:
        raise SrcadError("math.dist of two points of different dimensions", construct="dist",
                         hint="give both points the same number of coordinates")
    partials = [f"g * (x{k} - x{n + k}) / ans" for k in range(n)]
    partials += [f"-g * (x{k} - x{n + k}) / ans" for k in range(n)]
    return Rule("dist", tuple(f"x{k}" for k in range(2 * n)), tuple(partials))


# functions numba does not compile (refused by name on the numba backend when their argument
# carries a derivative: srcad/analysis/rule_backends.py); srcad/runtime/numba_math.py gives numba
# cbrt, fmod, remainder, fsum, prod, fmean and dist
NOT_IN_NUMBA = ()
NUMBA_REFUSAL = "numba has no `{name}`; srcad differentiates it on the python backend"

# (function, select) of the calls whose operands are the items of a list written out
SEQUENCES = [(math.fsum, fsum), (math.prod, prod), (statistics.fmean, fmean),
             (math.dist, dist)]


def _vectors(name, ranks):
    if any(rank != 1 for rank in ranks):
        raise SrcadError(f"{name} of arrays of ranks {tuple(ranks)}", construct=name,
                         hint=f"{name} iterates over its argument: give it a vector, or a list "
                         "of numbers written out")


def fsum_of_array(ranks, keywords):
    """math.fsum(v) of a vector v: np.sum's rule."""
    _vectors("math.fsum", ranks)
    return reduction("sum")(ranks, {})


def prod_of_array(ranks, keywords):
    """math.prod(v) of a vector v: np.prod's rule (exact where v has zeros)."""
    _vectors("math.prod", ranks)
    return numpy_prod(ranks, {})


def fmean_of_array(ranks, keywords):
    """statistics.fmean(v) of a vector v: np.mean's rule."""
    _vectors("statistics.fmean", ranks)
    return reduction("mean")(ranks, {})


def dist_of_arrays(ranks, keywords):
    """math.dist(p, q) of two vectors: the norm of p - q (NaN where p == q, as above)."""
    _vectors("math.dist", ranks)
    return linear("dist", "x y", ("np.sum((x - y) * g) / ans", "g * (x - y) / ans"),
                  ("-np.sum((x - y) * g) / ans", "-g * (x - y) / ans"), shape="()", rank=0)


# (function, select) of the same calls on arrays (math.fsum(v) of a vector v); numba compiles
# them of lists written out, not of arrays that carry derivatives
NUMBA_ARRAY_REFUSAL = ("srcad differentiates `{name}` of an array on the python backend; on "
                       "numba, list the items (`{name}([a, b, c])`) or use the NumPy function")
ARRAY_FORMS = [(math.fsum, fsum_of_array), (math.prod, prod_of_array),
               (statistics.fmean, fmean_of_array), (math.dist, dist_of_arrays)]


def _spelled(fn) -> str:
    return f"{'statistics' if fn.__name__ == 'fmean' else 'math'}.{fn.__name__}"


def numba_refusal(fn) -> str:
    """Why numba refuses a call of the math function `fn` ("": it runs it)."""
    if fn.__name__ not in NOT_IN_NUMBA:
        return ""
    return NUMBA_REFUSAL.format(name=_spelled(fn))


def array_numba_refusal(fn) -> str:
    """Why numba refuses `fn` of an array (math.fsum(v)): the python backend runs it."""
    return numba_refusal(fn) or NUMBA_ARRAY_REFUSAL.format(name=_spelled(fn))
