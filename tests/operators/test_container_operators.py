"""The operators with a container x beyond first order and one pass: hvp and hessian
(forward over reverse of the leaves' reverse code), the vector-mode jacobian with chunk=,
and gradient(mode="forward") (srcad/operators/containers/container_second_order.py,
srcad/operators/containers/container_jacobian.py). Expected values are derived by hand from f = c^2
x0 + c sum(w^2 x) +
k."""

import numpy as np
import pytest

import srcad
from srcad.frontend import pytrees
from tests.helpers import container_models as m

X = np.array([0.5, -1.0])
C, W = 0.4, np.array([1.0, 2.0])


def _params():
    return {"c": C, "w": W.copy(), "k": 3}


def _hand_gradient():
    return {"c": 2 * C * X[0] + np.sum(W * W * X), "w": 2 * C * W * X}


def test_hvp_and_hessian_follow_jax_layout():
    params = _params()
    v = {"c": 1.0, "w": np.array([0.5, 2.0]), "k": 0}
    hv = srcad.hvp(m.quadratic_mix, params, srcad.Constant(X), tangent=v)
    # H = [[2 x0, 2 w x], [2 w x, 2 c diag(x)]]
    assert hv["c"] == pytest.approx(2 * X[0] + np.sum(2 * W * X * v["w"]))
    np.testing.assert_allclose(hv["w"], 2 * W * X + 2 * C * X * v["w"])
    assert hv["k"] == 3  # a constant leaf is copied from x
    H = srcad.hessian(m.quadratic_mix, params, srcad.Constant(X))
    assert H["c"]["c"] == pytest.approx(2 * X[0])
    np.testing.assert_allclose(H["c"]["w"], 2 * W * X)
    np.testing.assert_allclose(H["w"]["c"], 2 * W * X)
    np.testing.assert_allclose(H["w"]["w"], 2 * C * np.diag(X))
    # one column per pass, into out= (filled in place and returned)
    out = srcad.hessian(m.quadratic_mix, params, srcad.Constant(X))
    out["w"]["w"] += 5.0
    got = srcad.hessian(m.quadratic_mix, params, srcad.Constant(X), chunk=1, out=out)
    assert got is out
    np.testing.assert_allclose(out["w"]["w"], 2 * C * np.diag(X))
    prep = srcad.prepare_hvp(m.quadratic_mix, params, srcad.Constant(X), tangent=v)
    again = srcad.hvp(m.quadratic_mix, params, srcad.Constant(X), tangent=v, prep=prep)
    np.testing.assert_allclose(again["w"], hv["w"])


def _shifted(params, k, e, delta):
    """params with element e of float leaf k moved by delta (a new container)."""
    values = [v.copy() if isinstance(v, np.ndarray) else v for v in pytrees.leaves(params)]
    if isinstance(values[k], np.ndarray):
        values[k].reshape(-1)[e] += delta
    else:
        values[k] += delta
    return pytrees.unflatten(pytrees.treedef(params), values)


def test_hessian_of_nested_container_matches_central_differences_of_the_gradient():
    rng = np.random.default_rng(4)
    params = {"layers": [{"W": rng.normal(size=(2, 2)), "b": rng.normal(size=2)}],
              "out": [rng.normal(size=2), 0.3], "scale": 0.7}
    H = srcad.hessian(m.mlp_loss, params, srcad.Constant(X))
    h = 1e-5
    for k, leaf in enumerate(pytrees.leaves(params)):
        for e in range(np.size(leaf)):
            plus = srcad.gradient(m.mlp_loss, _shifted(params, k, e, h), srcad.Constant(X))
            minus = srcad.gradient(m.mlp_loss, _shifted(params, k, e, -h), srcad.Constant(X))
            for i, (g_plus, g_minus) in enumerate(zip(pytrees.leaves(plus),
                                                      pytrees.leaves(minus))):
                block = pytrees.leaves(_row(H, params, i))[k]
                got = np.reshape(block, np.shape(g_plus) + (-1,))[..., e]
                np.testing.assert_allclose(got, (np.asarray(g_plus) - g_minus) / (2 * h),
                                           rtol=1e-5, atol=1e-7)
    assert H["scale"]["scale"] == pytest.approx(2.0)  # d^2 (scale^2) / d scale^2


def _row(H, params, i):
    """Leaf i's row of H (a container like params)."""
    return pytrees.get(H, pytrees.paths(pytrees.treedef(params))[i])


def test_vector_mode_jacobian_with_chunk_matches_reverse_and_hand_values():
    params = _params()
    for options in ({"chunk": 2}, {"chunk": 1}, {"mode": "forward"}, {"mode": "reverse"}):
        grad = srcad.jacobian(m.quadratic_mix, params, srcad.Constant(X), **options)
        assert grad["c"] == pytest.approx(_hand_gradient()["c"])
        np.testing.assert_allclose(grad["w"], _hand_gradient()["w"])
    grad = srcad.gradient(m.quadratic_mix, params, srcad.Constant(X), mode="forward", chunk=2)
    np.testing.assert_allclose(grad["w"], _hand_gradient()["w"])
    with pytest.raises(srcad.ArgumentError, match="chunk= sets the tangent lanes"):
        srcad.gradient(m.quadratic_mix, params, srcad.Constant(X), chunk=2)
    # a tuple output: one jacobian per value, each in x's structure
    s_jac, y_jac = srcad.jacobian(m.two_outputs, params, srcad.Constant(X), chunk=2)
    assert s_jac["c"] == pytest.approx(np.sum(W * X))
    np.testing.assert_allclose(s_jac["w"], C * X)
    np.testing.assert_allclose(y_jac["c"], W)
    np.testing.assert_allclose(y_jac["w"], C * np.eye(2))


@pytest.mark.slow  # among the slowest of make test (numba or long runs): make test-all
def test_numba_jacobian_lanes_and_second_order():
    params = _params()
    s_jac, y_jac = srcad.jacobian(m.two_outputs, params, srcad.Constant(X), chunk=2,
                                  backend="numba")
    np.testing.assert_allclose(s_jac["w"], C * X)
    np.testing.assert_allclose(y_jac["w"], C * np.eye(2))
    # second order: reverse over forward on numba, the python backend's layout and values
    got = srcad.hessian(m.quadratic_mix, params, srcad.Constant(X), backend="numba")
    want = srcad.hessian(m.quadratic_mix, params, srcad.Constant(X))
    assert pytrees.treedef(got) == pytrees.treedef(want)
    for g, w in zip(pytrees.leaves(got), pytrees.leaves(want)):
        np.testing.assert_allclose(g, w, rtol=1e-12, atol=1e-12)
    with pytest.raises(srcad.ArgumentError, match="derivative takes a float x"):
        srcad.derivative(m.quadratic_mix, params, srcad.Constant(X))


def test_pushforward_of_several_tangents_in_one_call():
    params = _params()
    dc = {"c": 1.0, "w": np.zeros(2), "k": 0}
    dw0 = {"c": 0.0, "w": np.array([1.0, 0.0]), "k": 0}
    (s_c, y_c), (s_w, y_w) = srcad.pushforward(m.two_outputs, params, srcad.Constant(X),
                                               tangent=(dc, dw0))
    assert s_c == pytest.approx(np.sum(W * X)) and s_w == pytest.approx(X[0] * C)
    np.testing.assert_allclose(y_c, W)
    np.testing.assert_allclose(y_w, [C, 0.0])
    with pytest.raises(srcad.ArgumentError, match="memory= with a container"):
        srcad.gradient(m.quadratic_mix, params, srcad.Constant(X), memory="1MB")
