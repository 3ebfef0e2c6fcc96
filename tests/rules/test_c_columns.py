"""np.c_[a, b] of vectors (columns) and of matrices (side by side), read as np.column_stack,
in every mode against central differences; numbers and arrays of rank 3 (joined along their
last axis, not column_stack's) refused at the user's line, and numba refused by name."""

import numpy as np
import pytest

import srcad
from srcad.errors import SrcadError
from srcad.testing import check_grads

V = np.array([0.31, 0.77, 0.52])
W = np.array([[1.0, 2.0], [0.5, -1.0], [0.2, 0.3]])


def columns(x):
    return np.sum((np.c_[x, 2.0 * x, np.sin(x)] @ np.array([1.0, -0.5, 2.0])) ** 2)


def matrices(x):
    return np.sum(np.c_[np.outer(x, x), W] * np.arange(5.0))


def cubes(x):
    return np.sum(np.c_[x.reshape(1, 1, 3), x.reshape(1, 1, 3)])


def test_c_columns_agree_with_finite_differences():
    check_grads(columns, srcad.Duplicated(V.copy(), np.zeros(3)))
    check_grads(matrices, srcad.Duplicated(V.copy(), np.zeros(3)))


def test_c_columns_of_vectors_is_the_weighted_columns():
    # sum((x - x + 2 sin x)^2) = sum(4 sin^2 x): the gradient 8 sin x cos x
    np.testing.assert_allclose(srcad.gradient(columns, V), 8 * np.sin(V) * np.cos(V),
                               rtol=1e-13)


def test_c_of_arrays_of_rank_three_is_refused_at_its_line():
    with pytest.raises(SrcadError, match="np.c_ of arrays of rank 3") as error:
        srcad.gradient(cubes, V)
    assert error.value.filename == __file__


def test_numba_refuses_c_by_name():
    with pytest.raises(SrcadError, match="`np.c_`"):
        srcad.gradient(columns, V, backend="numba")
