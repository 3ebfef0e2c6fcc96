"""Whole-array programs meet the function transforms, the second-order operators and the
alias analysis (srcad/analysis/writes.py).

Expected Jacobians are derived by hand: d/dx (sin(x) x + 2x) = diag(sin x + x cos x + 2), and
for y = tanh(W x), dy_i/dx_k = (1 - y_i^2) W_ik and dy_i/dW_jk = [i = j] (1 - y_i^2) x_k.
Writes through a view NumPy makes without a copy (`x.reshape`, `x.T`, `np.asarray(x)`) changed
the array behind srcad's back: the derivative was silently wrong (the values in the comments
are what srcad returned, next to the right ones) and a Constant was modified.
"""

import numpy as np
import pytest

import srcad
from srcad import ArgumentError, Constant, Duplicated, UnsupportedSyntaxError

X = np.array([0.3, -1.2, 2.0])
W = np.array([[1.0, 2.0, 0.5], [0.1, -1.0, 3.0]])


def elementwise(x):
    y = np.sin(x) * x + 2.0 * x
    return y


def layer(x, W):
    y = np.tanh(W @ x)
    return y


def squared_norm_of_tanh(x):
    return np.sum(np.tanh(x) ** 2)


# -- transforms --------------------------------------------------------------------------------
@pytest.mark.parametrize("transform", [srcad.jacfwd, srcad.jacrev])
def test_jacobian_transforms_of_whole_array_functions(transform):
    np.testing.assert_allclose(transform(elementwise)(X),
                               np.diag(np.sin(X) + X * np.cos(X) + 2.0), rtol=1e-14)
    y = np.tanh(W @ X)
    np.testing.assert_allclose(transform(layer)(X, W), (1.0 - y ** 2)[:, None] * W,
                               rtol=1e-13)
    expected = np.einsum("ij,k->ijk", np.diag(1.0 - y ** 2), X)
    np.testing.assert_allclose(transform(layer, argnums=1)(X, W), expected, rtol=1e-13,
                               atol=1e-15)


def test_grad_of_a_whole_array_loss_and_refusal_of_an_array_result():
    np.testing.assert_allclose(srcad.grad(squared_norm_of_tanh)(X),
                               2.0 * np.tanh(X) * (1.0 - np.tanh(X) ** 2), rtol=1e-14)
    for transform in (srcad.grad, srcad.value_and_grad):
        with pytest.raises(ArgumentError, match="needs a function returning a float"):
            transform(elementwise)(X)


def returns_filled_array(x):
    y = np.zeros(len(x))
    for i in range(len(x)):
        y[i] = np.sin(x[i]) * x[i] + 2.0 * x[i]
    return y


def test_second_order_of_an_array_result():
    # the transform gives JAX's layout (out + in + in): y_i depends on x_i alone, with second
    # derivative 2 cos x - x sin x
    H = srcad.hessian(returns_filled_array)(X)
    expected = np.zeros((3, 3, 3))
    expected[np.arange(3), np.arange(3), np.arange(3)] = 2 * np.cos(X) - X * np.sin(X)
    np.testing.assert_allclose(H, expected, rtol=1e-12, atol=1e-14)
    # the operators take float-valued f (forward over reverse once differentiated the sum of
    # the entries: hessian gave diag(2 cos x - x sin x) for this f)
    for call in (lambda: srcad.hessian(returns_filled_array, X),
                 lambda: srcad.hvp(returns_filled_array, X, tangent=np.ones(3))):
        with pytest.raises(ArgumentError, match="needs f to return a float"):
            call()


# -- writes through views ----------------------------------------------------------------------
def reshape_view_write(x):
    y = x.reshape(-1)
    y[0] = y[0] * y[1]
    return np.sum(x * x)


def transpose_view_write(x):
    y = x.T
    y[0, 1] = y[0, 1] * 3.0
    return np.sum(x)


def asarray_view_write(x):
    y = np.asarray(x)
    y[0] = y[0] * y[0]
    return np.sum(x)


def constant_written_through_a_view(x, c):
    d = c.reshape(-1)
    d[0] = x[0] * 2.0
    return np.sum(c * x)


@pytest.mark.parametrize("f, value, view", [
    # gradient given [4, 4, 6, 8] for [8, 8, 6, 8]
    (reshape_view_write, np.array([[1.0, 2.0], [3.0, 4.0]]), "y"),
    # gradient given [1, 1, 1, 1] for [1, 1, 3, 1]
    (transpose_view_write, np.array([[1.0, 2.0], [3.0, 4.0]]), "y"),
    # gradient given [1, 1, 1] for [3, 1, 1]
    (asarray_view_write, np.array([1.5, -2.0, 0.7]), "y"),
])
def test_writes_through_a_view_are_refused(f, value, view):
    for mode in (srcad.Reverse, srcad.Forward):
        with pytest.raises(UnsupportedSyntaxError, match=f"`{view}` is a second name"):
            srcad.autodiff(mode, f, Duplicated(value.copy(), np.zeros_like(value)))


def test_a_constant_written_through_a_view_is_refused_and_left_unchanged():
    c = np.ones(3)
    with pytest.raises(UnsupportedSyntaxError, match="`d` is a second name for the array `c`"):
        srcad.gradient(constant_written_through_a_view, X.copy(), Constant(c))
    np.testing.assert_array_equal(c, np.ones(3))
