"""An element or slice of a computed array (`np.mean(X, axis=0)[1]`, `(A @ x)[0]`,
`np.sum(X, axis=1)[i]`, `np.cumsum(x)[-1]`) is read from the array named first
(srcad/transform/normalize/computed_subscripts.py) and differentiated in every mode and by the
operators. Each gradient is checked against finite differences and forward against reverse
(`check_grads`), and against one derived by hand."""

import numpy as np
import pytest

import srcad
from srcad import Active, Constant, Duplicated
from srcad.errors import SrcadError
from srcad.testing import check_grads


def mean_entry(X):
    return np.mean(X, axis=0)[1] * X[0, 0]


def product_entry(A, x):
    return (A @ x)[0]


def squared_row_sums(X):
    s = 0.0
    for i in range(X.shape[0]):
        s += np.sum(X, axis=1)[i] ** 2
    return s


def last_partial_sum(x, a):
    return np.cumsum(x)[-1] * x[0] + (a * x)[1:] @ x[1:]


def entries(A, x):
    return np.array([(A @ x)[0], np.cumsum(x)[-1] * x[1], np.mean(A, axis=0)[1] * x[0]])


def chosen_entry(x, c):
    return (2.0 * x)[0] if c > 0.0 else x[1]  # one arm of a conditional: not named


X = np.array([0.3, -0.7, 1.1, 0.4])
A = np.array([[0.3, -0.7, 1.1, 0.4], [0.2, 0.5, -0.4, 0.9]])


def _dup(a):
    return Duplicated(a.copy(), np.zeros_like(a))


def _reverse_gradients(f, *args):
    args = [_dup(a) if isinstance(a, np.ndarray) else a for a in args]
    srcad.autodiff(srcad.Reverse, f, *args)
    return [a.shadow for a in args if isinstance(a, Duplicated)]


def test_element_of_a_mean():
    # (A_01 + A_11) / 2 * A_00
    check_grads(mean_entry, _dup(A))
    want = np.zeros_like(A)
    want[0, 0] = (A[0, 1] + A[1, 1]) / 2.0
    want[0, 1] = want[1, 1] = A[0, 0] / 2.0
    np.testing.assert_allclose(_reverse_gradients(mean_entry, A)[0], want, rtol=1e-14)
    np.testing.assert_allclose(srcad.gradient(mean_entry, A, mode="forward"), want,
                               rtol=1e-14)


def test_element_of_a_product_with_mixed_annotations():
    # sum_j A_0j x_j: d/dx = A[0], d/dA = x in row 0
    check_grads(product_entry, _dup(A), _dup(X))
    check_grads(product_entry, A.copy(), _dup(X))  # A Const
    check_grads(product_entry, _dup(A), X.copy())  # x Const
    d_a, d_x = _reverse_gradients(product_entry, A, X)
    np.testing.assert_allclose(d_x, A[0], rtol=1e-14)
    np.testing.assert_allclose(d_a, np.vstack([X, np.zeros(4)]), rtol=1e-14)
    np.testing.assert_allclose(srcad.gradient(product_entry, Constant(A), X), A[0], rtol=1e-14)


def test_element_of_a_row_sum_inside_a_loop():
    # sum_i (sum_j X_ij)^2: gradient 2 (row sum i) on row i; Hessian 2 on each row block
    check_grads(squared_row_sums, _dup(A))
    want = 2.0 * np.repeat(A.sum(axis=1, keepdims=True), 4, axis=1)
    np.testing.assert_allclose(_reverse_gradients(squared_row_sums, A)[0], want, rtol=1e-14)
    tangent = np.arange(8.0).reshape(2, 4)
    np.testing.assert_allclose(srcad.hvp(squared_row_sums, A, tangent=tangent),
                               2.0 * np.repeat(tangent.sum(axis=1, keepdims=True), 4, axis=1),
                               rtol=1e-14)


def test_last_partial_sum_and_a_slice_of_a_product():
    # sum(x) x_0 + a sum_{i>=1} x_i^2
    a = 0.7
    check_grads(last_partial_sum, _dup(X), Active(a))
    check_grads(last_partial_sum, _dup(X), a)
    want = X[0] + 2.0 * a * X * (np.arange(4) >= 1)
    want[0] += X.sum()
    np.testing.assert_allclose(srcad.gradient(last_partial_sum, X, Constant(a)), want,
                               rtol=1e-13)
    d_a = srcad.autodiff(srcad.Reverse, last_partial_sum, X.copy(), Active(a))[1]
    assert d_a == pytest.approx(X[1:] @ X[1:], rel=1e-14)


def test_jacobian_of_computed_entries():
    # rows: A[0]; x_1 + sum(x) e_1; (A_01 + A_11) / 2 e_0
    want = np.zeros((3, 4))
    want[0] = A[0]
    want[1] = X[1]
    want[1, 1] += X.sum()
    want[2, 0] = (A[0, 1] + A[1, 1]) / 2.0
    for mode in ("forward", "reverse"):
        np.testing.assert_allclose(srcad.jacobian(entries, Constant(A), X, mode=mode), want,
                                   rtol=1e-14)


def test_an_arm_of_a_conditional_stays_refused():
    # naming it would compute it on both paths
    with pytest.raises(SrcadError, match="whole-array") as refused:
        srcad.autodiff(srcad.Reverse, chosen_entry, _dup(X), 1.0)
    assert refused.value.filename == __file__


@pytest.mark.slow  # among the slowest of make test (numba or long runs): make test-all
def test_numba_differentiates_elements_of_computed_arrays():
    check_grads(last_partial_sum, _dup(X), Active(0.7), backend="numba")
