"""numba: a loop keeping a running `min`/`max` runs it in independent lanes
(srcad/transform/numba_extremum_lanes.py), and its result has the bits of the loop as
written: NaN, zeros of both signs, ties, infinities, every remainder of the trip count."""

import math

import numpy as np
import pytest
from helpers.numba_primal import bits as _bits
from helpers.numba_primal import numba_primal as _primal
from helpers.numba_primal import numba_source as _source

import srcad
from srcad.testing import check_grads


def running_max(x):
    m = x[0]
    for i in range(1, len(x)):
        m = max(m, x[i])
    return m


def running_min_of_squares(x, c):
    m = math.inf
    for i in range(len(x)):
        d = (x[i] - c) * (x[i] - c)
        m = min(m, d)
    return m


def both_extrema(x):
    lo = x[0]
    hi = 0.0
    for i in range(len(x)):
        v = x[i]
        lo = min(lo, v)
        hi = max(hi, v)
    return lo * 3.0 + hi


def int_maximum(k):
    m = 0
    for i in range(len(k)):
        m = max(m, k[i] * 2 - 5)
    return m * 1.5


def extremum_read_in_loop(x):
    m = x[0]
    s = 0.0
    for i in range(len(x)):
        m = max(m, x[i])
        s = s + m
    return s


def value_first(x):
    m = x[0]
    for i in range(len(x)):
        m = max(x[i], m)
    return m


def carried_value(x):
    m = -math.inf
    t = 0.0
    for i in range(len(x)):
        t = t * 0.5 + x[i]
        m = max(m, t)
    return m


def writes_an_element(x, y):
    m = -math.inf
    for i in range(len(x)):
        y[i] = 2.0 * x[i]
        m = max(m, x[i])
    return m + y[0]


def log_sum_exp(x):
    a = x[0]
    for i in range(1, len(x)):
        a = max(a, x[i])
    s = 0.0
    for i in range(len(x)):
        s += math.exp(x[i] - a)
    return math.log(s) + a


def _cases():
    """Arrays whose running extrema hit every case: lengths around the lane count, NaN
    first, inside and last, zeros of both signs in different lanes, ties, infinities."""
    rng = np.random.RandomState(7)
    cases = [rng.standard_normal(n) for n in range(1, 12)]
    cases += [np.array(c) for c in (
        [np.nan, 1.0, 2.0, 3.0, 4.0, 5.0],
        [1.0, np.nan, 3.0, -2.0, 0.5, 7.0, np.nan, 2.0, 1.0],
        [0.0, -0.0, 0.0, -0.0, 0.0, -0.0, 0.0, -0.0, 0.0],
        [-0.0, 0.0, -0.0, 0.0, -0.0, 0.0, -0.0, 0.0, -0.0],
        [1.0, 2.0, -0.0, 0.0, 3.0, 4.0, 5.0, 6.0, 7.0],
        [1.0, 2.0, 0.0, -0.0, 3.0, 4.0, 5.0, 6.0, 7.0],
        [-1.0, -2.0, -3.0, -4.0, -0.0, -5.0, 0.0, -6.0, -7.0, -8.0],
        [-1.0, -2.0, -3.0, -4.0, 0.0, -5.0, -0.0, -6.0, -7.0, -8.0],
        [-3.0, 0.0, -1.0, -2.0, -0.0, -4.0, -5.0],
        [2.0, 2.0, 2.0, 2.0, 2.0, 2.0, 2.0],
        [-np.inf, -np.inf, -np.inf, -np.inf, -np.inf, -np.inf],
        [np.inf, 1.0, np.inf, -np.inf, 3.0, np.nan, -np.inf, 0.0, 2.0],
    )]
    return cases


@pytest.mark.parametrize("x", _cases(), ids=lambda x: f"n{len(x)}")
def test_running_extrema_have_the_bits_of_the_loop(x):
    # CPython runs the loop as written; Python's min/max are numba's (keep the first
    # unless the new value compares less/greater)
    for f, args in ((running_max, (x,)), (running_min_of_squares, (x, 0.25)),
                    (running_min_of_squares, (x, 0.0)), (both_extrema, (x,)),
                    (running_min_of_squares, (-x, -0.0))):
        with np.errstate(invalid="ignore"):  # inf - inf in both_extrema: NaN, as numba's
            want = f(*args)
        got = _primal(f, *args)
        assert _bits(got) == _bits(want), (f.__name__, x, got, want)


def test_zeros_of_both_signs_in_lanes_take_the_first():
    # the first zero (x[3]) is in lane 2, a zero of the other sign in lane 0 (x[5]): the
    # lanes' combined maximum has lane 0's sign, the loop's the first zero's
    x = np.array([-1.0, -1.0, -1.0, -0.0, -1.0, 0.0, -1.0, -1.0, -1.0])
    assert math.copysign(1.0, _primal(running_max, x)) == -1.0
    x[5] = -0.0
    x[3] = 0.0
    assert math.copysign(1.0, _primal(running_max, x)) == 1.0


def test_an_int_maximum_in_lanes():
    k = np.array([3, 1, 4, 1, 5, 9, 2, 6, 5, 3], dtype=np.int64)
    assert _primal(int_maximum, k) == int_maximum(k) == 19.5
    assert "zero_signs_differ" in _source(int_maximum, k)


def test_the_loops_that_run_in_lanes():
    x = np.linspace(-1.0, 1.0, 9)
    code = _source(both_extrema, x)
    assert "lo_lane_3 = min(lo_lane_3, v)" in code and "hi_lane_3 = max(hi_lane_3, v)" in code
    assert "zero_signs_differ(lo_lanes, lo_lane" in code
    assert "zero_signs_differ(hi_lanes, hi_lane" in code
    assert "a_lanes = max(max(max(a_lane, a_lane_1), a_lane_2), a_lane_3)" \
        in _source(log_sum_exp, x)


@pytest.mark.parametrize("f", [extremum_read_in_loop, value_first, carried_value])
def test_loops_whose_order_matters_run_as_written(f):
    x = np.array([0.5, -0.0, 0.0, np.nan, 3.0, 1.0, -2.0, 0.0, 4.0])
    assert "lane" not in _source(f, x)
    assert _bits(_primal(f, x)) == _bits(f(x))


def test_a_loop_writing_an_element_runs_as_written():
    x = np.linspace(-1.0, 1.0, 9)
    assert "lane" not in _source(writes_an_element, x, np.zeros(9))


def shifted_by_maximum(x, c):
    m = c[0]
    for i in range(1, len(c)):
        m = max(m, c[i])
    s = 0.0
    for i in range(len(x)):
        s += (x[i] - m) * (x[i] - m) * c[i]
    return s


@pytest.mark.slow  # numba compiles forward, vector and reverse code of two functions
def test_gradients_through_running_extrema():
    x = np.array([0.3, -1.2, 2.5, 0.7, 1.9, -0.4, 2.2, 0.1, 1.0])
    c = np.array([0.5, 1.5, 0.25, 2.0, 1.0, 0.75, 1.25, 0.5, 1.75])
    # the maximum of a constant in the derivative code runs in lanes
    assert "m_lanes" in srcad.source(shifted_by_maximum, srcad.Forward,
                                     srcad.Duplicated(x, np.ones(9)), c, backend="numba")
    check_grads(shifted_by_maximum, srcad.Duplicated(x, np.zeros(9)), c, backend="numba")
    # the derivatives of a running maximum (the reverse sweep records the step that set it:
    # srcad/transform/numba_extremum_winners.py)
    check_grads(log_sum_exp, srcad.Duplicated(x, np.zeros(9)), backend="numba")
