"""Loops over row views (`r = a[i]` handed to a helper that loops over `len(r)`), the shape of
GradBench kmeans: on the numba backend their reverse code reserves the tape once before the
outermost loop, makes the adjoint of a row without reading the row after its loop, and adds a
row's adjoint into the row of the parameter's adjoint in place; a prepared gradient then
allocates nothing per call. The derivatives stay right on both backends (central differences,
and the k-means Hessian derived by hand), also where the loop over rows runs no iteration.
"""

import math

import gast
import numpy as np
import pytest

import srcad
from srcad import Constant
from srcad.gradbench.ports.kmeans import cost_loops as kmeans_cost  # GradBench's loop form
from srcad.testing import check_grads

pytest.importorskip("numba")


def first_rows(x, m):
    """The squares of the first m rows of x: no iteration for m = 0."""
    s = 0.0
    for j in range(m):
        r = x[j]
        for q in range(len(r)):
            s += r[q] * r[q] * (q + 1)
    return s


RNG = np.random.default_rng(5)
POINTS = RNG.uniform(size=(12, 2))
CENTROIDS = POINTS[-3:] + 0.01  # every cluster nonempty, no ties


def _closest():
    diff = POINTS[:, None, :] - CENTROIDS[None, :, :]
    return np.argmin(np.sum(diff * diff, axis=2), axis=1)


@pytest.fixture(scope="module")
def gradient_prep():
    return srcad.prepare_gradient(kmeans_cost, CENTROIDS, Constant(POINTS), backend="numba")


@pytest.mark.parametrize("backend", ["python", "numba"])
def test_kmeans_gradient_matches_central_differences(backend):
    check_grads(kmeans_cost, srcad.Duplicated(CENTROIDS.copy(), np.zeros_like(CENTROIDS)),
                srcad.Const(POINTS), modes=("rev",), backend=backend)


@pytest.mark.parametrize("backend", ["python", "numba"])
def test_kmeans_hessian_diagonal_by_hand_and_by_differences_of_the_gradient(backend):
    """H v with v = 1 is the Hessian's diagonal (H is diagonal): 2 |{i : c(i) = j}| for every
    coordinate of centroid j; and H v is the central difference of the gradient along v."""
    ones = np.ones_like(CENTROIDS)
    hv = srcad.hvp(kmeans_cost, CENTROIDS, Constant(POINTS), tangent=ones, backend=backend)
    counts = np.bincount(_closest(), minlength=len(CENTROIDS))
    np.testing.assert_allclose(hv, 2.0 * counts[:, None] * ones, rtol=1e-12)
    eps = 1e-6
    v = RNG.uniform(-1.0, 1.0, CENTROIDS.shape)
    grad = lambda c: srcad.gradient(kmeans_cost, c, Constant(POINTS))  # noqa: E731
    differences = (grad(CENTROIDS + eps * v) - grad(CENTROIDS - eps * v)) / (2 * eps)
    hv = srcad.hvp(kmeans_cost, CENTROIDS, Constant(POINTS), tangent=v, backend=backend)
    np.testing.assert_allclose(hv, differences, rtol=1e-6, atol=1e-8)


def _loop_nodes(source: str, kind):
    tree = gast.parse(source)
    return [n for loop in gast.walk(tree) if isinstance(loop, gast.For)
            for stmt in loop.body for n in gast.walk(stmt) if isinstance(n, kind)]


def test_kmeans_numba_reverse_allocates_and_grows_nothing_inside_its_loops(gradient_prep):
    source = gradient_prep.engine.compiled.source
    calls = {S for n in _loop_nodes(source, gast.Call) for S in [gast.dump(n.func)]}
    names = {"np.zeros", "np.zeros_like", "np.empty", "np.empty_like", "np.concatenate",
             "reserve_tape"}
    inside = {name for name in names
              if gast.dump(gast.parse(name).body[0].value) in calls}
    assert inside == set()  # before: the tape grown per push, checked in the loop over j
    assert "reserve_tape(" in source  # reserved once, before the loop over points
    # a row's adjoint is added into the centroid row in place, not stored back over itself
    rows = [n for n in _loop_nodes(source, gast.AugAssign) if isinstance(n.target, gast.Subscript)
            and isinstance(n.target.value, gast.Name)
            and n.target.value.id.endswith("_bar") and isinstance(n.value, gast.Name)
            and n.value.id.endswith("_bar")]
    assert rows == []


