"""srcad's scalar scipy.special algorithms (srcad/runtime/special_scalars.py, what the numba
backend compiles) agree with SciPy's to 1e-12 relative on random points of each domain and
give SciPy's value at poles, infinities and outside the domain. Run here as plain Python (the
same code numba compiles: tests/rules/test_special_numba.py runs them compiled)."""

import math

import numpy as np
import pytest
import scipy.special

from srcad.runtime import special_scalars as S

RNG = np.random.default_rng(7)


def _uniform(a, b, n=400):
    return list(RNG.uniform(a, b, n))


EDGES = [0.0, -0.0, -1.0, -2.0, -2.5, 1.0, 2.0, math.inf, -math.inf, math.nan]
# name: (srcad's scalar, SciPy's, sample points: values of x, or (x, y) pairs)
ONE = {
    "digamma": (S.digamma, _uniform(1e-3, 60) + _uniform(-8, 0) + _uniform(1.36, 1.56)
                + _uniform(60, 1e6, 50)),
    "loggamma": (S.loggamma, _uniform(1e-3, 60)),
    "erfinv": (S.erfinv, _uniform(-1, 1) + _uniform(-1e-4, 1e-4) + [1 - 1e-15, -1 + 1e-12]),
    "erfcinv": (S.erfcinv, _uniform(0, 2) + [10.0 ** -k for k in range(1, 300, 9)]
                + [2 - 1e-12]),
    "ndtri": (S.ndtri, _uniform(0, 1) + [1e-300, 1e-20, 1 - 1e-12, 0.5]),
    "ndtr": (S.ndtr, _uniform(-30, 10)),
    "log_ndtr": (S.log_ndtr, _uniform(-60, 30) + _uniform(-21, -19) + _uniform(-1, 8)),
    "expit": (S.expit, _uniform(-700, 700) + _uniform(-3, 3)),
    "logit": (S.logit, _uniform(0, 1)),
}
TWO = {
    "polygamma": (S.polygamma, [(n, x) for n in (1.0, 2.0, 3.0) for x in _uniform(0.01, 30, 200)
                                + _uniform(-5, 0, 100)]),
    "beta": (S.beta, list(zip(_uniform(0.05, 12), _uniform(0.05, 12)))
             + list(zip(_uniform(-4, 4), _uniform(-4, 4)))),
    "betaln": (S.betaln, list(zip(_uniform(0.05, 12), _uniform(0.05, 12)))),
    "xlogy": (S.xlogy, list(zip(_uniform(-3, 3), _uniform(-1, 3)))),
    "xlog1py": (S.xlog1py, list(zip(_uniform(-3, 3), _uniform(-2, 3)))),
    "iv": (lambda v, x: S.scaled_bessel_i(v, x, False),
           [(v, x) for v in (0.0, 1.0, 2.0, 2.5, 5.0, -1.5) for x in _uniform(-40, 40, 100)
            + _uniform(0, 700, 30) + EDGES]),
    # (SciPy's ive is nan at infinities, its i0e and i1e 0: srcad's i0e and i1e are theirs)
    "ive": (lambda v, x: S.scaled_bessel_i(v, x, True),
            [(v, x) for v in (0.0, 1.0, 2.0, 2.5, 5.0, -1.5) for x in _uniform(-40, 40, 100)
             + _uniform(0, 3000, 30) + EDGES if v not in (0.0, 1.0) or not math.isinf(x)]),
}
for _order, _name in ((0.0, "i0"), (1.0, "i1")):  # the public names, through iv and ive
    ONE[_name] = (lambda x, v=_order: S.scaled_bessel_i(v, x, False), _uniform(-40, 700))
    ONE[_name + "e"] = (lambda x, v=_order: S.scaled_bessel_i(v, x, True),
                        _uniform(-40, 3000))


_ORDERED = ("polygamma", "iv", "ive")  # an order first: edges of the second argument only


def _agree(got, expected, rtol=1e-12, atol=1e-13):
    if math.isnan(expected):
        return math.isnan(got)
    if math.isinf(expected):
        return got == expected
    return abs(got - expected) <= rtol * abs(expected) + atol


def _disagreements(mine, reference, points):
    return [(p, mine(*p), float(reference(*p))) for p in points
            if not _agree(mine(*p), float(reference(*p)))]


@pytest.mark.parametrize("name", sorted(ONE))
def test_one_argument_functions_agree_with_scipy(name):
    mine, points = ONE[name]
    assert _disagreements(mine, getattr(scipy.special, name),
                          [(x,) for x in points + EDGES]) == []


@pytest.mark.parametrize("name", sorted(TWO))
def test_two_argument_functions_agree_with_scipy(name):
    mine, points = TWO[name]
    edges = [(a, b) for a in EDGES for b in EDGES] if name not in _ORDERED else \
        [(n, x) for n in (1.0, 2.0) for x in EDGES] if name == "polygamma" else []
    assert _disagreements(mine, getattr(scipy.special, name), points + edges) == []


def test_digamma_keeps_its_relative_error_at_its_positive_zero():
    x0 = 1.4616321449683622
    for x in (x0, np.nextafter(x0, 2.0), x0 + 1e-9, x0 - 1e-6):
        assert _agree(S.digamma(x), float(scipy.special.digamma(x)), atol=0.0)


def test_polygamma_far_left_of_zero_ends():
    """A negative non-integer x sums up to 9 one step at a time: beyond -1e7 srcad gives NaN
    (SciPy takes -x steps), at once, rather than running that long."""
    assert math.isnan(S.polygamma(1.0, -1e12 - 0.5))
    assert S.polygamma(1.0, -1e20) == math.inf  # an integer: a pole
