"""scipy.linalg.lu_factor / lu_solve as users write them: the tuple unpacked and passed on,
the pivots kept as constants, in every mode against central differences; the forms srcad
does not follow refused naming the user's call; on the numba backend, LAPACK's getrf and getrs
compiled (srcad/runtime/numba_lu.py)."""

import numpy as np
import pytest
import scipy.linalg

import srcad
from srcad.errors import SrcadError
from srcad.testing import check_grads

A = np.array([[0.3, 1.4, -0.2], [1.1, 0.9, 0.5], [-0.3, 0.2, 1.7]])  # pivots reorder rows
B = np.array([0.21, -0.43, 0.95])


def unpacked(b, a):
    lu, piv = scipy.linalg.lu_factor(a)
    x = scipy.linalg.lu_solve((lu, piv), b)
    return np.sum(np.sin(x)) + np.sum(scipy.linalg.lu_solve((lu, piv), b * b, trans=1))


def kept_whole(a):
    factor = scipy.linalg.lu_factor(a)
    return np.sum(scipy.linalg.lu_solve(factor, B))


def test_pivots_reorder_the_rows_of_the_probe_matrix():
    assert list(scipy.linalg.lu_factor(A)[1]) != [0, 1, 2]


def test_unpacked_factor_agrees_with_finite_differences():
    check_grads(unpacked, srcad.Duplicated(B.copy(), np.zeros(3)),
                srcad.Duplicated(A.copy(), np.zeros((3, 3))))


def test_factor_kept_whole_is_refused_naming_lu_factor():
    with pytest.raises(SrcadError, match="lu_factor's tuple kept whole") as error:
        srcad.grad(kept_whole)(A)
    assert error.value.filename == __file__


def computed_factor(a):
    lu, piv = scipy.linalg.lu_factor(a * a)  # of a value computed inside: compiled
    return np.sum(lu * lu) + np.sum(scipy.linalg.lu_solve((lu, piv), np.ones((3, 2)) * a[0, 0]))


@pytest.mark.slow  # numba compiles (srcad/runtime/numba_lu.py)
def test_lu_on_numba_agrees_with_finite_differences_and_scipy():
    check_grads(unpacked, srcad.Duplicated(B.copy(), np.zeros(3)),
                srcad.Duplicated(A.copy(), np.zeros((3, 3))), backend="numba")
    check_grads(computed_factor, srcad.Duplicated(A.copy(), np.zeros((3, 3))), backend="numba")
    value, _ = srcad.value_and_gradient(computed_factor, A.copy(), backend="numba")
    assert value == pytest.approx(computed_factor(A), rel=1e-13)


@pytest.mark.slow  # numba compiles the factorization itself
def test_numba_factorization_is_lapacks():
    numba = pytest.importorskip("numba")
    from srcad.runtime import numba_lu

    factored = numba.njit(lambda a: numba_lu._factored(a))
    solved = numba.njit(lambda lu, piv, b, trans: numba_lu._solved(lu, piv, b, trans))
    rng = np.random.default_rng(0)
    for n in (1, 2, 3, 5, 8):
        for _ in range(10):
            a, b = rng.normal(size=(n, n)), rng.normal(size=(n, 2))
            lu, piv = factored(a)
            theirs, their_piv = scipy.linalg.lu_factor(a)
            np.testing.assert_array_equal(piv, their_piv)
            np.testing.assert_allclose(lu, theirs, rtol=1e-11, atol=1e-12)
            for trans in (0, 1):
                np.testing.assert_allclose(solved(lu, piv, b, trans),
                                           scipy.linalg.lu_solve((theirs, their_piv), b,
                                                                 trans=trans), rtol=1e-10)
