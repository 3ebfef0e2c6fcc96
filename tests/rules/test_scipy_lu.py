"""scipy.linalg.lu_factor / lu_solve as users write them: the tuple unpacked and passed on,
the pivots kept as constants, in every mode against central differences; the forms srcad
does not follow and the numba backend refused naming the user's call."""

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


def test_numba_refuses_lu_by_the_users_name():
    with pytest.raises(SrcadError, match=r"`scipy\.linalg\.lu_factor`") as error:
        srcad.grad(unpacked, argnums=1, backend="numba")(B, A)
    assert "lu_factor_matrix" not in str(error.value)
