"""Parameter containers: a dict, list or tuple of arrays and floats as the differentiated
argument of autodiff, the operators and the transforms (srcad/frontend/pytrees.py,
srcad/operators/containers/container_calls.py, srcad/operators/containers/container_operators.py,
srcad/transform/normalize/containers.py)."""

import os
import traceback

import numpy as np
import pytest

import srcad
from srcad.testing import check_grads
from tests.helpers import container_models as m

X = np.array([0.5, -1.0])


def _mlp_params(seed=0):
    rng = np.random.default_rng(seed)
    return {"layers": [{"W": rng.normal(size=(2, 2)), "b": rng.normal(size=2)},
                       {"W": rng.normal(size=(2, 2)), "b": rng.normal(size=2)}],
            "out": [rng.normal(size=2), 0.3], "scale": 0.7}


def _scalar_params(seed=1):
    rng = np.random.default_rng(seed)
    return {"W": rng.normal(size=(3, 2)), "b": rng.normal(size=3),
            "v": rng.normal(size=3), "c": 0.4}


def test_reverse_dict_of_float_and_array_matches_hand_derivative():
    params = {"a": 1.5, "b": np.array([2.0, 3.0])}
    shadow = srcad.tree_zeros_like(params)
    result = srcad.autodiff(srcad.Reverse, m.simple, srcad.Duplicated(params, shadow), X)
    assert result == (None, None)
    # d/da (a x0 + b1 a) = x0 + b1; d/db1 = a
    assert shadow["a"] == pytest.approx(0.5 + 3.0)
    np.testing.assert_allclose(shadow["b"], [0.0, 1.5])


def test_reverse_lanes_beside_a_container_are_refused_as_such():
    params = {"a": 1.5, "b": np.array([2.0, 3.0])}
    lanes = [srcad.tree_zeros_like(params) for _ in range(2)]
    with pytest.raises(srcad.ArgumentError, match="beside a container of parameters"):
        srcad.autodiff(srcad.Reverse, m.simple, srcad.BatchDuplicated(params, lanes), X,
                       seed=[1.0, -2.5])
    x_lanes = [np.zeros_like(X) for _ in range(2)]  # the container a constant: the same
    with pytest.raises(srcad.ArgumentError, match="beside a container of parameters"):
        srcad.autodiff(srcad.Reverse, m.simple, params, srcad.BatchDuplicated(X, x_lanes),
                       seed=[1.0, -2.5])


def test_nested_containers_helpers_loops_and_unpacking_all_modes():
    params = _mlp_params()
    check_grads(m.mlp_loss, srcad.Duplicated(params, srcad.tree_zeros_like(params)), X)


def test_tuple_parameter_unpacked():
    params = (np.array([1.0, 2.0]), 0.25)
    check_grads(m.tuple_params, srcad.Duplicated(params, (np.zeros(2), 0.0)), X,
                modes=("fwd", "vec"))
    shadow = [np.zeros(2), 0.0]
    srcad.autodiff(srcad.Reverse, m.tuple_params, srcad.Duplicated(list(params), shadow), X)
    np.testing.assert_allclose(shadow[0], X * X)
    assert shadow[1] == 1.0


def test_numba_backend():
    params = _scalar_params()
    check_grads(m.scalar_loss, srcad.Duplicated(params, srcad.tree_zeros_like(params)), X, 0.5,
                backend="numba")


def test_operators_return_the_structure_of_x():
    params = _scalar_params()
    grad = srcad.gradient(m.scalar_loss, params, srcad.Constant(X), srcad.Constant(0.5))
    shadow = srcad.tree_zeros_like(params)
    srcad.autodiff(srcad.Reverse, m.scalar_loss, srcad.Duplicated(params, shadow), X, 0.5)
    assert sorted(grad) == ["W", "b", "c", "v"]
    assert grad["c"] == pytest.approx(2 * 0.5 * 0.4)  # d/dc lam c^2
    for key in ("W", "b", "v"):
        np.testing.assert_allclose(grad[key], shadow[key], rtol=1e-14)
    # out= is filled in place and returned; a prepared call takes the same path
    prep = srcad.prepare_gradient(m.scalar_loss, params, srcad.Constant(X), srcad.Constant(0.5))
    out = srcad.tree_zeros_like(params)
    out["W"] += 7.0  # stale contents are overwritten
    value, got = srcad.value_and_gradient(m.scalar_loss, params, srcad.Constant(X),
                                          srcad.Constant(0.5), prep=prep, out=out)
    assert got is out and value == pytest.approx(m.scalar_loss(params, X, 0.5))
    np.testing.assert_allclose(out["W"], grad["W"], rtol=1e-14)
    with pytest.raises(srcad.PreparationMismatchError):
        srcad.gradient(m.scalar_loss, {"W": params["W"], "b": params["b"], "v": params["v"]},
                       srcad.Constant(X), srcad.Constant(0.5), prep=prep)


def test_jacobian_pullback_pushforward_of_array_output():
    params = {"a": 2.0, "w": np.array([3.0, -1.0])}
    x = np.array([0.5, 4.0])
    for mode in ("forward", "reverse"):
        jac = srcad.jacobian(m.outputs, params, srcad.Constant(x), mode=mode)
        # y0 = a x0 x1, y1 = a w0 + w1 x0
        np.testing.assert_allclose(jac["a"], [x[0] * x[1], params["w"][0]])
        np.testing.assert_allclose(jac["w"], [[0.0, 0.0], [params["a"], x[0]]])
    u = np.array([1.5, -2.0])
    vjp = srcad.pullback(m.outputs, params, srcad.Constant(x), cotangent=u)
    assert vjp["a"] == pytest.approx(u @ [x[0] * x[1], params["w"][0]])
    np.testing.assert_allclose(vjp["w"], [u[1] * params["a"], u[1] * x[0]])
    v = {"a": 0.5, "w": np.array([1.0, 2.0])}
    jvp = srcad.pushforward(m.outputs, params, srcad.Constant(x), tangent=v)
    np.testing.assert_allclose(jvp, [0.5 * x[0] * x[1], 0.5 * 3.0 + 2.0 * 1.0 + 2.0 * x[0]])


