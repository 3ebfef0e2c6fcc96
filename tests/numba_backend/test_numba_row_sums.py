"""numba: a running `min`/`max` over the rows of a 2-D array of sums over each row computes
all rows' sums at once, the loops interchanged, reading a transposed copy
(srcad/transform/numba_row_sums.py), with the bits of the loop as written: ties, NaN, zeros
of both signs, infinities, every row count; derivatives through it; the loops it leaves."""

import math

import numpy as np
import pytest
from helpers.numba_primal import bits as _bits
from helpers.numba_primal import numba_primal as _primal
from helpers.numba_primal import numba_source as _source

import srcad


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


def nearest_to(c, q):
    closest = math.inf
    for j in range(c.shape[0]):
        closest = min(closest, squared_distance(q, c[j]))
    return closest


def largest_product(c, p):
    best = -math.inf
    for j in range(len(c)):
        b = c[j]
        s = -0.0
        for t in range(len(b)):
            s += b[t] * p[t]
        best = max(best, s)
    return best


def scaled_nearest(x, c, p):
    return x * x * nearest_sum(c, p)


def written_rows(c, p):
    c[0, 0] = 1.0
    return largest_product(c, p)


def aliased_rows(c, p):
    d = c
    return largest_product(d, p) + largest_product(c, p)


def fewer_rows(c, p):
    best = math.inf
    for j in range(c.shape[0] - 1):
        b = c[j]
        s = 0.0
        for t in range(len(p)):
            s += (b[t] - p[t]) * (b[t] - p[t])
        best = min(best, s)
    return best


def row_read_elsewhere(c, p):
    best = math.inf
    for j in range(c.shape[0]):
        b = c[j]
        s = b[0]
        for t in range(len(p)):
            s += (b[t] - p[t]) * (b[t] - p[t])
        best = min(best, s)
    return best


def last_term_read_after(c, p):
    best = math.inf
    for j in range(c.shape[0]):
        b = c[j]
        s = 0.0
        for t in range(len(p)):
            d = b[t] - p[t]
            s += d * d
        best = min(best, s + d)
    return best


def start_from_the_last_row(c, p):
    best = math.inf
    u = 0.0
    for j in range(c.shape[0]):
        b = c[j]
        s = u  # 0.0 for the first row, p[0] after
        u = p[0]
        for t in range(len(p)):
            s += (b[t] - p[t]) * (b[t] - p[t])
        best = min(best, s)
    return best


def view_written_in_a_branch(c, p, flag):
    rows = c[1:] if flag > 0.0 else c
    rows[0, 0] = 5.0
    return largest_product(c, p)


def _cases():
    rng = np.random.RandomState(5)
    cases = []
    for k in (1, 2, 3, 4, 5, 7, 8, 9, 13):  # every remainder of 4 lanes and of 4 packed rows
        c = rng.standard_normal((k, 3))
        if k > 4:
            c[k - 1] = c[1]  # a tie: the first row wins
        cases.append(c)
    c = rng.standard_normal((9, 3))
    c[2, 1] = np.nan  # a NaN sum, never taken
    cases.append(c)
    c = rng.standard_normal((9, 3))
    c[0, 0] = np.nan  # a NaN sum first
    cases.append(c)
    zeros = np.zeros((9, 3))
    zeros[[1, 3, 6]] = -0.0  # sums and products of both signs of zero
    cases.append(zeros)
    cases.append(-zeros)
    c = rng.standard_normal((9, 3))
    c[4] = np.inf
    cases.append(c)
    c = rng.standard_normal((9, 3))[:, ::-1]  # not contiguous
    cases.append(c)
    return cases


@pytest.mark.parametrize("c", _cases(), ids=lambda c: f"k{len(c)}")
def test_interchanged_sums_have_the_bits_of_the_loop(c):
    p = np.array([[0.5, -1.0, 0.25], [0.0, 0.0, 0.0], [-0.0, 2.0, -0.5], [1e-3, 3.0, 7.0]])
    with np.errstate(invalid="ignore"):
        for f, args in ((nearest_to, (c, p[0])), (largest_product, (c, p[2])),
                        (largest_product, (c, p[1])), (largest_product, (-c, p[0]))):
            want = f(*args)
            got = _primal(f, *args)
            assert _bits(got) == _bits(want), (f.__name__, c, got, want)


