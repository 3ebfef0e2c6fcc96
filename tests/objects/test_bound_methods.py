"""Bound methods differentiated with respect to their arguments: self's attributes are
constants, checked like globals (rebinding one rebuilds the code), methods of self inlined;
a method that assigns to self is refused by line."""

import jax
import jax.numpy as jnp
import numpy as np
import pytest

import srcad
from srcad.errors import SrcadError

jax.config.update("jax_enable_x64", True)


class Model:
    def __init__(self, scale, A):
        self.scale = scale
        self.A = A

    def predict(self, w):
        return self.A @ w

    def loss(self, w):
        r = self.predict(w) - 1.0
        return self.scale * np.sum(r * r)

    def counted_loss(self, w):
        self.calls += 1
        return np.sum(w)


A = np.array([[1.0, 2.0, 0.5], [0.3, -1.0, 2.0]])
W = np.array([0.2, -0.4, 1.1])


def _jax_grad(scale, A):
    return np.asarray(jax.grad(lambda w: scale * jnp.sum((A @ w - 1.0) ** 2))(W))


@pytest.mark.parametrize("mode", ["reverse", "forward"])
def test_bound_method_gradient_matches_jax(mode):
    m = Model(2.0, A)
    g = srcad.gradient(m.loss, W, mode=mode)
    np.testing.assert_allclose(g, _jax_grad(2.0, A), rtol=1e-10)
    np.testing.assert_allclose(srcad.grad(m.loss)(W), _jax_grad(2.0, A), rtol=1e-10)


def test_vector_mode_jacobian_of_a_bound_method():
    m = Model(2.0, A)
    np.testing.assert_allclose(srcad.jacobian(m.predict, W, mode="forward"), A)
    lanes = srcad.pushforward(m.predict, W, tangent=(np.eye(3)[0], np.eye(3)[2]))
    np.testing.assert_allclose(lanes[1], A[:, 2])


def test_rebinding_an_attribute_is_seen():
    m = Model(2.0, A)
    srcad.grad(m.loss)(W)
    m.scale = 3.0
    np.testing.assert_allclose(srcad.grad(m.loss)(W), _jax_grad(3.0, A), rtol=1e-10)
    m.A = 2 * A
    np.testing.assert_allclose(srcad.grad(m.loss)(W), _jax_grad(3.0, 2 * A), rtol=1e-10)


def test_two_instances_keep_their_own_attributes():
    m1, m2 = Model(1.0, A), Model(5.0, -A)
    np.testing.assert_allclose(srcad.grad(m1.loss)(W), _jax_grad(1.0, A), rtol=1e-10)
    np.testing.assert_allclose(srcad.grad(m2.loss)(W), _jax_grad(5.0, -A), rtol=1e-10)


@pytest.mark.slow
def test_bound_method_on_numba():
    m = Model(2.0, A)
    np.testing.assert_allclose(srcad.grad(m.loss, backend="numba")(W), _jax_grad(2.0, A),
                               rtol=1e-10)


def test_a_method_assigning_to_self_is_refused_by_line():
    m = Model(2.0, A)
    m.calls = 0
    with pytest.raises(SrcadError) as info:
        srcad.grad(m.counted_loss)(W)
    assert info.value.line == Model.counted_loss.__code__.co_firstlineno + 1
    assert "self.calls" in str(info.value)
