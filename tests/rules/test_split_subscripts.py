"""A part of np.split / array_split / hsplit / vsplit read by a literal index in any statement
(`np.split(x, 2)[1]`), as users write it: the parts are unpacked before the statement, each
a slice of the array, so its derivative is a slice's. Checked in every mode against central
differences and against the same function written with slices."""

import numpy as np
import pytest

import srcad
from srcad.testing import check_grads

X = np.arange(1.0, 9.0).reshape(2, 4) / 4


def second_half(x):
    return np.sum(np.sin(np.split(x, 2, axis=1)[1]))


def last_column_pair(x):
    return np.sum(np.hsplit(x, [1, 3])[-1] ** 2) * np.vsplit(x, 2)[0][0, 1]


def uneven_parts_in_a_loop(x):
    total = 0.0
    for i in range(2):
        total += np.sum(np.array_split(x[i] * x[i], 3)[-2] * 2.0)
    return total


def uneven_parts_by_slices(x):
    total = 0.0
    for i in range(2):
        total += np.sum((x[i] * x[i])[2:3] * 2.0)
    return total


@pytest.mark.parametrize("f", [second_half, last_column_pair, uneven_parts_in_a_loop])
def test_a_part_read_by_index_agrees_with_finite_differences(f):
    check_grads(f, srcad.Duplicated(X.copy(), np.zeros_like(X)))


def test_a_part_read_by_index_is_the_slice_it_is():
    ours = srcad.gradient(uneven_parts_in_a_loop, X)
    # 4 elements in 3 parts: sizes 2, 1, 1; part -2 is [2:3]; d/dx of 2 x^2 there is 4 x
    expected = np.zeros_like(X)
    expected[:, 2:3] = 4 * X[:, 2:3]
    np.testing.assert_allclose(ours, expected, rtol=1e-14)
    assert uneven_parts_in_a_loop(X) == pytest.approx(uneven_parts_by_slices(X))