def test_kmeans_prepared_numba_gradient_allocates_nothing_per_call(gradient_prep):
    """numba's allocation statistics: a call counts one allocation per array it is passed
    (their MemInfos) and one per array it makes: none here (the centroids' transposed copy
    and the distances of all centroids, srcad/transform/numba_row_sums.py, are carved from
    the tape the prepared call keeps; before, two new arrays per call), none per point or
    centroid, the row's adjoint being a view of the centroids' adjoint. Before that, the row
    adjoint stored back over itself allocated a temporary per (point, centroid)."""
    nrt = pytest.importorskip("numba.core.runtime._nrt_python")
    was_on = nrt.memsys_stats_enabled()
    nrt.memsys_enable_stats()
    try:
        out = np.zeros_like(CENTROIDS)

        def call():
            srcad.gradient(kmeans_cost, CENTROIDS, Constant(POINTS), prep=gradient_prep,
                           out=out)

        call()
        before = nrt.memsys_get_stats_alloc()
        call()
        allocations = nrt.memsys_get_stats_alloc() - before
    finally:
        if not was_on:
            nrt.memsys_disable_stats()
    arrays = sum(isinstance(v, np.ndarray) for v in gradient_prep.engine.flat)
    assert allocations == arrays
    closest = _closest()
    want = np.zeros_like(CENTROIDS)
    np.add.at(want, closest, 2.0 * (CENTROIDS[closest] - POINTS))
    np.testing.assert_allclose(out, want, rtol=1e-12)


@pytest.mark.parametrize("backend", ["python", "numba"])
def test_a_loop_over_rows_that_runs_no_iteration_has_a_zero_gradient(backend):
    """The row's adjoint is made from the parameter's shape: before, `np.zeros_like(r)` read
    the row the loop never bound."""
    x = RNG.uniform(size=(4, 3))
    assert np.array_equal(srcad.gradient(first_rows, x, Constant(0), backend=backend),
                          np.zeros_like(x))
    want = np.zeros_like(x)
    want[:2] = 2.0 * x[:2] * np.arange(1, 4)
    np.testing.assert_allclose(srcad.gradient(first_rows, x, Constant(2), backend=backend),
                               want, rtol=1e-12)


# -- the adjoint of a row view as a view of the parameter's adjoint (view_adjoints.py) ---------
def two_views_of_a_row(x, w):
    """Two views of one row in an iteration, one read by a nested loop, one by an expression."""
    s = 0.0
    for j in range(x.shape[0]):
        a = x[j]
        b = x[j]
        for q in range(len(a)):
            s += math.sin(a[q] * w[q]) * b[q]
        s += b[0] * b[len(b) - 1]
    return s


def top_level_and_shifted_rows(x):
    """A row bound outside any loop; a row indexed by a computed name (not a loop index: its
    adjoint keeps its own array)."""
    first = x[0]
    s = first[0] * first[1]
    for j in range(x.shape[0] - 1):
        k = j + 1
        r = x[k]
        s += r[0] * r[1] * first[1]
    return s


def last_row_read_after_its_loop(x):
    """The row is read after the loop too (the last one): its adjoint keeps its own array."""
    s = 0.0
    for j in range(x.shape[0]):
        r = x[j]
        s += r[0] * r[1]
    return s + r[1] * r[2]


@pytest.mark.parametrize("backend", ["python", "numba"])
@pytest.mark.parametrize("f", [two_views_of_a_row, top_level_and_shifted_rows,
                               last_row_read_after_its_loop])
def test_row_adjoints_as_views_differentiate_right(f, backend):
    x = RNG.uniform(0.5, 1.5, (4, 3))
    args = [srcad.Duplicated(x, np.zeros_like(x))]
    if f is two_views_of_a_row:
        args.append(srcad.Const(RNG.uniform(size=3)))
    check_grads(f, *args, modes=("rev",), backend=backend)


