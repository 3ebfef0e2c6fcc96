"""numba, reverse mode: a reverse loop that only adds multiples of one float adjoint into
adjoint arrays runs only while that adjoint is nonzero (srcad/transform/numba_zero_adjoints.py),
with the gradient the loop as written gives: the python backend's bits, ties as `min` breaks
them, the hand-derived k-means gradient and Hessian diagonal."""

import math

import gast
import numpy as np
import pytest

import srcad
from srcad.analysis.value_types import FLOAT
from srcad.build.codegen import to_source
from srcad.testing import check_grads
from srcad.transform.numba_zero_adjoints import zero_adjoint_loops


def squared_distance(a, b):
    dist = 0.0
    for i in range(len(a)):
        dist += (a[i] - b[i]) * (a[i] - b[i])
    return dist


def nearest_cost(centroids, points):
    cost = 0.0
    for i in range(points.shape[0]):
        closest = math.inf
        for j in range(centroids.shape[0]):
            closest = min(closest, squared_distance(points[i], centroids[j]))
        cost += closest
    return cost


def farthest_weighted(centroids, points, w):
    total = 0.0
    for i in range(points.shape[0]):
        far = -math.inf
        for j in range(centroids.shape[0]):
            s = 0.0
            for t in range(centroids.shape[1]):
                s += w[t] * (points[i, t] - centroids[j, t]) ** 2
            far = max(far, s)
        total += far * far
    return total


def _data(k=5, n=23, d=3, seed=0):
    rng = np.random.default_rng(seed)
    return rng.normal(size=(k, d)), rng.normal(size=(n, d))


def _hand_gradient_and_hessian(centroids, points):
    diff = points[:, None, :] - centroids[None, :, :]
    closest = np.argmin(np.sum(diff * diff, axis=2), axis=1)  # the first of equal ones
    gradient = np.zeros_like(centroids)
    counts = np.zeros_like(centroids)
    for i, j in enumerate(closest):
        gradient[j] += 2.0 * (centroids[j] - points[i])
        counts[j] += 2.0
    return gradient, counts


def test_the_reverse_distance_loop_is_guarded_by_its_adjoint():
    c, p = _data()
    text = srcad.source(nearest_cost, srcad.Reverse, srcad.Duplicated(c, np.zeros_like(c)),
                        srcad.Const(p), backend="numba")
    assert "numba_zero_adjoints" in text and "!= 0.0:" in text


@pytest.mark.parametrize("seed", [0, 1])
def test_numba_gradient_has_the_python_backends_bits(seed):
    c, p = _data(seed=seed)
    c[3] = c[1]  # a tie: the first of two equal centroids takes the point
    p[4] = c[1]  # a distance of exactly zero
    by_python = srcad.grad(nearest_cost, backend="python")(c, srcad.Const(p))
    by_numba = srcad.grad(nearest_cost, backend="numba")(c, srcad.Const(p))
    assert np.array_equal(by_numba, by_python)
    want, _ = _hand_gradient_and_hessian(c, p)
    np.testing.assert_allclose(by_numba, want, rtol=1e-12, atol=1e-14)
    assert not np.any(by_numba[3])  # the second of the tied centroids takes nothing


def test_gradient_and_hvp_on_numba_matches_the_hand_derivation():
    c, p = _data(k=7, n=40, d=4, seed=2)
    ones = np.ones_like(c)
    gradient, hv = srcad.gradient_and_hvp(nearest_cost, c, srcad.Constant(p), tangent=ones,
                                          backend="numba")
    want_gradient, want_hessian = _hand_gradient_and_hessian(c, p)
    np.testing.assert_allclose(gradient, want_gradient, rtol=1e-12, atol=1e-14)
    np.testing.assert_allclose(hv, want_hessian, rtol=1e-12, atol=1e-14)


def test_max_of_inline_sums_agrees_with_central_differences_on_numba():
    c, p = _data(k=4, n=9, d=3, seed=3)
    w = np.array([0.5, 2.0, 1.5])
    check_grads(farthest_weighted, srcad.Duplicated(c, np.zeros_like(c)), srcad.Const(p),
                srcad.Const(w), backend="numba", modes=("rev",))
    by_python = srcad.grad(farthest_weighted, backend="python")(c, srcad.Const(p),
                                                                srcad.Const(w))
    by_numba = srcad.grad(farthest_weighted, backend="numba")(c, srcad.Const(p),
                                                              srcad.Const(w))
    assert np.array_equal(by_numba, by_python)


