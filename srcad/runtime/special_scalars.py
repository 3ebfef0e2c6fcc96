"""scipy.special's functions of one float, in plain Python that numba compiles (numba has no
scipy.special): srcad/runtime/numba_special.py vectorizes them and hands them to numba as
the implementations of `scipy.special.<name>` (each is `register_jitable`: plain Python
when called from Python, compiled into the numba code that calls it). Within about 1e-13
relative of SciPy's (tests/runtime/test_special_scalars.py), with SciPy's values at poles and
outside the domain.

Well-known algorithms, no table to trust:

* digamma: the recurrence psi(x) = psi(x + 1) - 1/x up to x >= 10, then its asymptotic series
  (Bernoulli numbers); the reflection psi(1 - x) - pi / tan(pi x) below 0.
* polygamma(n, x) (n >= 1): (-1)^(n+1) n! zeta(n + 1, x), Hurwitz's zeta by Euler-Maclaurin
  summation (Cephes' `zeta`).
* erfinv, erfcinv, ndtri: a first guess (Winitzki's formula, 2e-3 relative) refined by Halley
  steps on math.erf / math.erfc, which numba has; near the tails on erfc of the exact
  complement, so no digit is lost there.
* iv(v, x), i0, i1 and their exponentially scaled forms: the power series of I_v (positive
  terms) up to |x| = 25 + v^2, the asymptotic expansion e^x / sqrt(2 pi x) sum (-1)^k a_k(v) /
  x^k beyond.
* log_ndtr: log(ndtr(x)) down to -20, the asymptotic series of Mills' ratio below, and
  log1p(-ndtr(-x)) above 0.
* digamma near its positive zero x0: its Taylor series at x0 (coefficients from zeta), so the
  error stays relative there.
"""

from __future__ import annotations

import math
from fractions import Fraction

from numba.extending import register_jitable

_EPS = 2.220446049250313e-16


def _bernoulli(count):
    """B_2, B_4, ..., B_2count (Akiyama-Tanigawa, exact)."""
    out, a = [], []
    for m in range(2 * count + 1):
        a.append(Fraction(1, m + 1))
        for j in range(m, 0, -1):
            a[j - 1] = j * (a[j - 1] - a[j])
        if m >= 2 and m % 2 == 0:
            out.append(a[0])
    return out


_B = _bernoulli(12)
# digamma's asymptotic series: psi(x) ~ log x - 1/(2x) - sum B_2k / (2k x^2k)
_PSI_SERIES = tuple(float(b / (2 * k)) for k, b in enumerate(_B[:8], start=1))
# Euler-Maclaurin's coefficients of Hurwitz's zeta: (2k)! / B_2k (Cephes' A[])
_ZETA_SERIES = tuple(float(math.factorial(2 * k) / b) for k, b in enumerate(_B, start=1))


@register_jitable
def digamma(x):
    if math.isnan(x) or x == -math.inf:
        return math.nan
    if x == math.inf:
        return math.inf
    if x == 0.0:
        return -math.copysign(math.inf, x)
    if abs(x - _ROOT) < 0.1:  # near psi's zero: its Taylor series, for the relative error
        d = (x - _ROOT) - _ROOT_LOW
        total = 0.0
        for k in range(len(_ROOT_SERIES) - 1, -1, -1):
            total = (total + _ROOT_SERIES[k]) * d
        return total
    shift = 0.0
    if x < 0.0:
        if x == math.floor(x):
            return math.nan
        shift = math.pi / math.tan(math.pi * x)  # psi(x) = psi(1 - x) - pi / tan(pi x)
        x = 1.0 - x
    while x < 10.0:
        shift += 1.0 / x
        x += 1.0
    inverse_square = 1.0 / (x * x)
    series = 0.0
    for k in range(len(_PSI_SERIES) - 1, -1, -1):
        series = (series + _PSI_SERIES[k]) * inverse_square
    return math.log(x) - 0.5 / x - series - shift


@register_jitable
def hurwitz_zeta(s, q):
    """sum over k >= 0 of (q + k)^-s, s > 1 (Cephes' zeta)."""
    if s == 1.0:
        return math.inf
    if s < 1.0 or math.isnan(s) or math.isnan(q):
        return math.nan
    if math.isinf(q):
        return 0.0 if q > 0.0 else math.inf  # SciPy's polygamma at -inf: inf
    if q <= 0.0:
        if q == math.floor(q):
            return math.inf
        if s != math.floor(s):
            return math.nan  # q^-s of a negative q
        if q < -1e7:
            return math.nan  # the sum would take -q steps up to 9: not computed
    total = math.pow(q, -s)
    a, i, b = q, 0, 0.0
    while i < 9 or a <= 9.0:
        i += 1
        a += 1.0
        b = math.pow(a, -s)
        total += b
        if abs(b / total) < _EPS:
            return total
    w = a
    total += b * w / (s - 1.0) - 0.5 * b
    factor, k = 1.0, 0.0
    for coefficient in _ZETA_SERIES:
        factor *= s + k
        b /= w
        term = factor * b / coefficient
        total += term
        if abs(term / total) < _EPS:
            break
        k += 1.0
        factor *= s + k
        b /= w
        k += 1.0
    return total


