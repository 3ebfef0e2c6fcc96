"""Indices made by NumPy calls inside f: np.flatnonzero and np.argwhere give int arrays
(typed as such), and an index that comes from a call srcad has no type for, or that is a
float, is refused at its line. `np.mean(x[np.nonzero(x > 0)[0]])` had gradient [1, 0, 1]
(right: [0.5, 0, 0.5]): the call's result was taken to be a float array, its row a float and
`x[idx]` one element. An index NumPy would not take raises NumPy's error, never a value."""

import numpy as np
import pytest

import srcad
from srcad.testing import check_grads

X = np.array([1.0, -2.0, 3.0, 0.5])


def flat_positive_mean(x):
    idx = np.flatnonzero(x > 0)
    return np.mean(x[idx] ** 2)


def argwhere_positive_mean(x):
    idx = np.argwhere(x > 0)[:, 0]
    return np.mean(np.sin(x[idx]))


def argwhere_of_matrix(A):
    ij = np.argwhere(A > 0)
    return np.mean(A[ij[:, 0], ij[:, 1]] ** 3)


def nonzero_row(x):
    idx = np.nonzero(x > 0)[0]
    return np.mean(x[idx])


def nonzero_pair(A):
    i, j = np.nonzero(A > 0)
    return np.mean(A[i, j])


def where_row(x):
    idx = np.where(x > 0)[0]
    return np.mean(x[idx] ** 2)


def float_index(x):
    i = x[0] * 0.0
    return x[i] * 2.0


def too_many_indices(x):
    return x[0, 1] * 2.0


def by_hand(x):  # the mean of the positive entries' squares, and its gradient
    positive = x > 0
    return np.where(positive, 2 * x / positive.sum(), 0.0)


@pytest.mark.parametrize("f", [flat_positive_mean, argwhere_positive_mean])
def test_index_arrays_made_by_numpy_agree_with_finite_differences(f):
    check_grads(f, srcad.Duplicated(X.copy(), np.zeros(4)))


def test_flatnonzero_gradient_is_the_mean_over_the_entries_it_picks():
    assert np.allclose(srcad.grad(flat_positive_mean)(X.copy()), by_hand(X))


def test_argwhere_of_a_matrix_indexes_its_elements():
    A = np.array([[1.0, -2.0], [0.5, 3.0]])
    check_grads(argwhere_of_matrix, srcad.Duplicated(A.copy(), np.zeros((2, 2))))
    want = np.where(A > 0, 3 * A ** 2 / 3, 0.0)
    assert np.allclose(srcad.grad(argwhere_of_matrix)(A.copy()), want)


@pytest.mark.parametrize("f, x", [(nonzero_row, X), (nonzero_pair, np.eye(2) - 0.5)])
def test_an_index_from_a_call_without_a_type_is_refused_at_the_call(f, x):
    with pytest.raises(srcad.SrcadError, match=r"np.nonzero\(.*\)` has no type srcad knows"
                       ) as caught:
        srcad.grad(f)(x.copy())
    assert f"{__file__}:{f.__code__.co_firstlineno + 1}:" in str(caught.value)


def test_where_of_a_condition_alone_is_refused_at_its_line():
    with pytest.raises(srcad.SrcadError, match="np.where with one argument") as caught:
        srcad.grad(where_row)(X.copy())
    assert f"{__file__}:{where_row.__code__.co_firstlineno + 1}:" in str(caught.value)


@pytest.mark.parametrize("f", [float_index, too_many_indices])
def test_an_index_numpy_would_not_take_raises_numpys_error(f):
    with pytest.raises(IndexError):
        f(X.copy())
    with pytest.raises((IndexError, srcad.SrcadError)):  # never a value
        srcad.grad(f)(X.copy())
