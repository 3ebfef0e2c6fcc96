"""numba: a loop over points whose body keeps a running `min`/`max` or index over the rows of
another array, of sums over the coordinates, runs with the points in lanes, 128 per block,
four coordinates per pass (srcad/transform/numba_row_lanes.py), with the bits of the nest as
written: ties, NaN, zeros of both signs, infinities, every remainder of the block and of the
coordinates; derivatives through it; the nests it leaves."""

import math

import numpy as np
import pytest
from helpers.numba_primal import bits as _bits
from helpers.numba_primal import numba_primal as _primal
from helpers.numba_primal import numba_source as _source

import srcad

TAKEN = "numba_row_lanes"


def squared_distance(a, b):
    dist = 0.0
    for i in range(len(a)):
        dist += (a[i] - b[i]) * (a[i] - b[i])
    return dist


def nearest_sum(c, p):
    n = p.shape[0]
    k = c.shape[0]
    cost = 0.0
    for i in range(n):
        closest = math.inf
        for j in range(k):
            closest = min(closest, squared_distance(p[i], c[j]))
        cost += closest
    return cost


def nearest_indices(c, p):
    # the index of each point's nearest row (ties: the first), an int in lanes, and the
    # largest half distance, a `max` from a start that depends on the point
    total = 0.0
    for i in range(len(p)):
        best = math.inf
        winner = -1
        top = 0.25 * i - 1.0
        for j in range(len(c)):
            a = p[i]
            b = c[j]
            s = -0.0
            for t in range(len(a)):
                d = a[t] - b[t]
                s += d * d
            if s < best:
                winner = j
            best = min(best, s)
            top = max(top, 0.5 * s)
        total += best * (winner + 1) - top
    return total


def closest_read_after(c, p):
    cost = 0.0
    closest = 0.0
    for i in range(p.shape[0]):
        closest = math.inf
        for j in range(c.shape[0]):
            closest = min(closest, squared_distance(p[i], c[j]))
        cost += closest
    return cost + 3.0 * closest


def scaled_nearest(x, c, p):
    return x * x * nearest_sum(c, p)


def carried_index(c, p):
    winner = 0  # not reset per point: the next point starts from the last one's
    total = 0.0
    for i in range(p.shape[0]):
        best = math.inf
        for j in range(c.shape[0]):
            s = squared_distance(p[i], c[j])
            if s < best:
                winner = j
            best = min(best, s)
        total += best + winner
    return total


def distance_read_in_the_tail(c, p):
    cost = 0.0
    for i in range(p.shape[0]):
        closest = math.inf
        s = 0.0
        for j in range(c.shape[0]):
            s = squared_distance(p[i], c[j])
            closest = min(closest, s)
        cost += closest + s
    return cost


def counter_read_in_the_tail(c, p):
    cost = 0.0
    for i in range(p.shape[0]):
        closest = math.inf
        j = 0
        for j in range(c.shape[0]):
            closest = min(closest, squared_distance(p[i], c[j]))
        cost += closest + j
    return cost


def tail_writes_the_rows(c, p):
    cost = 0.0
    for i in range(p.shape[0]):
        closest = math.inf
        for j in range(c.shape[0]):
            closest = min(closest, squared_distance(p[i], c[j]))
        cost += closest
        c[0, 0] = cost
    return cost


def tail_breaks(c, p):
    cost = 0.0
    for i in range(p.shape[0]):
        closest = math.inf
        for j in range(c.shape[0]):
            closest = min(closest, squared_distance(p[i], c[j]))
        cost += closest
        if cost > 4.0:
            break
    return cost


def start_from_the_last_point(c, p):
    cost = 0.0
    closest = math.inf
    for i in range(p.shape[0]):
        start = closest  # the previous point's value
        closest = math.inf
        for j in range(c.shape[0]):
            closest = min(closest, squared_distance(p[i], c[j]) + start)
        cost += closest
    return cost


def _cases():
    rng = np.random.RandomState(7)
    cases = []
    # points across the block of 128, coordinates across the 4 per pass, rows of 1 to 9
    for n, d, k in ((1, 1, 1), (5, 2, 3), (127, 3, 4), (128, 4, 9), (129, 5, 2),
                    (300, 8, 7), (260, 9, 5), (3, 0, 2), (0, 3, 2), (4, 3, 0)):
        p = rng.standard_normal((n, d))
        c = rng.standard_normal((k, d))
        if k > 4:
            c[k - 1] = c[1]  # a tie: the first row wins
        cases.append((c, p))
    c, p = rng.standard_normal((6, 5)), rng.standard_normal((200, 5))
    c[2, 1] = np.nan  # a NaN distance, never taken
    p[130, 0] = np.nan  # a point at NaN: its cost is inf
    cases.append((c, p))
    c, p = np.zeros((5, 4)), np.zeros((140, 4))
    c[[1, 3]], p[[2, 129]] = -0.0, -0.0  # zeros of both signs
    cases.append((c, p))
    cases.append((-c, -p))
    c, p = rng.standard_normal((6, 6)), rng.standard_normal((150, 6))
    c[4], p[7, 2] = np.inf, -np.inf
    cases.append((c, p))
    c, p = rng.standard_normal((6, 7))[:, ::-1], rng.standard_normal((140, 14))[:, ::2]
    cases.append((c, p))  # not contiguous
    return cases


@pytest.mark.parametrize("c, p", _cases(), ids=lambda a: f"{a.shape}")
def test_points_in_lanes_have_the_bits_of_the_nest(c, p):
    with np.errstate(invalid="ignore"):
        for f in (nearest_sum, nearest_indices, closest_read_after,
                  distance_read_in_the_tail):
            want = f(c, p)
            got = _primal(f, c, p)
            assert _bits(got) == _bits(want), (f.__name__, got, want)


