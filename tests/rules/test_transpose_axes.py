"""np.transpose(x, axes) with a literal permutation (by position, by name, and the method
x.transpose(1, 0, 2) or x.transpose((1, 0, 2))): the adjoint applies the inverse
permutation; every mode against central differences and against JAX."""

import numpy as np
import pytest

import srcad
from srcad.testing import check_grads

X = np.sin(np.arange(24.0)).reshape(2, 3, 4)
W = np.cos(np.arange(24.0))


def by_position(x):
    return np.sum(np.transpose(x, (0, 2, 1)).ravel() ** 2 * W)


def by_name(x):
    return np.sum(np.sin(np.transpose(x, axes=(2, 0, 1))).ravel() * W)


def method_listed(x):
    return np.sum(x.transpose(1, 0, 2).ravel() ** 3 * W)


def method_tuple(x):
    return np.sum(x.transpose((-1, 1, 0)).ravel() * W)


CASES = {by_position: (0, 2, 1), by_name: (2, 0, 1), method_listed: (1, 0, 2),
         method_tuple: (2, 1, 0)}


@pytest.mark.parametrize("f", list(CASES), ids=lambda f: f.__name__)
def test_transpose_with_axes_agrees_with_finite_differences(f):
    check_grads(f, srcad.Duplicated(X.copy(), np.zeros_like(X)))


def test_transpose_with_axes_agrees_with_jax():
    jax = pytest.importorskip("jax")
    jax.config.update("jax_enable_x64", True)
    jnp = jax.numpy
    expected = jax.grad(lambda x: jnp.sum(jnp.sin(jnp.transpose(x, (2, 0, 1))).ravel() * W))(X)
    np.testing.assert_allclose(srcad.gradient(by_name, X), expected, rtol=1e-13)