@pytest.mark.parametrize("backend", ["python", "numba"])
def test_row_adjoints_are_views_of_the_parameters_adjoint_where_they_can_be(backend):
    x = RNG.uniform(size=(4, 3))
    source = srcad.source(top_level_and_shifted_rows, srcad.Reverse,
                          srcad.Duplicated(x, np.zeros_like(x)), backend=backend)
    reverse = source.split("# reverse sweep")[1]
    assert "first_bar = x_bar[0]" in reverse  # bound outside any loop, indexed by a constant
    assert "x_bar[0] += first_bar" not in reverse
    # `x[k]`, k not a loop index: its replay (k, then r) binds the alias after k is known;
    # never an array of its own reset per iteration
    assert "k = j + 1\n        r = x[k]\n        r_bar = x_bar[k]" in reverse
    assert "r_bar = np.zeros" not in reverse and "r_bar[...] = 0.0" not in reverse


# -- gradient_and_hvp: the gradient from the pass that computes H v ---------------------------
def nearest_squares(x, p):
    """sum_i min_k (p_i - x_k)^2, all pairs at once."""
    d = p[:, None] - x[None, :]
    return np.sum(np.min(d * d, axis=1))


@pytest.mark.parametrize("backend", ["python", "numba"])
def test_gradient_and_hvp_gives_the_gradient_and_hvp_of_kmeans(backend):
    ones = np.ones_like(CENTROIDS)
    prep = srcad.prepare_gradient_and_hvp(kmeans_cost, CENTROIDS, Constant(POINTS),
                                          tangent=ones, backend=backend)
    outs = (np.zeros_like(CENTROIDS), np.zeros_like(CENTROIDS))
    g, hv = srcad.gradient_and_hvp(kmeans_cost, CENTROIDS, Constant(POINTS), tangent=ones,
                                   prep=prep, out=outs)
    assert g is outs[0] and hv is outs[1]
    closest = _closest()
    want = np.zeros_like(CENTROIDS)
    np.add.at(want, closest, 2.0 * (CENTROIDS[closest] - POINTS))
    np.testing.assert_allclose(g, want, rtol=1e-12)
    counts = np.bincount(closest, minlength=len(CENTROIDS))
    np.testing.assert_allclose(hv, 2.0 * counts[:, None] * ones, rtol=1e-12)
    if backend == "numba":
        assert prep.engine.gradient_pass is None  # one pass: the direction's adjoint


@pytest.mark.slow  # numba compilations or a bounded fuzz run: make test-all
def test_gradient_and_hvp_of_broadcast_tangents_on_numba():
    """The tangents of the direction are broadcast here: numba compiles that now (it once
    refused it, and the gradient came from a reverse pass of its own); both values are the
    hand-derived ones either way."""
    x = np.array([0.3, -0.7, 1.1, 0.4])
    p = np.array([1.5, 0.5, 2.0, 0.8, 0.1])
    v = np.array([1.0, -2.0, 0.5, 0.25])
    prep = srcad.prepare_gradient_and_hvp(nearest_squares, x, Constant(p), tangent=v,
                                          backend="numba")
    g, hv = srcad.gradient_and_hvp(nearest_squares, x, Constant(p), tangent=v, prep=prep)
    nearest = np.argmin((p[:, None] - x[None, :]) ** 2, axis=1)
    want = np.zeros_like(x)
    np.add.at(want, nearest, 2.0 * (x[nearest] - p))
    np.testing.assert_allclose(g, want, rtol=1e-12)
    np.testing.assert_allclose(hv, 2.0 * np.bincount(nearest, minlength=4) * v, rtol=1e-12)


def quartic(x):
    return x ** 4 + math.exp(-x)


def test_gradient_and_hvp_of_a_float_input_and_its_refusals():
    g, h = srcad.gradient_and_hvp(quartic, 0.5, tangent=2.0)
    assert g == pytest.approx(4 * 0.5 ** 3 - math.exp(-0.5), rel=1e-12)
    assert h == pytest.approx(2.0 * (12 * 0.5 ** 2 + math.exp(-0.5)), rel=1e-12)
    with pytest.raises(srcad.ArgumentError, match="parallel"):
        srcad.gradient_and_hvp(kmeans_cost, CENTROIDS, Constant(POINTS),
                               tangent=CENTROIDS, parallel=True)
    with pytest.raises(srcad.ArgumentError, match="out=\\(g, hv\\)"):
        srcad.gradient_and_hvp(kmeans_cost, CENTROIDS, Constant(POINTS), tangent=CENTROIDS,
                               out=np.zeros_like(CENTROIDS))
