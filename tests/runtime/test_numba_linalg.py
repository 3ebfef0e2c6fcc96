"""srcad/runtime/numba_linalg.py against SciPy: numba's scipy.linalg.solve_triangular,
cholesky, solve, inv, det and srcad's cho_factor / cho_solve spellings give SciPy's values for
the keywords SciPy takes, and raise where SciPy's do. Compiles numba code: make test-all."""

import numpy as np
import pytest
import scipy.linalg as sl

numba = pytest.importorskip("numba")

import srcad.runtime.numba_linalg  # noqa: E402, F401 - registers numba's scipy.linalg
from srcad.runtime.scipy_factors import cho_factor_matrix, cho_solve_matrix  # noqa: E402

pytestmark = pytest.mark.slow
RNG = np.random.default_rng(0)
A = RNG.normal(size=(4, 4))
SPD = A @ A.T + 4.0 * np.eye(4)
B, BS = RNG.normal(size=4), RNG.normal(size=(4, 2))


@numba.njit
def _compiled(a, s, b, bs):
    return (sl.solve_triangular(a, b), sl.solve_triangular(a, bs, lower=True),
            sl.solve_triangular(a, b, trans=1, lower=True),
            sl.solve_triangular(a, bs, trans="T", unit_diagonal=True),
            sl.cholesky(s), sl.cholesky(a + 5.0 * np.eye(4), lower=True),
            sl.solve(a, b), sl.solve(s, bs, assume_a="pos"),
            sl.solve(a, b, assume_a="sym", lower=True), sl.solve(a, bs, transposed=True),
            sl.solve(a, b, assume_a="lower triangular"), sl.solve(a, b, assume_a="diagonal"),
            sl.inv(a), sl.det(a), cho_factor_matrix(s, True), cho_factor_matrix(s),
            cho_solve_matrix(cho_factor_matrix(s, True), bs, True),
            cho_solve_matrix(cho_factor_matrix(s), b, False))


def test_values_are_scipys():
    expected = (
        sl.solve_triangular(A, B), sl.solve_triangular(A, BS, lower=True),
        sl.solve_triangular(A, B, trans=1, lower=True),
        sl.solve_triangular(A, BS, trans="T", unit_diagonal=True),
        sl.cholesky(SPD), sl.cholesky(A + 5.0 * np.eye(4), lower=True), sl.solve(A, B),
        sl.solve(SPD, BS, assume_a="pos"), sl.solve(A, B, assume_a="sym", lower=True),
        sl.solve(A, BS, transposed=True), sl.solve(A, B, assume_a="lower triangular"),
        sl.solve(A, B, assume_a="diagonal"), sl.inv(A), sl.det(A),
        sl.cho_factor(SPD, lower=True)[0], sl.cho_factor(SPD)[0],
        sl.cho_solve(sl.cho_factor(SPD, lower=True), BS), sl.cho_solve(sl.cho_factor(SPD), B))
    for k, (got, want) in enumerate(zip(_compiled(A, SPD, B, BS), expected)):
        assert np.shape(got) == np.shape(want), k
        np.testing.assert_allclose(got, want, rtol=1e-10, atol=1e-12, err_msg=str(k))


def test_a_matrix_that_is_not_positive_definite_raises_as_scipys():
    with pytest.raises(np.linalg.LinAlgError):
        _compiled(A, A, B, BS)


def test_a_zero_on_the_diagonal_raises_as_scipys():
    singular = np.triu(A)
    singular[2, 2] = 0.0
    with pytest.raises(np.linalg.LinAlgError):
        sl.solve_triangular(singular, B)
    with pytest.raises(np.linalg.LinAlgError):
        numba.njit(lambda a, b: sl.solve_triangular(a, b))(singular, B)
