"""scipy.special: one entry per function, its partial applied to the seed g (the same formula
serves tangents and adjoints), vectorized: the formula of an array is the formula of a float.

| primitive               | partial applied to seed g                              |
|-------------------------|--------------------------------------------------------|
| gammaln(x), loggamma(x) | g * digamma(x)                                         |
| gamma(x)                | g * ans * digamma(x)                                   |
| digamma(x) (psi)       | g * polygamma(1, x)                                    |
| polygamma(n, x)         | -, g * polygamma(n + 1, x)                             |
| beta(a, b)              | g * ans * (digamma(a) - digamma(a + b)), the same in b |
| betaln(a, b)            | g * (digamma(a) - digamma(a + b)), the same in b       |
| erf(x), erfc(x)         | +-g * 2 / sqrt(pi) * exp(-x^2)                         |
| erfinv(x), erfcinv(x)   | +-g * sqrt(pi) / 2 * exp(ans^2)                        |
| expit(x)                | g * ans * (1 - ans)                                    |
| logit(x)                | g / (x * (1 - x))                                      |
| xlogy(x, y)             | g * log(y), g * x / y                                  |
| xlog1py(x, y)           | g * log1p(y), g * x / (1 + y)                          |
| ndtr(x)                 | g * exp(-x^2 / 2) / sqrt(2 pi)                         |
| log_ndtr(x)             | g * exp(-x^2 / 2 - ans) / sqrt(2 pi)                   |
| ndtri(x)                | g * sqrt(2 pi) * exp(ans^2 / 2)                        |
| i0(x), i0e(x)           | g * i1(x); g * (i1e(x) - sign(x) * ans)                |
| i1(x), i1e(x)           | g * (i0(x) + iv(2, x)) / 2; the same scaled, - sign(x) * ans |
| iv(v, x), ive(v, x)     | -, g * (iv(v-1, x) + iv(v+1, x)) / 2; ive: scaled, - sign(x) * ans |
| multigammaln(a, d)      | g * sum of digamma(a - j / 2), j = 0 .. d - 1; -       |

At a point where a function is not differentiable the formula gives JAX's answer:
i0e, i1e and ive at 0 take sign(0) = 0 (as jax.scipy.special does); xlogy(0, y) and
xlog1py(0, y) have the partial log(y) in x (-inf at y = 0, as JAX).

logsumexp (axis=, b=, keepdims=), softmax and log_softmax (axis=) are not elementwise: their
rules are made for the operand's rank and axes (`logsumexp`, `softmax`, `log_softmax`).

numba has no scipy.special: srcad/runtime/numba_special.py gives numba each of these and what
their formulas call (a call on constants runs SciPy's before the compiled code).
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import scipy.special

from srcad.errors import SrcadError
from srcad.rules.reductions import _axes, _expanded, _result_shape, _spelled
from srcad.rules.rule_type import Rule, linear, rule

_SQRT_PI_2 = "0.886226925452758"  # sqrt(pi) / 2
_TWO_SQRT_PI = "1.1283791670955126"  # 2 / sqrt(pi)
_INV_SQRT_2PI = "0.3989422804014327"
_SQRT_2PI = "2.5066282746310002"
_S = "scipy.special."


@dataclass(frozen=True)
class Entry:
    """A function of the family: its rule and where its rule tests sample each operand
    (an interval of floats, or an int constant)."""

    function: object
    rule: Rule
    domain: tuple
    # (operand, reason): an operand with no derivative here that is not piecewise constant
    # (the order of a Bessel function): refused where it carries one, not taken as 0
    refused: tuple = ()


def _entry(name, operands, *partials, domain, refused=()):
    return Entry(getattr(scipy.special, name), rule(name, operands, *partials), domain,
                 refused)


def _order_refused(name):
    return (("v", f"srcad has no derivative of scipy.special.{name} in its order v"),)


POSITIVE, UNIT, ANY = (0.5, 3.0), (0.1, 0.9), (-2.0, 2.0)

ENTRIES = [
    _entry("gammaln", "x", f"g * {_S}digamma(x)", domain=(POSITIVE,)),
    _entry("loggamma", "x", f"g * {_S}digamma(x)", domain=(POSITIVE,)),
    _entry("gamma", "x", f"g * ans * {_S}digamma(x)", domain=(POSITIVE,)),
    _entry("digamma", "x", f"g * {_S}polygamma(1, x)", domain=(POSITIVE,)),
    _entry("polygamma", "n x", None, f"g * {_S}polygamma(n + 1, x)", domain=(2, POSITIVE)),
    _entry("beta", "a b", f"g * ans * ({_S}digamma(a) - {_S}digamma(a + b))",
           f"g * ans * ({_S}digamma(b) - {_S}digamma(a + b))", domain=(POSITIVE, POSITIVE)),
    _entry("betaln", "a b", f"g * ({_S}digamma(a) - {_S}digamma(a + b))",
           f"g * ({_S}digamma(b) - {_S}digamma(a + b))", domain=(POSITIVE, POSITIVE)),
    _entry("erf", "x", f"g * {_TWO_SQRT_PI} * np.exp(-x * x)", domain=(ANY,)),
    _entry("erfc", "x", f"-g * {_TWO_SQRT_PI} * np.exp(-x * x)", domain=(ANY,)),
    _entry("erfinv", "x", f"g * {_SQRT_PI_2} * np.exp(ans * ans)", domain=((-0.9, 0.9),)),
    _entry("erfcinv", "x", f"-g * {_SQRT_PI_2} * np.exp(ans * ans)", domain=((0.1, 1.9),)),
    _entry("expit", "x", "g * ans * (1.0 - ans)", domain=(ANY,)),
    _entry("logit", "x", "g / (x * (1.0 - x))", domain=(UNIT,)),
    _entry("xlogy", "x y", "g * np.log(y)", "g * x / y", domain=(ANY, POSITIVE)),
    _entry("xlog1py", "x y", "g * np.log1p(y)", "g * x / (1.0 + y)",
           domain=(ANY, (-0.5, 2.0))),
    _entry("ndtr", "x", f"g * {_INV_SQRT_2PI} * np.exp(-0.5 * x * x)", domain=(ANY,)),
    _entry("log_ndtr", "x", f"g * {_INV_SQRT_2PI} * np.exp(-0.5 * x * x - ans)",
           domain=((-6.0, 3.0),)),
    _entry("ndtri", "x", f"g * {_SQRT_2PI} * np.exp(0.5 * ans * ans)", domain=(UNIT,)),
    _entry("i0", "x", f"g * {_S}i1(x)", domain=(ANY,)),
    _entry("i0e", "x", f"g * ({_S}i1e(x) - np.sign(x) * ans)", domain=(ANY,)),
    _entry("i1", "x", f"g * 0.5 * ({_S}i0(x) + {_S}iv(2, x))", domain=(ANY,)),
    _entry("i1e", "x", f"g * (0.5 * ({_S}i0e(x) + {_S}ive(2, x)) - np.sign(x) * ans)",
           domain=(ANY,)),
    # the order v is a constant (refused where it carries a derivative); I_v' = (I_(v-1) +
    # I_(v+1)) / 2
    _entry("iv", "v x", None, f"g * 0.5 * ({_S}iv(v - 1.0, x) + {_S}iv(v + 1.0, x))",
           domain=(2, ANY), refused=_order_refused("iv")),
    _entry("ive", "v x", None,
           f"g * (0.5 * ({_S}ive(v - 1.0, x) + {_S}ive(v + 1.0, x)) - np.sign(x) * ans)",
           domain=(3, ANY), refused=_order_refused("ive")),
    # log of the multivariate gamma function: a constant plus gammaln(a - j / 2) summed over
    # j < d (d an int constant); a's values broadcast against the d terms on a last axis
    _entry("multigammaln", "a d", f"g * np.sum({_S}digamma(np.expand_dims(a, -1) - 0.5 * "
           "np.arange(d)), axis=-1)", None, domain=((2.0, 4.0), 3)),
]

# on the python backend only (numba has no implementation of them: refused there by name);
# none today
PYTHON_ENTRIES: list = []


def softmax(ranks, keywords):
    """scipy.special.softmax(x, axis=None): its Jacobian diag(s) - s s^T is symmetric, so
    tangent and adjoint are one formula."""
    axis = keywords.get("axis")
    if ranks[0] == 0:
        return linear("softmax", "x", ("0.0 * g", "0.0 * g"), shape="x_shape", rank=0)
    _axes(axis, ranks[0])
    keep = _spelled(axis, True)
    formula = f"ans * (g - np.sum(ans * g{keep}))"
    return linear("softmax", "x", (formula, formula), shape="x_shape", rank=ranks[0])


def log_softmax(ranks, keywords):
    """scipy.special.log_softmax(x, axis=None): x - logsumexp(x) with the axis kept."""
    axis = keywords.get("axis")
    if ranks[0] == 0:
        return linear("log_softmax", "x", ("0.0 * g", "0.0 * g"), shape="x_shape", rank=0)
    _axes(axis, ranks[0])
    keep = _spelled(axis, True)
    return linear("log_softmax", "x", (f"g - np.sum(np.exp(ans) * g{keep})",
                                       f"g - np.exp(ans) * np.sum(g{keep})"),
                  shape="x_shape", rank=ranks[0])


def logsumexp(ranks, keywords):
    """scipy.special.logsumexp(a, axis=None, b=None, keepdims=False): the weights
    b * exp(a - ans) (with the reduced axes back) are its partials in a; exp(a - ans) in b."""
    if keywords.get("return_sign"):
        raise SrcadError("logsumexp with return_sign=True", construct="logsumexp",
                         hint="srcad differentiates logsumexp's value; leave return_sign out")
    rank = ranks[0]
    axis, keepdims = keywords.get("axis"), bool(keywords.get("keepdims", False))
    weighted = "b" in keywords  # b= is an operand (srcad/analysis/primitives.py)
    operands = "x b" if weighted else "x"
    if rank == 0 and not weighted:
        return linear("logsumexp", "x", ("g", "g"), shape="x_shape", rank=0)
    if weighted and len(ranks) > 1 and ranks[1] > rank:
        raise SrcadError("logsumexp with b= of a higher rank than a", construct="logsumexp",
                         hint="broadcast a to b's shape first")
    axes = _axes(axis, rank)
    spelled = _spelled(axis, keepdims)
    exp = f"np.exp(x - {_expanded('ans', axes, axis, keepdims)})"
    weight = f"b * {exp}" if weighted else exp
    seed = _expanded("g", axes, axis, keepdims)
    shape, result_rank = _result_shape(rank, axes, keepdims)
    pairs = [(f"np.sum({weight} * g{spelled})", f"np.broadcast_to({seed} * {weight}, x_shape)")]
    if weighted:
        pairs.append((f"np.sum({exp} * g{spelled})", f"unbroadcast({seed} * {exp}, b_shape)"))
    return linear("logsumexp", operands, *pairs, shape=shape, rank=result_rank)


# (function, select, keywords by position after the operand, keywords that are operands)
SHAPED = [(scipy.special.softmax, softmax, ("axis",), ()),
          (scipy.special.log_softmax, log_softmax, ("axis",), ()),
          (scipy.special.logsumexp, logsumexp, ("axis", "b", "keepdims", "return_sign"),
           ("b",))]

# math's functions whose derivatives are scipy.special functions (the python backend only)
MATH_ENTRIES = [
    Entry(math.lgamma, rule("lgamma", "x", f"g * {_S}digamma(x)"), (POSITIVE,)),
    Entry(math.gamma, rule("gamma", "x", f"g * ans * {_S}digamma(x)"), (POSITIVE,)),
]