# psi's positive zero as hi + low, and psi's Taylor coefficients there: psi^(k)(x0) / k! =
# (-1)^(k+1) zeta(k + 1, x0)
_ROOT, _ROOT_LOW = 1.4616321449683622, 9.549995429965697e-17
_ROOT_SERIES = tuple((-1.0) ** (k + 1) * hurwitz_zeta(k + 1.0, _ROOT) for k in range(1, 19))


@register_jitable
def polygamma(n, x):
    if n == 0.0:
        return digamma(x)
    if n != math.floor(n) or n < 0.0:
        return math.nan
    sign = 1.0 if int(n) % 2 == 1 else -1.0
    return sign * math.gamma(n + 1.0) * hurwitz_zeta(n + 1.0, x)


@register_jitable
def loggamma(x):
    """scipy.special.loggamma of a real x: log(gamma(x)) for x >= 0, nan below."""
    if x < 0.0 or math.isnan(x) or x == -math.inf:
        return math.nan
    return _lgamma(x)


@register_jitable
def _log(x):
    """math.log with numba's values where Python's raises: -inf at 0, nan below."""
    if x == 0.0:
        return -math.inf
    return math.nan if x < 0.0 else math.log(x)


@register_jitable
def _lgamma(x):
    """math.lgamma with numba's value at the poles (inf) where Python's raises."""
    if _is_pole(x):
        return math.inf
    return math.lgamma(x)


@register_jitable
def _is_pole(a):
    """A pole of gamma: 0, a negative integer, -inf."""
    return a == -math.inf or (a <= 0.0 and a == math.floor(a))


@register_jitable
def _betaln_plain(a, b):
    return math.lgamma(a) + math.lgamma(b) - _lgamma(a + b)


@register_jitable
def _beta_plain(a, b):
    """beta of a and b that are not poles of gamma (nor infinite)."""
    if a > 0.0 and b > 0.0 and a + b >= 170.0:
        return math.exp(_betaln_plain(a, b))
    if _is_pole(a + b):
        return 0.0
    return math.gamma(a) * math.gamma(b) / math.gamma(a + b)


@register_jitable
def _beta_edge(a, b):
    """beta at a pole a of gamma (Cephes' beta_negint): +-beta(1 - a - b, b) for an integer
    b with 1 - a - b > 0 (infinite when b is a pole too), else inf. (No recursion: numba
    compiles none.)"""
    if not math.isinf(a) and not math.isinf(b) and not math.isnan(b) and b == math.floor(b) \
            and 1.0 - a - b > 0.0:
        sign = 1.0 if int(b) % 2 == 0 else -1.0
        return sign * (math.inf if _is_pole(b) else _beta_plain(1.0 - a - b, b))
    return math.inf


@register_jitable
def beta(a, b):
    if _is_pole(a):
        return _beta_edge(a, b)
    if _is_pole(b):
        return _beta_edge(b, a)
    if math.isnan(a) or math.isnan(b):
        return math.nan
    if math.isinf(a) or math.isinf(b):  # +inf (-inf is a pole)
        if math.isinf(a) and math.isinf(b):
            return math.nan
        other = b if math.isinf(a) else a
        return 0.0 if other > 0.0 else math.copysign(math.inf, math.gamma(other))
    return _beta_plain(a, b)


@register_jitable
def betaln(a, b):
    if _is_pole(a) or _is_pole(b) or math.isinf(a) or math.isinf(b):
        return _log(abs(beta(a, b)))
    return _betaln_plain(a, b)


@register_jitable
def _erf_guess(log_complement):
    """Winitzki's |erfinv| from log(1 - y^2) (2e-3 relative)."""
    a = 0.147
    c = 2.0 / (math.pi * a) + 0.5 * log_complement
    return math.sqrt(math.sqrt(c * c - log_complement / a) - c)


@register_jitable
def _halley(x, residual):
    """One Halley step for erf(x) - y or erfc(x) - y (f'' = -2 x f')."""
    slope = 1.1283791670955126 * math.exp(-x * x)
    step = residual / slope
    return x - step / (1.0 + x * step)


@register_jitable
def _erfc_inverse_tail(y):
    """x >= 0 with erfc(x) = y, for 0 < y <= 0.5 (a Newton residual without cancellation)."""
    x = _erf_guess(math.log(y * (2.0 - y)))
    for _ in range(3):
        x = _halley(x, -(math.erfc(x) - y))
    return x