def test_no_rows_and_no_coordinates():
    for c, p in ((np.zeros((0, 3)), np.ones((2, 3))), (np.zeros((3, 0)), np.ones((2, 0)))):
        assert _bits(_primal(nearest_sum, c, p)) == _bits(nearest_sum(c, p))


def test_the_loops_that_are_interchanged():
    c, p = np.ones((6, 3)), np.ones((4, 3))
    assert "np.ascontiguousarray(c.T)" in _source(nearest_to, c, p[0])
    # the loop over the points around it: the points in lanes (numba_row_lanes.py)
    assert "numba_row_sums" not in _source(nearest_sum, c, p)
    assert "numba_row_sums" in _source(largest_product, c, p[0])
    x = np.arange(18.0).reshape(6, 3) / 5.0 - 1.0
    y = np.array([0.5, -1.0, 2.0])
    # the array written, held under a second name, fewer rows than it has, a row read
    # other than at the sum's counter
    # a temporary of the last coordinate read after the sum, a start read from the row
    # before
    for f in (written_rows, aliased_rows, fewer_rows, row_read_elsewhere,
              last_term_read_after, start_from_the_last_row):
        assert "numba_row_sums" not in _source(f, x.copy(), y), f.__name__
        assert _bits(_primal(f, x.copy(), y)) == _bits(f(x.copy(), y))
    assert "numba_row_sums" not in _source(view_written_in_a_branch, x.copy(), y, -1.0)
    assert _bits(_primal(view_written_in_a_branch, x.copy(), y.copy(), -1.0)) \
        == _bits(view_written_in_a_branch(x.copy(), y.copy(), -1.0))


def test_derivatives_through_interchanged_sums():
    rng = np.random.RandomState(11)
    c, p = rng.standard_normal((7, 3)), rng.standard_normal((5, 3))
    # the rows constant: the nest is plain code in the derivative's sweeps and interchanged
    x = 1.3
    g = srcad.gradient(scaled_nearest, x, srcad.Constant(c), srcad.Constant(p),
                          backend="numba")
    assert g == 2.0 * x * nearest_sum(c, p)
    # the rows differentiated (c), then the points (p): reverse against forward against
    # central differences
    for which in (0, 1):
        def f(a, which=which):
            return nearest_sum(a, p) if which == 0 else nearest_sum(c, a)
        point = (c, p)[which]
        rev = srcad.gradient(f, point, backend="numba")
        fwd = np.zeros_like(point)
        for index in np.ndindex(point.shape):
            seed = np.zeros_like(point)
            seed[index] = 1.0
            fwd[index] = srcad.autodiff(srcad.Forward, f, srcad.Duplicated(point, seed),
                                        backend="numba")
        central = np.zeros_like(point)
        eps = 1e-6
        for index in np.ndindex(point.shape):
            up, down = point.copy(), point.copy()
            up[index] += eps
            down[index] -= eps
            central[index] = (f(up) - f(down)) / (2 * eps)
        np.testing.assert_allclose(rev, fwd, rtol=1e-12, atol=1e-12)
        np.testing.assert_allclose(rev, central, rtol=1e-6, atol=1e-6)


def nearest_index(c, p):
    best = math.inf
    winner = -1
    for j in range(c.shape[0]):
        b = c[j]
        s = 0.0
        for t in range(len(b)):
            d = b[t] - p[t]
            e = d * d
            s += e
        if s < best:
            winner = j
        best = min(best, s)
    return best + winner


def index_read_as_view(c, p):
    rows = c[1:]
    rows[0, 0] = 5.0  # writes c through a view: the loop reads the written value
    return nearest_index(c, p)


@pytest.mark.parametrize("c", _cases(), ids=lambda c: f"k{len(c)}")
def test_argmin_after_interchanged_sums(c):
    # the index of the first nearest row (ties: the first; NaN: never taken), from sums
    # computed with temporaries per coordinate
    p = np.array([0.5, -1.0, 0.25])
    assert "numba_row_sums" in _source(nearest_index, c, p)
    with np.errstate(invalid="ignore"):
        for q in (p, -p, 0.0 * p):
            assert _bits(_primal(nearest_index, c, q)) == _bits(nearest_index(c, q))


