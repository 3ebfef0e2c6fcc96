"""scipy.stats' densities and distribution functions of one float, in plain Python that numba
compiles (numba has no scipy.stats): srcad/runtime/numba_stats.py vectorizes them and hands
them to numba as the methods of `scipy.stats.norm`, `t`, `gamma`, `beta`, `poisson` and
`multivariate_normal`. Each is `register_jitable`: plain Python when called from Python,
compiled into the numba code that calls it.

The log-densities are the formulas of SciPy's `_logpdf` (srcad/rules/stats.py gives their
derivatives); the distribution functions are SciPy's special functions, written with
well-known algorithms:

* norm.cdf, norm.logcdf: ndtr and log_ndtr (srcad/runtime/special_scalars.py).
* gamma.cdf: the regularized lower incomplete gamma P(a, x), by its power series below
  x = a + 1 and one minus the continued fraction of Q(a, x) above (Numerical Recipes'
  `gammp`/`gammq`, Lentz's method).
* beta.cdf, t.cdf: the regularized incomplete beta I_x(a, b), by its continued fraction at x
  below (a + 1) / (a + b + 2) and the symmetry I_x(a, b) = 1 - I_(1-x)(b, a) above
  (Numerical Recipes' `betai`); t's tail below -|y| is I_w(df/2, 1/2) / 2 with
  w = df / (df + y^2), 1 - w passed as y^2 / (df + y^2), not rounded from w.
* logcdf of t, gamma and beta: each cdf comes with its complement, the smaller of the two
  computed directly: log(cdf) in the lower tail, log1p(-sf) in the upper one.

Outside the support the log-density is -inf and the density 0; a scale or shape parameter
that is not positive gives NaN, as SciPy's. Within about 1e-12 relative of SciPy's
(tests/runtime/test_numba_stats.py).
"""

from __future__ import annotations

import math

from numba.extending import register_jitable

from srcad.runtime import special_scalars as S

_LOG_SQRT_2PI = 0.9189385332046727
_EPS = 1e-16
_TINY = 1e-300
_ITERATIONS = 100000


@register_jitable
def _bad(*parameters):
    """Is any parameter NaN or not positive (SciPy's result there: NaN)?"""
    for p in parameters:
        if not p > 0.0:
            return True
    return False


# -- the incomplete gamma and beta functions -------------------------------------------------

@register_jitable
def _gamma_series(a, x):
    """P(a, x) by its series: e^-x x^a / Gamma(a + 1) sum x^n / ((a + 1) ... (a + n))."""
    term = 1.0 / a
    total = term
    ap = a
    for _ in range(_ITERATIONS):
        ap += 1.0
        term *= x / ap
        total += term
        if abs(term) < abs(total) * _EPS:
            break
    return total * math.exp(-x + a * math.log(x) - math.lgamma(a))


@register_jitable
def _lentz_step(a_n, b_n, c, d):
    """One step of the modified Lentz method for a continued fraction
    b_0 + a_1 / (b_1 + a_2 / (b_2 + ...)): the new (c, d) and the factor d * c the convergent
    is multiplied by (c and d kept off zero)."""
    d = b_n + a_n * d
    if abs(d) < _TINY:
        d = _TINY
    c = b_n + a_n / c
    if abs(c) < _TINY:
        c = _TINY
    d = 1.0 / d
    return c, d, d * c


@register_jitable
def _gamma_fraction(a, x):
    """Q(a, x) = 1 - P(a, x) by its continued fraction (modified Lentz)."""
    b = x + 1.0 - a
    c = 1.0 / _TINY
    d = 1.0 / b
    h = d
    for i in range(1, _ITERATIONS):
        b += 2.0
        c, d, step = _lentz_step(-i * (i - a), b, c, d)
        h *= step
        if abs(step - 1.0) < _EPS:
            break
    return math.exp(-x + a * math.log(x) - math.lgamma(a)) * h


@register_jitable
def gamma_parts(a, x):
    """(P(a, x), Q(a, x) = 1 - P): the regularized incomplete gamma functions
    (scipy.special.gammainc, gammaincc), the smaller one computed directly."""
    if math.isnan(a) or math.isnan(x) or a <= 0.0 or x < 0.0:
        return math.nan, math.nan
    if x == 0.0:
        return 0.0, 1.0
    if x == math.inf:
        return 1.0, 0.0
    if x < a + 1.0:
        p = _gamma_series(a, x)
        return p, 1.0 - p
    q = _gamma_fraction(a, x)
    return 1.0 - q, q