@pytest.mark.parametrize("far", [math.inf, math.nan])
def test_a_centroid_no_point_is_nearest_gets_forward_modes_zero(far):
    # no point is nearest to a centroid at infinity, nor to one with a NaN coordinate
    # (Python's min(closest, nan) is closest): the loop as written (the python backend's
    # reverse code) adds 0.0 * inf or 0.0 * nan, a NaN, into its adjoint; the guarded loop
    # skips it and keeps the zero forward mode computes (its tangent of `min` is a select)
    c, p = _data(k=4, n=9, d=2, seed=4)
    c[2, 0] = far
    with np.errstate(invalid="ignore"):
        by_python = srcad.grad(nearest_cost, backend="python")(c, srcad.Const(p))
        by_forward = srcad.jacfwd(nearest_cost, backend="python")(c, srcad.Const(p))
    by_numba = srcad.grad(nearest_cost, backend="numba")(c, srcad.Const(p))
    assert np.isnan(by_python[2, 0])
    np.testing.assert_allclose(by_numba, by_forward, rtol=1e-12)
    assert not np.any(by_numba[2])
    rows = [0, 1, 3]
    assert np.array_equal(by_numba[rows], by_python[rows])


def _guarded(text):
    tree = gast.parse(text)
    out = to_source(zero_adjoint_loops(tree, {"b": "b_bar", "x": "g", "y": "h"},
                                       {"x": FLOAT, "y": FLOAT}))
    return "if g != 0.0" in out


def test_only_loops_whose_every_effect_is_a_multiple_of_the_adjoint_are_guarded():
    loop = ("def f(g, h, a, b_bar, n):\n"
            "    for t in range(n):\n"
            "        s = a[t] - 1.0\n"
            "        u = -g * s\n"
            "        {statement}\n"
            "    {after}\n"
            "    return b_bar\n")
    assert _guarded(loop.format(statement="b_bar[t] += u / a[t]", after="pass"))
    assert _guarded(loop.format(statement="b_bar[t] -= u * s + g", after="s = 0.0"))
    # a sum with a term not proportional to g, another adjoint, an assignment (a first
    # contribution), a name the loop leaves read afterwards, a call: left as written
    assert not _guarded(loop.format(statement="b_bar[t] += u + s", after="pass"))
    assert not _guarded(loop.format(statement="b_bar[t] += h * s", after="pass"))
    assert not _guarded(loop.format(statement="b_bar[t] = u", after="pass"))
    assert not _guarded(loop.format(statement="b_bar[t] += u", after="b_bar[0] = s"))
    assert not _guarded(loop.format(statement="b_bar[t] += u * print(t)", after="pass"))
    assert not _guarded(loop.format(statement="b_bar[t] += s / u", after="pass"))


def test_a_name_the_loop_leaves_is_dead_only_where_assigned_first():
    nested = ("def f(g, a, b_bar, n, k):\n"
              "    for j in range(k):\n"
              "        {before}\n"
              "        for t in range(n):\n"
              "            s = a[t] * 2.0\n"
              "            b_bar[t] += g * s\n"
              "        {after}\n"
              "    return b_bar\n")
    assert _guarded(nested.format(before="s = 1.0\n        b_bar[0] += s", after="pass"))
    # the next iteration of the outer loop reads what the inner loop left
    assert not _guarded(nested.format(before="b_bar[0] += s", after="pass"))
    assert not _guarded(nested.format(before="pass", after="b_bar[0] += t"))


def nearest_per_point(centroids, points):
    out = np.zeros(points.shape[0])
    for i in range(points.shape[0]):
        closest = math.inf
        for j in range(centroids.shape[0]):
            closest = min(closest, squared_distance(points[i], centroids[j]))
        out[i] = closest
    return out


@pytest.mark.slow  # numba compilations: make test-all
def test_batched_reverse_lanes_run_the_guarded_loops_for_every_lane():
    # a reverse jacobian on numba pulls back several rows in one sweep of lanes, where the
    # adjoint the guard tests is one per lane: the lanes run the loop (zero in some lanes,
    # not in others), and the jacobian is forward mode's
    c, p = _data(k=4, n=9, d=2, seed=3)
    prep = srcad.prepare_jacobian(nearest_per_point, c, srcad.Constant(p), backend="numba",
                                  mode="reverse")
    assert prep.state.get("batched")
    J = srcad.jacobian(nearest_per_point, c, srcad.Constant(p), prep=prep)
    want = srcad.jacobian(nearest_per_point, c, srcad.Constant(p), mode="forward")
    np.testing.assert_allclose(J, want, rtol=1e-13, atol=1e-15)
    assert np.count_nonzero(J) == 9 * 2  # each point's row: its nearest centroid's d entries