def test_the_nests_that_run_in_lanes():
    c, p = np.ones((6, 3)), np.ones((4, 3))
    # (the last row's distance read in the tail: a value per point, in its lane)
    for f in (nearest_sum, nearest_indices, closest_read_after, distance_read_in_the_tail):
        assert TAKEN in _source(f, c, p), f.__name__
    rng = np.random.RandomState(3)
    x, y = rng.standard_normal((6, 3)), rng.standard_normal((140, 3))
    # an index carried from point to point, the last row's counter read in the tail, the
    # rows written in the tail, a tail that leaves the loop, a start from the last point
    for f in (carried_index, counter_read_in_the_tail, tail_writes_the_rows, tail_breaks,
              start_from_the_last_point):
        assert TAKEN not in _source(f, x.copy(), y), f.__name__
        assert _bits(_primal(f, x.copy(), y)) == _bits(f(x.copy(), y)), f.__name__


@pytest.mark.slow  # numba compiles the nest again with reassociated sums
def test_reassociated_sums_in_lanes(monkeypatch):
    monkeypatch.setenv("SRCAD_NUMBA_REASSOCIATE", "1")
    srcad.build.cache.clear()  # the code generated in order
    try:
        rng = np.random.RandomState(9)
        c, p = rng.standard_normal((7, 6)), rng.standard_normal((150, 6))
        assert TAKEN in _source(nearest_sum, c, p)
        assert _primal(nearest_sum, c, p) == pytest.approx(nearest_sum(c, p), rel=1e-13)
        assert _primal(nearest_indices, c, p) \
            == pytest.approx(nearest_indices(c, p), rel=1e-13)
    finally:
        srcad.build.cache.clear()


def test_derivatives_through_points_in_lanes():
    rng = np.random.RandomState(11)
    c, p = rng.standard_normal((7, 3)), rng.standard_normal((130, 3))
    x = 1.3
    # the rows and points constant: the nest is plain code in the derivative's code, in lanes
    code = srcad.source(scaled_nearest, srcad.Forward, srcad.Duplicated(x, 1.0),
                        srcad.Const(c), srcad.Const(p), backend="numba")
    assert TAKEN in code
    fwd = srcad.autodiff(srcad.Forward, scaled_nearest, srcad.Duplicated(x, 1.0),
                         srcad.Const(c), srcad.Const(p), backend="numba")
    rev = srcad.gradient(scaled_nearest, x, srcad.Constant(c), srcad.Constant(p),
                         backend="numba")
    eps = 1e-6
    central = (scaled_nearest(x + eps, c, p) - scaled_nearest(x - eps, c, p)) / (2 * eps)
    assert fwd == 2.0 * x * nearest_sum(c, p)
    assert rev == pytest.approx(fwd, rel=1e-14)
    assert fwd == pytest.approx(central, rel=1e-7)


@pytest.mark.slow  # numba compiles reverse and forward code
def test_gradients_through_points_in_lanes():
    # the reverse sweep's forward nest records each point's nearest row on the tape, in lanes:
    # reverse against forward against central differences, the points across two blocks,
    # ties (a duplicated centroid: the first takes the points); a prepared gradient called
    # again on other values gives the bits of one computed afresh
    rng = np.random.RandomState(12)
    c, p = rng.standard_normal((7, 3)), rng.standard_normal((150, 3))
    c[5] = c[2]
    code = srcad.source(nearest_sum, srcad.Reverse, srcad.Duplicated(c, np.zeros_like(c)),
                        srcad.Const(p), backend="numba")
    assert TAKEN in code
    rev = srcad.gradient(nearest_sum, c, srcad.Constant(p), backend="numba")
    fwd = np.zeros_like(c)
    for index in np.ndindex(c.shape):
        seed = np.zeros_like(c)
        seed[index] = 1.0
        fwd[index] = srcad.autodiff(srcad.Forward, nearest_sum, srcad.Duplicated(c, seed),
                                    srcad.Const(p), backend="numba")
    # each distance summed in order (NumPy's sum over an axis may round tied rows apart)
    nearest = [min(range(len(c)), key=lambda j, q=q: (squared_distance(q, c[j]), j))
               for q in p]  # ties: the first
    want = np.zeros_like(c)
    np.add.at(want, nearest, 2.0 * (c[nearest] - p))
    np.testing.assert_allclose(rev, want, rtol=1e-12, atol=1e-12)
    np.testing.assert_allclose(fwd, want, rtol=1e-12, atol=1e-12)
    assert not want[5].any()  # the tie went to row 2
    eps, apart = 1e-6, c.copy()
    apart[5] += 0.3  # central differences away from the tie (a kink)
    central = np.zeros_like(c)
    for index in np.ndindex(c.shape):
        up, down = apart.copy(), apart.copy()
        up[index] += eps
        down[index] -= eps
        central[index] = (nearest_sum(up, p) - nearest_sum(down, p)) / (2 * eps)
    np.testing.assert_allclose(srcad.gradient(nearest_sum, apart, srcad.Constant(p),
                                              backend="numba"), central, rtol=1e-6, atol=1e-6)
    prep = srcad.prepare_gradient(nearest_sum, c, srcad.Constant(p), backend="numba")
    srcad.gradient(nearest_sum, c, srcad.Constant(p), prep=prep)
    kept = srcad.gradient(nearest_sum, -0.5 * c, srcad.Constant(p[::-1] + 1.0), prep=prep)
    fresh = srcad.gradient(nearest_sum, -0.5 * c, srcad.Constant(p[::-1] + 1.0),
                           backend="numba")
    assert kept.tobytes() == fresh.tobytes()