def test_grad_transform_takes_a_container():
    params = _mlp_params(3)
    grad = srcad.grad(m.mlp_loss)(params, X)
    shadow = srcad.tree_zeros_like(params)
    srcad.autodiff(srcad.Reverse, m.mlp_loss, srcad.Duplicated(params, shadow), X)
    assert grad["out"][1] == pytest.approx(1.0)  # d/db of ... + b
    assert grad["scale"] == pytest.approx(2 * 0.7)
    np.testing.assert_allclose(grad["layers"][1]["W"], shadow["layers"][1]["W"], rtol=1e-14)


def test_operators_take_keyword_arguments_of_f_as_constants():
    x = np.array([1.0, 2.0])

    def loss(x, lam, scale=3.0):
        return lam * scale * (x[0] * x[0] + x[1])
    # d/dx = lam * scale * [2 x0, 1]
    np.testing.assert_allclose(srcad.gradient(loss, x, lam=0.5), [3.0, 1.5])
    np.testing.assert_allclose(srcad.gradient(loss, x, lam=0.5, scale=1.0), [1.0, 0.5])
    prep = srcad.prepare_gradient(loss, x, lam=0.5)
    np.testing.assert_allclose(srcad.gradient(loss, x, lam=0.5, prep=prep), [3.0, 1.5])
    with pytest.raises(srcad.ArgumentError, match="no parameter `lamb`"):
        srcad.gradient(loss, x, lamb=0.5)


def test_refusals_name_the_line():
    params = [np.array([1.0]), 2.0]
    with pytest.raises(srcad.UnsupportedSyntaxError, match="container_models.py:.*not a "
                       "constant"):
        srcad.autodiff(srcad.Reverse, m.computed_index,
                       srcad.Duplicated(params, srcad.tree_zeros_like(params)), 1)
    with pytest.raises(srcad.ArgumentError, match="Duplicated"):
        srcad.autodiff(srcad.Reverse, m.simple, srcad.Active(params), X)
    with pytest.raises(srcad.ArgumentError, match="tuple"):
        srcad.autodiff(srcad.Reverse, m.tuple_params,
                       srcad.Duplicated((np.ones(2), 0.5), (np.zeros(2), 0.0)), X)
    with pytest.raises(srcad.ArgumentError, match="second_derivative takes a float"):
        srcad.second_derivative(m.simple, {"a": 1.0, "b": np.ones(2)}, srcad.Constant(X))


ITERATED = {"layers": [{"w": np.array([0.5, 0.2]), "b": 0.1},
                       {"w": np.array([0.3, -0.4]), "b": 0.2}],
            "ws": [0.5, 1.5], "nested": [[0.3, 0.6]]}


@pytest.mark.parametrize("backend", ["python", "numba"])
def test_loop_over_a_list_inside_a_container_argument(backend):
    params = ITERATED
    check_grads(m.iterate_entries, srcad.Duplicated(params, srcad.tree_zeros_like(params)), X,
                backend=backend)
    # by hand: s = (t0 + t1) * 0.5 * 1 * 1.5 * 2 + 0.3^2 + 0.6^2, t_l = sum_i tanh(w_l,i x_i + b_l)
    grad = srcad.gradient(m.iterate_entries, params, srcad.Constant(X), backend=backend)
    u = [np.array([0.5, 0.2]) * X + 0.1, np.array([0.3, -0.4]) * X + 0.2]
    t = [np.sum(np.tanh(v)) for v in u]
    np.testing.assert_allclose(grad["layers"][1]["w"], 1.5 * X / np.cosh(u[1]) ** 2)
    assert grad["layers"][0]["b"] == pytest.approx(1.5 * np.sum(1 / np.cosh(u[0]) ** 2))
    assert grad["ws"][0] == pytest.approx((t[0] + t[1]) * 3.0)
    assert grad["nested"][0] == pytest.approx([0.6, 1.2])


def test_refusals_spell_leaves_as_the_user_does():
    params = {"w": np.array([1.0, 2.0])}
    line = m.leaf_in_library_call.__code__.co_firstlineno + 1
    with pytest.raises(srcad.SrcadError, match=rf"container_models.py:{line}:") as err:
        srcad.gradient(m.leaf_in_library_call, params, srcad.Constant(X))
    assert "params['w']" in str(err.value) and "params_w" not in str(err.value)


def test_iterating_over_a_dict_is_refused_at_the_loop_and_the_traceback_ends_at_the_call():
    params = {"w": 1.5, "b": 2.0}
    line = m.iterate_dict.__code__.co_firstlineno + 2
    with pytest.raises(srcad.UnsupportedSyntaxError,
                       match=rf"container_models.py:{line}:5: container: a dict argument is read "
                       r"by constant string keys; iterating over it .* \(write its entries "
                       r"out: \['b'\], \['w'\]\)") as err:
        srcad.gradient(m.iterate_dict, params, srcad.Constant(X))
    frames = traceback.extract_tb(err.value.__traceback__)
    inside = [f for f in frames if f.filename.startswith(os.path.dirname(srcad.__file__))]
    assert len(inside) <= 1, [f.name for f in inside]  # the raise at the public call only
