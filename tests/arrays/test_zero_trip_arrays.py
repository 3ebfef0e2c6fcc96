"""A local array bound only inside a loop that runs zero times: reverse mode makes its adjoint
at the top of the reverse sweep from the array the loop left, and once raised
UnboundLocalError when the loop left none (srcad/transform/defined.py gives it an empty array
of its rank at entry). Checked with zero and with several trips, in every mode and by the
operators, against finite differences and gradients derived by hand."""

import numpy as np

import srcad
from srcad import Constant, Duplicated
from srcad.testing import check_grads


def squares_summed_n_times(x, n):
    s = 0.0
    for _k in range(n):
        a = x * x
        s += np.sum(a)
    return s + x[0]


def matrix_in_inner_loop(x, n, m):
    s = x[0] * x[1]
    for i in range(n):
        for _j in range(m):  # m = 0: the inner loop never binds b
            b = np.outer(x, x) * (i + 1.0)
            s += b[0, 1]
    return s


def bound_while_positive(x, t):
    s = 0.0
    while t > 0.0:
        w = np.exp(x) * t
        s += w[1]
        t -= 1.0
    return s + x[2]


X = np.array([0.3, -0.7, 1.1, 0.4])
V = np.array([0.5, -1.0, 2.0, 0.25])


def _dup(a):
    return Duplicated(a.copy(), np.zeros_like(a))


def test_array_bound_in_a_loop_that_runs_zero_times():
    e0 = np.eye(4)[0]
    for n in (0, 2):
        check_grads(squares_summed_n_times, _dup(X), n)
        # n sum x^2 + x_0: gradient 2 n x + e_0, Hessian 2 n I
        want = 2.0 * n * X + e0
        args = (_dup(X), n)
        srcad.autodiff(srcad.Reverse, squares_summed_n_times, *args)
        np.testing.assert_allclose(args[0].shadow, want, rtol=1e-14)
        np.testing.assert_allclose(srcad.gradient(squares_summed_n_times, X, Constant(n)),
                                   want, rtol=1e-14)
        np.testing.assert_allclose(
            srcad.hvp(squares_summed_n_times, X, Constant(n), tangent=V), 2.0 * n * V,
            rtol=1e-14)


def test_matrix_bound_in_an_inner_loop_that_runs_zero_times():
    for m in (0, 1):
        check_grads(matrix_in_inner_loop, _dup(X), 2, m)
        # x_0 x_1 (1 + m (1 + 2))
        scale = 1.0 + 3.0 * m
        want = np.array([X[1], X[0], 0.0, 0.0]) * scale
        np.testing.assert_allclose(srcad.gradient(matrix_in_inner_loop, X, Constant(2),
                                                  Constant(m)), want, rtol=1e-14)


def test_array_bound_in_a_while_loop_that_runs_zero_times():
    for t in (0.0, 2.0):
        check_grads(bound_while_positive, _dup(X), t)
        # t = 2: exp(x_1) (2 + 1); t = 0: only x_2
        want = np.array([0.0, np.exp(X[1]) * (t + max(t - 1.0, 0.0)), 1.0, 0.0])
        np.testing.assert_allclose(srcad.gradient(bound_while_positive, X, Constant(t)),
                                   want, rtol=1e-14)


def test_numba_array_bound_in_a_loop_that_runs_zero_times():
    # the empty array at entry must unify with the loop's arrays in numba's types (reverse
    # mode is where the adjoint is made; the other modes are unchanged)
    check_grads(squares_summed_n_times, _dup(X), 0, backend="numba", modes=("rev",))
    args = (_dup(X), 0)
    srcad.autodiff(srcad.Reverse, squares_summed_n_times, *args, backend="numba")
    np.testing.assert_allclose(args[0].shadow, np.eye(4)[0], rtol=1e-14)
