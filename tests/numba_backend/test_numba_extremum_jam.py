"""numba: a running `min`/`max` of values an inner loop computes runs in lanes whose inner
loops are one loop (srcad/transform/numba_extremum_jam.py), with the bits of the loop as
written: ties, NaN, zeros of both signs, every remainder of the row count."""

import math

import numpy as np
import pytest
from helpers.numba_primal import bits as _bits
from helpers.numba_primal import numba_primal as _primal
from helpers.numba_primal import numba_source as _source


def squared_distance(a, b):
    dist = 0.0
    for i in range(len(a)):
        dist += (a[i] - b[i]) * (a[i] - b[i])
    return dist


def nearest_sum(c, p):
    cost = 0.0
    for i in range(p.shape[0]):
        closest = math.inf
        for j in range(c.shape[0]):
            closest = min(closest, squared_distance(p[i], c[j]))
        cost += closest
    return cost


def largest_signed_product(c, p):
    best = c[0, 0]
    for j in range(1, c.shape[0]):
        b = c[j]
        s = -0.0
        for t in range(len(p)):
            s += b[t] * p[t]
        best = max(best, s)
    return best


def ragged(c, p):
    best = math.inf
    for j in range(c.shape[0]):
        s = 0.0
        for t in range(j):
            s += c[j, t] * p[t]
        best = min(best, s)
    return best


def distance_read_after(c, p):
    best = math.inf
    s = 0.0
    for j in range(c.shape[0]):
        s = 0.0
        for t in range(len(p)):
            s += (c[j, t] - p[t]) ** 2
        best = min(best, s)
    return best + s


def _cases():
    rng = np.random.RandomState(3)
    cases = []
    for k in range(1, 11):  # every remainder of the lane count
        c = rng.standard_normal((k, 3))
        if k > 4:
            c[k - 1] = c[1]  # a tie across lanes
        cases.append(c)
    c = rng.standard_normal((9, 3))
    c[2, 1] = np.nan  # a NaN value, never taken
    cases.append(c)
    c = rng.standard_normal((9, 3))
    c[0, 0] = np.nan  # a NaN start (largest_signed_product) and a NaN row first
    cases.append(c)
    zeros = np.zeros((9, 3))
    zeros[[1, 3, 6]] = -0.0  # products of both signs of zero
    cases.append(zeros)
    cases.append(-zeros)
    c = rng.standard_normal((9, 3))
    c[4] = np.inf
    cases.append(c)
    return cases


@pytest.mark.parametrize("c", _cases(), ids=lambda c: f"k{len(c)}")
def test_jammed_extrema_have_the_bits_of_the_loop(c):
    p = np.array([[0.5, -1.0, 0.25], [0.0, 0.0, 0.0], [-0.0, 2.0, -0.5]])
    with np.errstate(invalid="ignore"):
        for f, args in ((nearest_sum, (c, p)), (largest_signed_product, (c, p[2])),
                        (largest_signed_product, (c, p[1])),
                        (largest_signed_product, (-c, p[0]))):
            want = f(*args)
            got = _primal(f, *args)
            assert _bits(got) == _bits(want), (f.__name__, c, got, want)


def test_the_loops_that_jam():
    c, p = np.ones((6, 3)), np.ones((4, 3))
    # (nearest_sum's points in lanes: srcad/transform/numba_row_lanes.py)
    assert "numba_row_lanes" in _source(nearest_sum, c, p)
    assert "numba_extremum_jam" in _source(largest_signed_product, c, p[0])
    # an inner loop whose length depends on the row, a distance read after the loop
    assert "numba_extremum_jam" not in _source(ragged, c, p[0])
    assert "numba_extremum_jam" not in _source(distance_read_after, c, p[0])
    assert "zero_signs_differ" not in _source(distance_read_after, c, p[0])
    x, y = np.arange(36.0).reshape(6, 6) - 7.0, np.linspace(-1.0, 1.0, 6)
    for f in (ragged, distance_read_after):
        assert _bits(_primal(f, x, y)) == _bits(f(x, y))


def test_zeros_of_both_signs_in_jammed_lanes_take_the_first():
    # the largest value, a zero, is first -0.0 (row 4, lane 3) then +0.0 (row 6, lane 1):
    # the lanes combined in their order would give lane 1's +0.0
    c = -np.ones((9, 2))
    c[4] = [-0.0, -0.0]
    c[6] = [0.0, 0.0]
    p = np.array([1.0, 1.0])
    assert _bits(_primal(largest_signed_product, c, p)) \
        == _bits(largest_signed_product(c, p)) == _bits(-0.0)


def maximum_from_a_chosen_start(x, flag):
    m = -math.inf
    for i in range(1 if flag > 0.0 else 2, len(x)):
        m = max(m, x[i])
    return m


def nearest_from_a_chosen_start(c, p, flag):
    best = math.inf
    for j in range(1 if flag > 0.0 else 2, c.shape[0]):
        s = 0.0
        for t in range(len(p)):
            s += (c[j, t] - p[t]) ** 2
        best = min(best, s)
    return best


def test_a_start_that_is_an_expression_bounds_the_blocks():
    # the blocks end at (start) + full: `1 if flag > 0.0 else 2 + full` ran no block for a
    # positive flag (the iterations all ran in the remainder loop)
    x = np.linspace(-1.0, 1.0, 11)[::-1].copy()
    c, p = np.arange(33.0).reshape(11, 3) / 7.0, np.array([0.5, 1.0, 2.0])
    assert "(1 if flag > 0.0 else 2) + i_full" in _source(maximum_from_a_chosen_start, x, 1.0)
    assert "(1 if flag > 0.0 else 2) + j_full" in _source(nearest_from_a_chosen_start, c, p,
                                                          1.0)
    for flag in (1.0, -1.0):
        assert _bits(_primal(maximum_from_a_chosen_start, x, flag)) \
            == _bits(maximum_from_a_chosen_start(x, flag))
        assert _bits(_primal(nearest_from_a_chosen_start, c, p, flag)) \
            == _bits(nearest_from_a_chosen_start(c, p, flag))