def test_a_view_written_keeps_the_loop():
    c, p = np.arange(12.0).reshape(4, 3), np.array([5.0, 0.0, 0.0])
    assert "numba_row_sums" not in _source(index_read_as_view, c.copy(), p)
    assert _bits(_primal(index_read_as_view, c.copy(), p)) \
        == _bits(index_read_as_view(c.copy(), p))


def test_kmeans_direction_through_interchanged_sums():
    # J and H 1 of the cost by reverse over forward (the forward sweep keeps the nearest
    # centroid's index) against the direction derived by hand: C_j minus the mean of its points
    rng = np.random.RandomState(2)
    points = rng.standard_normal((40, 3))
    c = points[-6:].copy()
    ones = np.ones_like(c)
    jac, hess = srcad.gradient_and_hvp(nearest_sum, c, srcad.Constant(points), tangent=ones,
                                       backend="numba")
    nearest = np.argmin(((points[:, None, :] - c[None]) ** 2).sum(axis=2), axis=1)
    want = np.array([c[j] - points[nearest == j].mean(axis=0) for j in range(len(c))])
    np.testing.assert_allclose(jac / hess, want, rtol=1e-12, atol=1e-12)


def test_reassociated_sums_keep_the_jam_where_it_applies(monkeypatch):
    # with reassociated sums LLVM vectorizes the jammed lanes' sums over the coordinates; a
    # loop the jam does not take (the nearest row's index) is still interchanged
    monkeypatch.setenv("SRCAD_NUMBA_REASSOCIATE", "1")
    srcad.build.cache.clear()  # the code generated in order
    try:
        c = np.arange(18.0).reshape(6, 3) / 4.0
        p = np.array([[1.0, 0.5, 2.0], [3.0, 1.0, 0.0]])
        jammed = _source(nearest_to, c, p[0])
        assert "numba_extremum_jam" in jammed and "numba_row_sums" not in jammed
        assert "numba_row_sums" in _source(nearest_index, c, p[0])
        assert _primal(nearest_index, c, p[0]) \
            == pytest.approx(nearest_index(c, p[0]), rel=1e-15)
    finally:
        srcad.build.cache.clear()


@pytest.mark.slow  # numba compiles the reverse code (about 13 s on the loaded CI machine)
def test_reverse_code_keeps_the_copy_and_sums_in_its_tape():
    # a prepared gradient keeps its tape across calls: the transposed copy and the sums are
    # views of it, written afresh by each call (other centroids, other points, no rows, no
    # coordinates), with the bits of a gradient computed with nothing kept
    rng = np.random.RandomState(4)
    c, p = rng.standard_normal((5, 3)), rng.standard_normal((7, 3))
    # (one point: a loop over points runs them in lanes, srcad/transform/numba_row_lanes.py)
    code = srcad.source(nearest_to, srcad.Reverse, srcad.Duplicated(c, np.zeros_like(c)),
                        srcad.Const(p[0]), backend="numba")
    assert "in `tape` kept across calls" in code and "np.ascontiguousarray" not in code
    for rows, columns in ((5, 3), (0, 3), (4, 0)):
        c = rng.standard_normal((rows, columns))
        p = rng.standard_normal((1, columns))
        prep = srcad.prepare_gradient(nearest_to, c, srcad.Constant(p[0]), backend="numba")
        for scale in (1.0, -2.0, 0.5):
            kept = srcad.gradient(nearest_to, scale * c, srcad.Constant(p[0] + scale),
                                  prep=prep)
            fresh = srcad.gradient(nearest_to, scale * c, srcad.Constant(p[0] + scale),
                                   backend="numba")
            assert kept.tobytes() == fresh.tobytes()
            want = np.zeros_like(c)
            if rows:  # the nearest centroid of each point (ties: the first)
                diff = (p + scale)[:, None, :] - scale * c[None]
                nearest = np.argmin((diff * diff).sum(axis=2), axis=1)
                np.add.at(want, nearest, 2.0 * (scale * c[nearest] - (p + scale)))
            np.testing.assert_allclose(kept, want, rtol=1e-12, atol=1e-12)
