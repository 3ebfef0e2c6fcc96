"""float32 in, float32 out, in the raw `autodiff` results and per-example gradients too, as
JAX gives them (jax.jvp, jax.grad, jax.vmap(jax.grad)): forward mode's tangent has the type
of f's value, a reverse derivative of an `Active` float its input's type."""

import numpy as np

import srcad
from srcad import Active, BatchDuplicated, Duplicated


def f(x):
    return np.sum(np.sin(x) * x)


def scaled(a, x):
    return a * np.sum(x)


def both(x, y):
    return np.sum(x * y) + np.sum(np.cos(y))


X = np.array([0.3, -1.2, 2.0], dtype=np.float32)
V = np.array([1.0, 0.5, -2.0], dtype=np.float32)


def _jvp(x, v):  # f's directional derivative in float64, by hand
    x, v = x.astype(float), v.astype(float)
    return float(np.sum((np.cos(x) * x + np.sin(x)) * v))


def test_forward_tangent_has_the_value_type():
    tangent = srcad.autodiff(srcad.Forward, f, Duplicated(X, V))
    assert type(tangent) is np.float32
    assert abs(float(tangent) - _jvp(X, V)) < 1e-5
    assert type(srcad.autodiff(srcad.Forward, f, Duplicated(X.astype(float),
                                                             V.astype(float)))) is float


def test_vector_mode_lanes_have_the_value_type():
    lanes = srcad.autodiff(srcad.Forward, f, BatchDuplicated(X, (V, 2 * V)))
    assert lanes.dtype == np.float32
    assert np.allclose(lanes, [_jvp(X, V), _jvp(X, 2 * V)], atol=1e-5)


def test_reverse_active_float_has_its_input_type():
    for _ in range(2):  # the checked call, then the plan's fast path
        da, _dx = srcad.autodiff(srcad.Reverse, scaled, Active(np.float32(2.0)),
                                 Duplicated(X, np.zeros_like(X)))
        assert type(da) is np.float32 and abs(float(da) - float(np.sum(X))) < 1e-5
    da, _dx = srcad.autodiff(srcad.Reverse, scaled, Active(2.0),
                             Duplicated(X.astype(float), np.zeros(3)))
    assert type(da) is float


def test_vmap_of_grad_keeps_each_arguments_type():
    batch = np.stack([X, 2 * X])
    per_example = srcad.vmap(srcad.grad(f))(batch)
    assert per_example.dtype == np.float32
    x = batch.astype(float)
    assert np.allclose(per_example, np.cos(x) * x + np.sin(x), atol=1e-5)
    gx, gy = srcad.vmap(srcad.grad(both, argnums=(0, 1)))(batch, x)
    assert gx.dtype == np.float32 and gy.dtype == np.float64
    assert np.allclose(gx, x) and np.allclose(gy, x - np.sin(x), atol=1e-5)


def pair(x):
    return np.sum(np.sin(x) * x), np.cos(x) * 2.0


def test_forward_tangents_of_a_tuple_result_have_each_elements_type():
    for _ in range(2):  # the checked call, then the plan's fast path
        t_sum, t_cos = srcad.autodiff(srcad.Forward, pair, Duplicated(X, V))
        assert type(t_sum) is np.float32 and abs(float(t_sum) - _jvp(X, V)) < 1e-5
        assert t_cos.dtype == np.float32
        assert np.allclose(t_cos, -2.0 * np.sin(X.astype(float)) * V, atol=1e-5)
    s_lanes, c_lanes = srcad.autodiff(srcad.Forward, pair, BatchDuplicated(X, (V, 2 * V)))
    assert s_lanes.dtype == np.float32 and c_lanes.dtype == np.float32
    assert np.allclose(s_lanes, [_jvp(X, V), _jvp(X, 2 * V)], atol=1e-5)


def test_transforms_and_operators_of_a_tuple_result_keep_float32():
    # jax.jvp, jax.jacfwd and jax.jacrev of a float32 tuple function: float32 everywhere
    def square_and_sine(x):
        return x ** 2, np.sum(np.sin(x))

    value, tangent = srcad.jvp(square_and_sine, (X,), (V,))
    assert [np.asarray(t).dtype for t in tangent] == [np.float32, np.float32]
    assert type(tangent[1]) is np.float32
    assert abs(float(tangent[1]) - float(np.sum(np.cos(X.astype(float)) * V))) < 1e-5
    for jacobians in (srcad.jacfwd(square_and_sine)(X), srcad.jacrev(square_and_sine)(X),
                      srcad.jacobian(square_and_sine, X, mode="forward"),
                      srcad.jacobian(square_and_sine, X, mode="reverse")):
        assert [j.dtype for j in jacobians] == [np.float32, np.float32]
        np.testing.assert_allclose(jacobians[0], np.diag(2 * X), rtol=1e-6)
        np.testing.assert_allclose(jacobians[1], np.cos(X), rtol=1e-6)
