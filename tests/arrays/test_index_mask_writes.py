"""Writes through an index array into a matrix (`Y[idx] = v` rows, `Y[idx, j] += v`) and
through a mask (`y[mask] = v`, `y[y > 0] *= 2`) follow NumPy: the right side first, then the
writes in order (a repeated index keeps the last value), each True entry of a mask taking
the next value. Checked against the plain NumPy function's values and central differences
in every mode, on both backends (numba: one smoke test unmarked); a mask or a right side of
another length is refused when it runs, as NumPy raises."""

import numpy as np
import pytest

import srcad
from srcad import Duplicated
from srcad.errors import SrcadError
from srcad.testing import check_grads

MODES = ("rev", "fwd", "vec")
X = np.array([0.3, 0.7, 1.1, -0.4])


def rows_of_a_matrix(x):
    y = np.outer(x[:3], x[1:])
    idx = np.array([0, 2, 2])
    y[idx] = x[1:] * x[0]  # row 2 written twice: the last value stays
    return np.sum(y * y)


def added_into_a_column(x):
    y = np.ones((3, 2)) * x[3]
    idx = np.array([0, 2, 2])
    y[idx, 1] += x[:3]  # not accumulated over the repeated 2 (np.add.at would)
    return np.sum(y * y)


def into_a_row(x):
    y = np.outer(x, x)
    y[2, np.array([3, 0])] = x[1:3] * 2.0
    return np.sum(y * y)


def values_through_a_mask(x):
    y = x * 1.0
    mask = x > 0.5
    y[mask] = 2.0 * x[mask]
    return np.sum(y * y)


def scaled_where_positive(x):
    y = np.sin(x)
    y[y > 0] *= 2
    return np.sum(y * y)


def a_number_through_a_mask(x):
    y = np.sin(x)
    y[x > 0.5] = 1.5
    return np.sum(y * y)


CASES = [rows_of_a_matrix, added_into_a_column, into_a_row, values_through_a_mask,
         scaled_where_positive, a_number_through_a_mask]


def one_value_broadcast_through_the_mask(x):
    y = x * 1.0
    y[x > 0.5] = x[:1] * x[3]
    return np.sum(y * y)


CASES.append(one_value_broadcast_through_the_mask)


@pytest.mark.parametrize("f", CASES, ids=lambda f: f.__name__)
def test_values_are_numpy_values(f):
    value, _ = srcad.value_and_grad(f)(X.copy())
    assert value == pytest.approx(f(X.copy()), rel=1e-14)


@pytest.mark.parametrize("mode", MODES)
@pytest.mark.parametrize("f", CASES, ids=lambda f: f.__name__)
def test_writes_match_central_differences(f, mode):
    check_grads(f, Duplicated(X.copy(), np.zeros(4)), modes=(mode,))


def test_mask_writes_compile_on_numba():
    check_grads(scaled_where_positive, Duplicated(X.copy(), np.zeros(4)), modes=("rev",),
                backend="numba")


@pytest.mark.slow
@pytest.mark.parametrize("mode", MODES)
@pytest.mark.parametrize("f", CASES, ids=lambda f: f.__name__)
def test_writes_on_numba(f, mode):
    check_grads(f, Duplicated(X.copy(), np.zeros(4)), modes=(mode,), backend="numba")


def a_mask_too_short(x):
    y = x * 1.0
    y[x[:3] > 0.0] = 1.0
    return np.sum(y)


def too_many_values_for_the_mask(x):
    y = x * 1.0
    y[x > 0.5] = x[:3]  # two True entries
    return np.sum(y)


@pytest.mark.parametrize("f", [a_mask_too_short, too_many_values_for_the_mask],
                         ids=lambda f: f.__name__)
def test_a_mask_or_values_of_another_length_are_refused_as_numpy_raises(f):
    with pytest.raises((IndexError, ValueError)):
        f(X.copy())
    with pytest.raises(SrcadError, match=r"written through does not match the length|not one "
                       "per True entry"):
        srcad.grad(f)(X.copy())
