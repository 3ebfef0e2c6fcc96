"""np.cumprod along an axis of a matrix or a stack (lane by lane), in every mode against
central differences, exact where lanes hold zeros, and against JAX."""

import numpy as np
import pytest

import srcad
from srcad.testing import check_grads

X = np.sin(np.arange(12.0)).reshape(3, 4) + 0.3
WITH_ZEROS = X.copy()
WITH_ZEROS[1, 2] = WITH_ZEROS[2, 1] = WITH_ZEROS[2, 3] = 0.0  # one lane holds two zeros


def down_the_columns(x):
    return np.sum(np.sin(np.cumprod(x, axis=0)))


def along_the_rows(x):
    return np.sum(np.cumprod(x, axis=-1) * np.arange(12.0).reshape(3, 4))


def flattened(x):
    return np.sum(np.cumprod(x))


@pytest.mark.parametrize("f", [down_the_columns, along_the_rows])
@pytest.mark.parametrize("x", [X, WITH_ZEROS], ids=["nonzero", "zeros"])
def test_cumprod_along_an_axis_agrees_with_finite_differences(f, x):
    check_grads(f, srcad.Duplicated(x.copy(), np.zeros_like(x)))


def test_cumprod_along_an_axis_agrees_with_jax():
    jax = pytest.importorskip("jax")
    jax.config.update("jax_enable_x64", True)
    jnp = jax.numpy
    expected = jax.grad(lambda x: jnp.sum(jnp.cumprod(x, axis=-1) * jnp.arange(12.0)
                                          .reshape(3, 4)))(WITH_ZEROS)
    np.testing.assert_allclose(srcad.gradient(along_the_rows, WITH_ZEROS), expected,
                               rtol=1e-13, atol=1e-15)


def test_cumprod_of_a_matrix_without_axis_is_the_scan_of_its_ravel():
    """NumPy flattens x (it was refused); with zeros, as JAX computes it."""
    check_grads(flattened, srcad.Duplicated(WITH_ZEROS.copy(), np.zeros_like(X)))
    jax = pytest.importorskip("jax")
    jax.config.update("jax_enable_x64", True)
    expected = jax.grad(lambda x: jax.numpy.sum(jax.numpy.cumprod(x)))(WITH_ZEROS)
    np.testing.assert_allclose(srcad.gradient(flattened, WITH_ZEROS), expected, rtol=1e-13,
                               atol=1e-15)
