"""jacobian(..., mode="reverse", chunk=W): W rows of the jacobian per reverse sweep (the
generated reverse code run on W lanes of adjoints). Checked against hand-derived jacobians
and forward mode, with returned arrays, Output, Cache and Constant contexts, W not dividing
the number of rows, on the python backend (lanes as vectors) and numba (a loop over the
lanes, srcad/operators/batched_lanes.py); code the lanes cannot go through is refused by name, and
numba's default reverse jacobian sweeps W rows at once where the code allows."""

import math

import numpy as np
import pytest

import srcad
from srcad import Cache, Constant, Output


def arrow(x):
    n = len(x)
    y = np.zeros(n)
    for i in range(n):
        y[i] = math.sin(x[i]) * x[0] + x[n - 1] ** 2
    y[0] = y[0] * 2.0
    for i in range(n):
        y[0] += x[i] * x[i]
    return y


def arrow_expected(x):
    n = len(x)
    J = np.zeros((n, n))
    for i in range(n):
        J[i, i] += math.cos(x[i]) * x[0]
        J[i, 0] += math.sin(x[i])
        J[i, n - 1] += 2.0 * x[n - 1]
    J[0] *= 2.0
    J[0] += 2.0 * x
    return J


def scaled_with_cache(y, x, c, a):
    """c is scratch storage; y[i] = a * c[i] * c[i + 1 mod n], c[i] = exp(x[i]) + s,
    s = x[0] * x[1] (s copied to t and added in place: an alias of a scalar's adjoint)."""
    n = len(x)
    s = x[0] * x[1]
    for i in range(n):
        t = s
        t += math.exp(x[i])
        c[i] = t
    for i in range(n):
        y[i] = a * c[i] * c[(i + 1) % n]


def scaled_expected(x, a):
    n = len(x)
    s = x[0] * x[1]
    c = np.exp(x) + s
    dc = np.diag(np.exp(x))  # dc[i, j] = d c_i / d x_j
    dc[:, 0] += x[1]
    dc[:, 1] += x[0]
    J = np.zeros((n, n))
    for i in range(n):
        k = (i + 1) % n
        J[i] = a * (dc[i] * c[k] + c[i] * dc[k])
    return J


def whole_array(x):
    y = np.cumsum(x) * x[0]
    return y


@pytest.mark.parametrize("backend, width", [("python", 1), ("python", 3), ("python", 7),
                                            ("numba", 3), ("numba", 7)])
def test_rows_per_sweep_match_the_hand_derived_jacobian(backend, width):
    x = np.array([0.4, -1.1, 0.8, 1.7, 0.3, -0.6, 1.2])
    prep = srcad.prepare_jacobian(arrow, x, mode="reverse", chunk=width, backend=backend)
    # chunk=1: one row a sweep, the one-row engine (no lanes)
    assert bool(prep.state.get("batched")) == (width > 1) and prep.chunk == width
    J = srcad.jacobian(arrow, x, prep=prep)
    np.testing.assert_allclose(J, arrow_expected(x), rtol=1e-14, atol=1e-14)


@pytest.mark.parametrize("backend", ["python", "numba"])
def test_contexts_and_forward_mode_agree(backend):
    x = np.array([0.2, 0.5, -0.3, 0.9, 0.1])
    a = 1.5
    y, c = np.zeros(5), np.zeros(5)
    args = (Output(y), x, Cache(c), Constant(a))
    prep = srcad.prepare_jacobian(scaled_with_cache, *args, mode="reverse", chunk=2,
                                  backend=backend)
    J = srcad.jacobian(scaled_with_cache, *args, prep=prep)
    np.testing.assert_allclose(J, scaled_expected(x, a), rtol=1e-13)
    np.testing.assert_allclose(J, srcad.jacobian(scaled_with_cache, *args, mode="forward"),
                               rtol=1e-13)
    x2 = x[::-1].copy()  # a prepared call at another point, into out=
    out = np.zeros((5, 5))
    J2 = srcad.jacobian(scaled_with_cache, Output(y), x2, Cache(c), Constant(a), prep=prep,
                        out=out)
    assert J2 is out
    np.testing.assert_allclose(out, scaled_expected(x2, a), rtol=1e-13)
    np.testing.assert_allclose(y, [a * (math.exp(x2[i]) + x2[0] * x2[1])
                                   * (math.exp(x2[(i + 1) % 5]) + x2[0] * x2[1])
                                   for i in range(5)], rtol=1e-14)


def test_code_the_lanes_cannot_run_is_refused():
    with pytest.raises(srcad.SrcadError, match=r"test_batched_reverse\.py.*np\.cumsum"):
        srcad.jacobian(whole_array, np.ones(4), mode="reverse", chunk=2)
    with pytest.raises(srcad.SrcadError, match=r"test_batched_reverse\.py.*adjoint"):
        srcad.jacobian(whole_array, np.ones(4), mode="reverse", chunk=2, backend="numba")


