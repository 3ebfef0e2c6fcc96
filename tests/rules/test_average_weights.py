"""np.average with weights= (by name or by position): the weights are an operand, shaped
like the array or a vector along the one axis given; every mode against central
differences, and the gradient against jax.numpy.average."""

import numpy as np
import pytest

import srcad
from srcad.errors import SrcadError
from srcad.testing import check_grads

X = np.array([[0.5, 1.2, 2.0], [1.5, 0.7, -0.9]])
W = np.array([[1.0, 2.0, 0.5], [0.3, 1.0, 2.0]])
ROW = np.array([0.4, 1.1, 2.0])


def all_elements(x, w):
    return np.average(x, weights=w) ** 2


def by_position(x, w):
    return np.sum(np.average(x, 1, w) * np.array([1.0, -2.0]))


def vector_along_axis(x, w):
    return np.sum(np.average(x, axis=-1, weights=w) * np.array([1.0, -2.0]))


def vector_along_first_axis(x, w):
    return np.sum(np.average(x.T, axis=0, weights=w + 1.0) ** 2)


def kept_dims(x, w):
    return np.sum(np.average(x, axis=0, weights=w, keepdims=True) * X)


def tuple_axis(x, w):
    return np.average(x * x, axis=(0, 1), weights=w)


CASES = [(all_elements, W), (by_position, W), (vector_along_axis, ROW),
         (vector_along_first_axis, ROW), (kept_dims, W), (tuple_axis, W)]


@pytest.mark.parametrize("f, w", CASES, ids=[c[0].__name__ for c in CASES])
def test_weighted_average_agrees_with_finite_differences(f, w):
    check_grads(f, srcad.Duplicated(X.copy(), np.zeros_like(X)),
                srcad.Duplicated(w.copy(), np.zeros_like(w)))


def test_weighted_average_agrees_with_jax():
    jax = pytest.importorskip("jax")
    jax.config.update("jax_enable_x64", True)
    jnp = jax.numpy

    def theirs(x, w):
        return jnp.sum(jnp.average(x, axis=-1, weights=w) * jnp.array([1.0, -2.0]))
    ours = srcad.grad(vector_along_axis, argnums=(0, 1))(X, ROW)
    for a, b in zip(ours, jax.grad(theirs, argnums=(0, 1))(X, ROW)):
        np.testing.assert_allclose(a, np.asarray(b), rtol=1e-12)


def returned(x, w):
    return np.average(x, weights=w, returned=True)[0]


def test_returned_is_refused_by_name():
    with pytest.raises(SrcadError, match="returned"):
        srcad.grad(returned)(X, W)