@register_jitable
def _beta_fraction(a, b, x):
    """The continued fraction of I_x(a, b) (modified Lentz)."""
    qab, qap, qam = a + b, a + 1.0, a - 1.0
    c = 1.0
    d = 1.0 - qab * x / qap
    if abs(d) < _TINY:
        d = _TINY
    d = 1.0 / d
    h = d
    for m in range(1, _ITERATIONS):
        m2 = 2.0 * m
        c, d, step = _lentz_step(m * (b - m) * x / ((qam + m2) * (a + m2)), 1.0, c, d)
        h *= step
        c, d, step = _lentz_step(-(a + m) * (qab + m) * x / ((a + m2) * (qap + m2)), 1.0, c, d)
        h *= step
        if abs(step - 1.0) < _EPS:
            break
    return h


@register_jitable
def beta_parts(a, b, x, xc):
    """(I_x(a, b), 1 - I_x(a, b)): the regularized incomplete beta function
    (scipy.special.betainc) and its complement, the smaller one computed directly; `xc` is
    1 - x, given as precisely as the caller has it."""
    if math.isnan(a) or math.isnan(b) or math.isnan(x) or a <= 0.0 or b <= 0.0 \
            or x < 0.0 or x > 1.0:
        return math.nan, math.nan
    if x == 0.0 or xc == 0.0:
        return 1.0 - xc, xc
    front = math.exp(a * math.log(x) + b * math.log(xc) - S.betaln(a, b))
    if x < (a + 1.0) / (a + b + 2.0):
        i = front * _beta_fraction(a, b, x) / a
        return i, 1.0 - i
    complement = front * _beta_fraction(b, a, xc) / b
    return 1.0 - complement, complement


@register_jitable
def log_of(p, q):
    """log(p) of a probability p = 1 - q, precise in both tails."""
    if p == 0.0:
        return -math.inf
    return math.log(p) if p < 0.5 else math.log1p(-q)


# -- the distributions: (x, shape parameters..., loc, scale) ---------------------------------

@register_jitable
def norm_logpdf(x, loc, scale):
    if _bad(scale):
        return math.nan
    y = (x - loc) / scale
    return -0.5 * y * y - _LOG_SQRT_2PI - math.log(scale)


@register_jitable
def norm_cdf(x, loc, scale):
    return math.nan if _bad(scale) else S.ndtr((x - loc) / scale)


@register_jitable
def norm_logcdf(x, loc, scale):
    return math.nan if _bad(scale) else S.log_ndtr((x - loc) / scale)


@register_jitable
def t_logpdf(x, df, loc, scale):
    if _bad(df, scale):
        return math.nan
    y = (x - loc) / scale
    return (math.lgamma(0.5 * (df + 1.0)) - math.lgamma(0.5 * df) - 0.5 * math.log(df * math.pi)
            - 0.5 * (df + 1.0) * math.log1p(y * y / df) - math.log(scale))


@register_jitable
def t_parts(x, df, loc, scale):
    """(cdf, sf) of Student's t: the tail below -|y| is I_w(df/2, 1/2) / 2 with
    w = df / (df + y^2) and 1 - w = y^2 / (df + y^2) (each computed directly)."""
    if _bad(df, scale):
        return math.nan, math.nan
    y = (x - loc) / scale
    if math.isinf(y):
        return (1.0, 0.0) if y > 0.0 else (0.0, 1.0)
    tail = 0.5 * beta_parts(0.5 * df, 0.5, df / (df + y * y), y * y / (df + y * y))[0]
    return (1.0 - tail, tail) if y > 0.0 else (tail, 1.0 - tail)


@register_jitable
def gamma_logpdf(x, a, loc, scale):
    if _bad(a, scale):
        return math.nan
    y = (x - loc) / scale
    if y < 0.0:
        return -math.inf
    return S.xlogy(a - 1.0, y) - y - math.lgamma(a) - math.log(scale)


@register_jitable
def gamma_parts_at(x, a, loc, scale):
    """(cdf, sf) of the gamma distribution."""
    if _bad(a, scale):
        return math.nan, math.nan
    y = (x - loc) / scale
    return (0.0, 1.0) if y <= 0.0 else gamma_parts(a, y)


@register_jitable
def beta_logpdf(x, a, b, loc, scale):
    if _bad(a, b, scale):
        return math.nan
    y = (x - loc) / scale
    if y < 0.0 or y > 1.0:
        return -math.inf
    return S.xlog1py(b - 1.0, -y) + S.xlogy(a - 1.0, y) - S.betaln(a, b) - math.log(scale)


@register_jitable
def beta_parts_at(x, a, b, loc, scale):
    """(cdf, sf) of the beta distribution."""
    if _bad(a, b, scale):
        return math.nan, math.nan
    y = (x - loc) / scale
    if y <= 0.0:
        return 0.0, 1.0
    return (1.0, 0.0) if y >= 1.0 else beta_parts(a, b, y, 1.0 - y)


@register_jitable
def poisson_logpmf(k, mu, loc):
    if math.isnan(mu) or mu < 0.0:
        return math.nan
    k = k - loc
    if k < 0.0 or k != math.floor(k):
        return -math.inf
    return S.xlogy(k, mu) - math.lgamma(k + 1.0) - mu
