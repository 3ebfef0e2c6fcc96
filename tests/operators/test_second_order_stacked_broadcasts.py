"""Second order through srcad's own broadcasting code of stacked matrices: the reverse code
of `A @ np.swapaxes(A, -1, -2) + 2.0 * np.eye(2)` (A of shape (2, 2, 2)) names the shape it
unbroadcasts to as `np.broadcast_shapes(...) + A.shape[1:2] + (A.shape[1],)`, a shape the
types analysis reads as one (srcad/analysis/types.py), so that code is differentiated again:
a Hessian through a stacked Cholesky and np.swapaxes, checked against JAX and against central
differences of srcad's gradient. (The numba backend has no gradient of a stacked Cholesky:
its second order is refused by line, as its first order is.)
"""

import numpy as np
import pytest

import srcad

jax = pytest.importorskip("jax")
jnp = pytest.importorskip("jax.numpy")

from helpers.jax_reference import central, jax_in_float64  # noqa: E402, F401


def stacked_cholesky(x, np=np):
    A = np.reshape(x, (2, 2, 2))
    S = A @ np.swapaxes(A, -1, -2) + 2.0 * np.eye(2)
    L = np.linalg.cholesky(S)
    M = L @ np.swapaxes(L, -1, -2)
    return np.sum(M * M) + np.sum(np.log(np.diagonal(L, axis1=-2, axis2=-1)))


def swapped_factor(x, np=np):
    A = np.reshape(x, (2, 2, 2))
    S = A @ np.swapaxes(A, -1, -2) + 2.0 * np.eye(2)
    L = np.linalg.cholesky(S)
    return np.sum(np.swapaxes(L, -1, -2) ** 2 * np.arange(4.0).reshape(2, 2))


def plain_stacked_product(x):
    A = np.reshape(x, (2, 2, 2))
    return np.sum((A @ np.swapaxes(A, -1, -2) + 2.0 * np.eye(2)) ** 2)


X = np.linspace(0.1, 0.8, 8)


@pytest.mark.slow  # second order through a stacked cholesky: seconds to build
@pytest.mark.parametrize("f", [stacked_cholesky, swapped_factor], ids=lambda f: f.__name__)
def test_hessian_through_a_stacked_cholesky_and_swapaxes_is_jaxs(f):
    def ours(x):
        return f(x)

    hessian = srcad.hessian(ours)(X)
    np.testing.assert_allclose(hessian, jax.hessian(lambda x: f(x, jnp))(X), rtol=1e-9,
                               atol=1e-9)
    np.testing.assert_allclose(hessian, central(srcad.grad(ours), X), rtol=1e-6, atol=1e-6)


def test_hvp_of_a_stacked_product_plus_a_matrix_is_jaxs():
    v = np.linspace(-1.0, 1.0, 8)
    ours = srcad.jvp(srcad.grad(plain_stacked_product), (X,), (v,))[1]

    def theirs(x):
        A = jnp.reshape(x, (2, 2, 2))
        return jnp.sum((A @ jnp.swapaxes(A, -1, -2) + 2.0 * jnp.eye(2)) ** 2)

    np.testing.assert_allclose(ours, jax.jvp(jax.grad(theirs), (X,), (v,))[1], rtol=1e-9,
                               atol=1e-9)
