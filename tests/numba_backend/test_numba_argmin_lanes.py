"""numba: a running minimum (maximum) with the index of the step that set it runs in lanes
(srcad/transform/numba_argmin_lanes.py) with the bits of the loop as written: ties to the
first step, NaN never taken, -0.0 after +0.0 not taken, infinities, starts of every kind,
every length from 0 to 13; the loops it leaves as written; derivatives through it."""

import math

import numpy as np
import pytest
from helpers.numba_primal import bits as _bits
from helpers.numba_primal import numba_primal as _primal
from helpers.numba_primal import numba_source as _source

import srcad


def nearest_index(x, start):
    m = start
    w = -1
    for j in range(len(x)):
        if x[j] < m:
            w = j
        m = min(m, x[j])
    return w + 0.0


def nearest_value(x, start):
    m = start
    w = -1
    for j in range(len(x)):
        if x[j] < m:
            w = j  # noqa: F841 (the index the rewrite keeps, unread here)
        m = min(m, x[j])
    return m


def farthest_from(x, a):
    # a temporary per step, a start of 1, `max` with `>`: the value and index in one number
    m = -math.inf
    w = 0
    for j in range(1, len(x)):
        d = (x[j] - a) * (x[j] - a)
        if d > m:
            w = j
        m = max(m, d)
    return m + 1000.0 * w


def index_read_in_loop(x, start):
    m = start
    w = -1
    s = 0.0
    for j in range(len(x)):
        s = s + w
        if x[j] < m:
            w = j
        m = min(m, x[j])
    return s + w


def _cases():
    rng = np.random.RandomState(3)
    cases = [np.array([]), np.array([2.0]), np.array([1.0, 1.0, 1.0, 1.0, 1.0])]
    cases.append(np.array([3.0, 0.0, 5.0, 7.0, 1.0, -0.0, 9.0, 0.0, 4.0]))  # zeros in lanes 1, 1
    cases.append(np.array([3.0, 5.0, -0.0, 7.0, 1.0, 0.0, 9.0, 2.0, -0.0, 4.0]))
    cases.append(np.array([math.nan, 2.0, 1.0, math.nan, 1.0, 0.5, math.nan, 0.5, 0.5]))
    cases.append(np.array([math.inf, -math.inf, 1.0, -math.inf, 2.0, 3.0]))
    cases.append(np.array([4.0, 3.0, 2.0, 1.0, 1.0, 2.0, 3.0, 1.0, 0.5, 0.5, 0.5, 0.5, 0.5]))
    for n in range(1, 14):
        cases.append(rng.choice([0.0, -0.0, 1.0, 2.0, math.nan, math.inf], n))
    return cases


@pytest.mark.parametrize("x", _cases(), ids=lambda x: f"n{len(x)}")
def test_the_lanes_have_the_bits_of_the_loop(x):
    with np.errstate(invalid="ignore"):
        for start in (math.inf, -math.inf, math.nan, 0.0, -0.0, 1.0):
            for f in (nearest_index, nearest_value):
                assert _bits(_primal(f, x, start)) == _bits(f(x, start)), (f.__name__, start)
        for a in (0.0, 1.0, -0.0):
            assert _bits(_primal(farthest_from, x, a)) == _bits(farthest_from(x, a))


def test_the_loops_in_lanes_and_those_left():
    x = np.arange(9.0)
    for f in (nearest_index, nearest_value, farthest_from):
        assert "numba_argmin_lanes" in _source(f, x, 0.5), f.__name__
    # the index read by another statement of the loop: left as written
    assert "numba_argmin_lanes" not in _source(index_read_in_loop, x, 0.5)
    assert _primal(index_read_in_loop, x[::-1].copy(), 4.5) == index_read_in_loop(x[::-1], 4.5)


@pytest.mark.slow  # numba compiles the reverse and forward code (the fast set's kmeans
# gradients, tests/arrays/test_row_view_loops.py, run the lanes too)
def test_derivatives_through_the_lanes():
    # the value's derivative reaches the first nearest element only, in both modes
    x = np.array([3.0, 1.0, 2.0, 1.0, 5.0, 0.5, 7.0, 0.5, 4.0, 6.0])
    rev = srcad.gradient(nearest_value, x, srcad.Constant(9.0), backend="numba")
    fwd = np.array([srcad.autodiff(srcad.Forward, nearest_value,
                                   srcad.Duplicated(x, np.eye(len(x))[i]), srcad.Const(9.0),
                                   backend="numba") for i in range(len(x))])
    want = np.zeros_like(x)
    want[5] = 1.0
    np.testing.assert_array_equal(rev, want)
    np.testing.assert_array_equal(fwd, want)
    eps = 1e-6
    y = x + np.linspace(0.0, 0.01, len(x))  # no ties: central differences apply
    central = np.array([(nearest_value(y + eps * e, 9.0) - nearest_value(y - eps * e, 9.0))
                        / (2 * eps) for e in np.eye(len(y))])
    np.testing.assert_allclose(srcad.gradient(nearest_value, y, srcad.Constant(9.0),
                                              backend="numba"), central, atol=1e-9)
