"""Solvers and decompositions (np.linalg.solve, inv, det, slogdet, cholesky) and np.diag,
over a table of shapes, each checked by `check_grads` in forward, vector and reverse mode
against central finite differences (python backend). Each case weighs every element of the
result differently (`np.sum(c * e)`, `c` fixed and random)."""

import numpy as np
import pytest

import srcad
from srcad.testing import check_grads

RNG = np.random.default_rng(13)


def dup(x):
    return srcad.Duplicated(x, np.zeros_like(x))


def well_conditioned(n):
    return RNG.standard_normal((n, n)) + n * np.eye(n)


def spd(n):
    B = RNG.standard_normal((n, n))
    return B @ B.T + n * np.eye(n)


def weights(shape):
    return np.random.default_rng(17).standard_normal(shape)


def solve(A, b, c):
    return np.sum(c * np.linalg.solve(A, b))


def inverse(A, c):
    return np.sum(c * np.linalg.inv(A))


def determinant(A):
    return np.linalg.det(A) * np.linalg.det(A.T @ A)


def log_determinant(A):
    s, ld = np.linalg.slogdet(A)
    return s * ld + ld * ld


def cholesky_factor(A, c):
    L = np.linalg.cholesky(A)
    return np.sum(c * L)


def cholesky_of_a_product(B, c):
    # A symmetric by construction: the lower-triangle-only rule chains correctly through it
    L = np.linalg.cholesky(B @ B.T + 3.0 * np.eye(3))
    return np.sum(c * L * L)


def diagonals(v, A, c):
    return np.sum(c * np.diag(v) @ A) + np.sum(np.diag(A) ** 3) + np.trace(A) * np.sum(v)


def non_square_diagonal(A):
    return np.sum(np.exp(np.diag(A)))


CASES = [
    (solve, lambda: (dup(well_conditioned(3)), dup(RNG.standard_normal(3)), weights(3))),
    (solve, lambda: (dup(well_conditioned(3)), dup(RNG.standard_normal((3, 2))),
                     weights((3, 2)))),
    (solve, lambda: (dup(well_conditioned(4)), RNG.standard_normal(4), weights(4))),
    (solve, lambda: (well_conditioned(3), dup(RNG.standard_normal((3, 2))), weights((3, 2)))),
    (inverse, lambda: (dup(well_conditioned(3)), weights((3, 3)))),
    (determinant, lambda: (dup(well_conditioned(3)),)),
    (log_determinant, lambda: (dup(well_conditioned(3)),)),
    (log_determinant, lambda: (dup(-well_conditioned(3)),)),  # negative determinant
    (cholesky_factor, lambda: (dup(spd(3)), weights((3, 3)))),
    (cholesky_factor, lambda: (dup(spd(4) + np.triu(RNG.standard_normal((4, 4)), 1)),
                               weights((4, 4)))),  # NumPy reads only the lower triangle
    (cholesky_of_a_product, lambda: (dup(RNG.standard_normal((3, 3))), weights((3, 3)))),
    (diagonals, lambda: (dup(RNG.standard_normal(3)), dup(RNG.standard_normal((3, 3))),
                         weights((3, 3)))),
    (non_square_diagonal, lambda: (dup(RNG.standard_normal((4, 2))),)),
    (non_square_diagonal, lambda: (dup(RNG.standard_normal((2, 3))),)),
]


@pytest.mark.parametrize("f, args", CASES,
                         ids=[f"{f.__name__}-{k}" for k, (f, _) in enumerate(CASES)])
def test_linear_algebra(f, args):
    check_grads(f, *args())


def test_determinant_gradient_matches_the_cofactor_formula():
    A = well_conditioned(3)
    A_bar = np.zeros((3, 3))
    srcad.autodiff(srcad.Reverse, lambda_free_det, srcad.Duplicated(A, A_bar))
    np.testing.assert_allclose(A_bar, np.linalg.det(A) * np.linalg.inv(A).T, rtol=1e-12)


def lambda_free_det(A):
    return np.linalg.det(A)


def gaussian_log_likelihood(L_params, x):
    # a model written as users write it: a Cholesky solve and a log-determinant in a loop
    A = L_params @ L_params.T + np.eye(3)
    L = np.linalg.cholesky(A)
    total = 0.0
    for i in range(x.shape[0]):
        z = np.linalg.solve(L, x[i])
        total = total + np.dot(z, z)
    s, ld = np.linalg.slogdet(A)
    return 0.5 * total + 0.5 * x.shape[0] * ld + np.sum(np.log(np.diag(L)))


def test_gaussian_log_likelihood():
    check_grads(gaussian_log_likelihood, dup(RNG.standard_normal((3, 3))),
                dup(RNG.standard_normal((5, 3))))


def stacked_inverse(A):
    return np.sum(np.linalg.inv(A))


def test_stacks_of_matrices_differentiate():
    A = np.random.default_rng(0).normal(size=(2, 3, 3)) + 4.0 * np.eye(3)
    got = srcad.gradient(stacked_inverse, A)
    inverse_t = np.swapaxes(np.linalg.inv(A), -1, -2)
    np.testing.assert_allclose(got, -(inverse_t @ np.ones((2, 3, 3)) @ inverse_t), rtol=1e-12)