@register_jitable
def erfinv(y):
    if math.isnan(y) or abs(y) > 1.0:
        return math.nan
    if abs(y) == 1.0:
        return math.copysign(math.inf, y)
    if abs(y) >= 0.5:
        return math.copysign(_erfc_inverse_tail(1.0 - abs(y)), y)
    if y == 0.0:
        return y
    x = math.copysign(_erf_guess(math.log1p(-y * y)), y)
    for _ in range(3):
        x = _halley(x, math.erf(x) - y)
    return x


@register_jitable
def erfcinv(y):
    if math.isnan(y) or y < 0.0 or y > 2.0:
        return math.nan
    if y == 0.0:
        return math.inf
    if y == 2.0:
        return -math.inf
    if y <= 0.5:
        return _erfc_inverse_tail(y)
    if y >= 1.5:
        return -_erfc_inverse_tail(2.0 - y)
    return erfinv(1.0 - y)


@register_jitable
def ndtri(p):
    return -1.4142135623730951 * erfcinv(2.0 * p)


@register_jitable
def ndtr(x):
    z = x * 0.7071067811865476
    if abs(z) < 0.7071067811865476:
        return 0.5 + 0.5 * math.erf(z)
    return 0.5 * math.erfc(-z)


@register_jitable
def log_ndtr(x):
    if x > 0.0:
        return math.log1p(-ndtr(-x))
    if x > -20.0:
        return math.log(ndtr(x))
    if math.isinf(x):
        return -math.inf
    # log ndtr(x) = -x^2/2 - log(-x) - log(2 pi)/2 + log(1 - 1/x^2 + 3/x^4 - 15/x^6 ...)
    inverse_square = 1.0 / (x * x)
    series, term, k = 1.0, 1.0, 1
    while abs(term) > _EPS * abs(series):
        term *= -(2 * k - 1) * inverse_square
        series += term
        k += 1
    return -0.5 * x * x - math.log(-x) - 0.9189385332046728 + math.log(series)


@register_jitable
def expit(x):
    if x >= 0.0:
        return 1.0 / (1.0 + math.exp(-x))
    e = math.exp(x)
    return e / (1.0 + e)


@register_jitable
def logit(p):
    if p < 0.0 or p > 1.0 or math.isnan(p):
        return math.nan
    if 0.3 < p < 0.65:  # log(p / (1 - p)) near 0: log1p of the small difference
        return math.log1p((2.0 * p - 1.0) / (1.0 - p))
    if p == 1.0:
        return math.inf
    return _log(p / (1.0 - p))


@register_jitable
def xlogy(x, y):
    if x == 0.0 and not math.isnan(y):
        return 0.0
    return x * _log(y)


@register_jitable
def xlog1py(x, y):
    if x == 0.0 and not math.isnan(y):
        return 0.0
    return x * _log(1.0 + y) if y == -1.0 else \
        x * (math.log1p(y) if y > -1.0 else math.nan)


@register_jitable
def scaled_bessel_i(v, x, scaled):
    """I_v(x), times exp(-|x|) when `scaled` (scipy.special.iv, ive); v real."""
    if math.isnan(v) or math.isnan(x):
        return math.nan
    if v < 0.0 and v == math.floor(v):
        v = -v  # I_-n = I_n
    sign = 1.0
    if x < 0.0:
        if v != math.floor(v):
            return math.nan
        sign = -1.0 if int(v) % 2 == 1 else 1.0
        x = -x
    if x == 0.0:
        if v < 0.0:  # a negative order that is not an integer: SciPy's
            return math.nan if scaled else math.inf
        return sign * (1.0 if v == 0.0 else 0.0)
    if math.isinf(x):  # SciPy's: nan, but 0 for i0e and i1e
        return sign * 0.0 if scaled and (v == 0.0 or v == 1.0) else math.nan
    if x > 25.0 + v * v:  # asymptotic: e^x / sqrt(2 pi x) * sum (-1)^k a_k(v) / x^k
        mu = 4.0 * v * v
        total, term, k = 1.0, 1.0, 1
        while k < 60:
            following = -term * (mu - (2 * k - 1) ** 2) / (8.0 * k * x)
            if abs(following) >= abs(term):
                break
            term = following
            total += term
            if abs(term) < _EPS * abs(total):
                break
            k += 1
        lead = 1.0 / math.sqrt(2.0 * math.pi * x)
        if scaled:
            return sign * lead * total
        half = math.exp(0.5 * x)  # e^x as two factors: no overflow before the product does
        return sign * (lead * half * total) * half
    quarter = 0.25 * x * x
    term = math.pow(0.5 * x, v) / math.gamma(v + 1.0)
    total, k = term, 1
    while True:
        term *= quarter / (k * (k + v))
        total += term
        if abs(term) < _EPS * abs(total) or k > 500:
            break
        k += 1
    return sign * total * (math.exp(-x) if scaled else 1.0)