def test_numba_reverse_jacobian_sweeps_w_rows_where_the_code_allows():
    x = np.array([0.4, -1.1, 0.8, 1.7, 0.3])
    prep = srcad.prepare_jacobian(arrow, x, mode="reverse", backend="numba")
    assert prep.state.get("batched") and prep.chunk == 5  # one sweep of 5 lanes
    np.testing.assert_allclose(srcad.jacobian(arrow, x, prep=prep), arrow_expected(x),
                               rtol=1e-14, atol=1e-14)
    # whole-array code: one sweep per row, as before
    prep = srcad.prepare_jacobian(whole_array, x, mode="reverse", backend="numba")
    assert not prep.state.get("batched")
    expected = np.tril(np.ones((5, 5))) * x[0]
    expected[:, 0] += np.cumsum(x)
    np.testing.assert_allclose(srcad.jacobian(whole_array, x, prep=prep), expected,
                               rtol=1e-14)


# -- autodiff(Reverse, ..., BatchDuplicated(...)) ---------------------------------------------
def ring(y, x, a):
    n = len(x)
    for i in range(n):
        y[i] = a * x[i] * x[(i + 1) % n] + math.sin(a * x[i])


def ring_jacobians(x, a):
    """(dy/dx, dy/da), hand-derived."""
    n = len(x)
    jx, ja = np.zeros((n, n)), np.zeros(n)
    for i in range(n):
        k = (i + 1) % n
        jx[i, i] += a * x[k] + a * math.cos(a * x[i])
        jx[i, k] += a * x[i]
        ja[i] = x[i] * x[k] + x[i] * math.cos(a * x[i])
    return jx, ja


def weighted_square(x, a):
    s = 0.0
    for i in range(len(x)):
        s += a * x[i] ** 2
    return s * a


@pytest.mark.parametrize("backend", ["python", "numba"])
def test_autodiff_batch_reverse_pulls_back_w_cotangents(backend):
    n, width = 5, 3
    x, a = np.linspace(0.2, 1.0, n), 0.7
    rng = np.random.default_rng(0)
    cotangents = [rng.standard_normal(n) for _ in range(width)]
    y_shadows = [c.copy() for c in cotangents]
    start = [rng.standard_normal(n) for _ in range(width)]  # shadows accumulate
    x_shadows = [s.copy() for s in start]
    out = srcad.autodiff(srcad.Reverse, ring, srcad.BatchDuplicated(np.zeros(n), y_shadows),
                         srcad.BatchDuplicated(x, x_shadows), srcad.Active(a),
                         backend=backend)
    jx, ja = ring_jacobians(x, a)
    for k in range(width):
        np.testing.assert_allclose(x_shadows[k], start[k] + cotangents[k] @ jx, rtol=1e-13)
        np.testing.assert_allclose(y_shadows[k], 0.0)  # y is overwritten: no adjoint on entry
    assert out[0] is None and out[1] is None
    np.testing.assert_allclose(out[2], [c @ ja for c in cotangents], rtol=1e-13)


@pytest.mark.parametrize("backend", ["python", "numba"])
def test_autodiff_batch_reverse_seeds_per_lane(backend):
    x, a = np.array([0.5, -1.0, 2.0]), 1.5
    shadows = [np.zeros(3), np.zeros(3)]
    (dx, da), value = srcad.autodiff(srcad.ReverseWithPrimal, weighted_square,
                                     srcad.BatchDuplicated(x, shadows), srcad.Active(a),
                                     seed=[1.0, 3.0], backend=backend)
    assert dx is None
    assert value == pytest.approx(a * a * np.sum(x * x))
    np.testing.assert_allclose(shadows[0], 2.0 * a * a * x, rtol=1e-14)
    np.testing.assert_allclose(shadows[1], 3.0 * 2.0 * a * a * x, rtol=1e-14)
    np.testing.assert_allclose(da, [2.0 * a * np.sum(x * x), 6.0 * a * np.sum(x * x)],
                               rtol=1e-14)


def test_autodiff_batch_reverse_refusals():
    x = np.ones(3)
    with pytest.raises(srcad.SrcadError, match="np.cumsum"):
        srcad.autodiff(srcad.Reverse, whole_array, srcad.BatchDuplicated(x, [np.zeros(3)]))
    with pytest.raises(srcad.SrcadError, match="adjoint"):
        srcad.autodiff(srcad.Reverse, whole_array, srcad.BatchDuplicated(x, [np.zeros(3)]),
                       seed=np.ones((1, 3)), backend="numba")
