"""scipy.stats' densities and distribution functions as srcad's numba runtime writes them
(srcad/runtime/stats_scalars.py: plain Python when called from Python), against SciPy's own
on grids that reach both tails, the support's edges and large shape parameters."""

import math

import numpy as np
import pytest
import scipy.stats as st

from srcad.runtime import stats_scalars as Q

RNG = np.random.default_rng(0)
XS = np.concatenate([RNG.uniform(-6.0, 6.0, 60), [0.0, 1e-10, 40.0, -40.0]])
GAMMA_XS = np.concatenate([RNG.uniform(-1.0, 30.0, 60), [0.0, 1e-8, 100.0]])
T_XS = XS[XS != 1e-10]  # SciPy's t.cdf(1e-10, 1) is 0.5: see the Cauchy test below
BETA_XS = np.concatenate([RNG.uniform(-0.2, 1.2, 60), [0.0, 1.0, 1e-9, 1.0 - 1e-9]])


def _cdf(parts):
    return lambda *a: parts(*a)[0]


def _logcdf(parts):
    return lambda *a: Q.log_of(*parts(*a))


CASES = [
    ("norm.logpdf", Q.norm_logpdf, st.norm.logpdf, XS, [(0.0, 1.0), (0.3, 2.0), (-1.0, 0.5)]),
    ("norm.cdf", Q.norm_cdf, st.norm.cdf, XS, [(0.0, 1.0), (0.3, 2.0)]),
    ("norm.logcdf", Q.norm_logcdf, st.norm.logcdf, XS, [(0.0, 1.0), (0.3, 2.0)]),
    ("t.logpdf", Q.t_logpdf, st.t.logpdf, XS, [(1.0, 0.0, 1.0), (2.5, 0.3, 2.0), (0.3, 0, 1)]),
    ("t.cdf", _cdf(Q.t_parts), st.t.cdf, T_XS, [(1.0, 0.0, 1.0), (2.5, 0.3, 2.0), (30.0, -1, 0.5),
                                              (0.3, 0.0, 1.0)]),
    ("t.logcdf", _logcdf(Q.t_parts), st.t.logcdf, T_XS, [(2.5, 0.3, 2.0), (30.0, -1.0, 0.5)]),
    ("gamma.logpdf", Q.gamma_logpdf, st.gamma.logpdf, GAMMA_XS,
     [(1.0, 0.0, 1.0), (0.5, 0.0, 1.0), (2.5, 0.3, 2.0), (200.0, 0.0, 1.0)]),
    ("gamma.cdf", _cdf(Q.gamma_parts_at), st.gamma.cdf, GAMMA_XS,
     [(1.0, 0.0, 1.0), (0.5, 0.0, 1.0), (2.5, 0.3, 2.0), (30.0, -1.0, 0.5), (200.0, 0, 1.0)]),
    ("gamma.logcdf", _logcdf(Q.gamma_parts_at), st.gamma.logcdf, GAMMA_XS,
     [(1.0, 0.0, 1.0), (2.5, 0.3, 2.0), (30.0, -1.0, 0.5)]),
    ("beta.logpdf", Q.beta_logpdf, st.beta.logpdf, BETA_XS,
     [(1.0, 1.0, 0.0, 1.0), (0.5, 0.7, 0.0, 1.0), (2.5, 3.0, 0.1, 0.8)]),
    ("beta.cdf", _cdf(Q.beta_parts_at), st.beta.cdf, BETA_XS,
     [(0.5, 0.7, 0.0, 1.0), (2.5, 3.0, 0.1, 0.8), (30.0, 2.0, 0.0, 1.0), (200.0, 300.0, 0, 1)]),
    ("beta.logcdf", _logcdf(Q.beta_parts_at), st.beta.logcdf, BETA_XS,
     [(2.5, 3.0, 0.1, 0.8), (200.0, 300.0, 0.0, 1.0)]),
]


@pytest.mark.parametrize("case", CASES, ids=[c[0] for c in CASES])
def test_agrees_with_scipy(case):
    _, ours, theirs, xs, parameters = case
    for p in parameters:
        for x in xs:
            mine, reference = ours(float(x), *map(float, p)), float(theirs(x, *p))
            if math.isinf(reference) or reference == 0.0:
                assert mine == reference, (x, p)
            else:
                assert mine == pytest.approx(reference, rel=1e-11, abs=1e-300), (x, p)


def test_t_with_one_degree_of_freedom_is_cauchy_near_its_center():
    # 1/2 + atan(y) / pi: exact where SciPy's stdtr rounds to 1/2
    for y in (1e-10, -3e-7, 2e-4):
        assert Q.t_parts(y, 1.0, 0.0, 1.0)[0] == pytest.approx(0.5 + math.atan(y) / math.pi,
                                                                rel=1e-14)


def test_the_upper_tail_of_logcdf_keeps_its_digits():
    # log(1 - q) for a tiny q: log1p(-q), not log(1.0) = 0
    assert Q.log_of(*Q.gamma_parts_at(100.0, 1.0, 0.0, 1.0)) == pytest.approx(
        st.gamma.logcdf(100.0, 1.0), rel=1e-12)
    assert Q.log_of(*Q.beta_parts_at(0.645, 200.0, 300.0, 0.0, 1.0)) == pytest.approx(
        st.beta.logcdf(0.645, 200.0, 300.0), rel=1e-10)


def test_poisson_logpmf_agrees_with_scipy():
    for k in (0.0, 1.0, 2.0, 5.0, 2.5, -1.0, 30.0):
        for mu in (0.0, 0.1, 2.5, 40.0):
            reference = st.poisson.logpmf(k, mu)
            mine = Q.poisson_logpmf(k, mu, 0.0)
            assert mine == reference or mine == pytest.approx(reference, rel=1e-13), (k, mu)


def test_invalid_parameters_give_nan_as_scipy():
    assert math.isnan(Q.norm_logpdf(0.5, 0.0, -1.0)) and np.isnan(st.norm.logpdf(0.5, 0.0, -1.0))
    assert math.isnan(Q.t_parts(0.5, 0.0, 0.0, 1.0)[0]) and np.isnan(st.t.cdf(0.5, 0.0))
    assert math.isnan(Q.gamma_logpdf(0.5, -1.0, 0.0, 1.0)) and np.isnan(st.gamma.logpdf(0.5, -1.0))
