"""Reads through index arrays and masks (`x[idx]`, `A[:, idx]`, `x[x > 0]`) and constant
arrays made anywhere (np.zeros ones empty full eye arange linspace), checked by `check_grads`
in forward, vector and reverse mode against central finite differences (python backend)."""

import numpy as np
import pytest

import srcad
from srcad.errors import SrcadError
from srcad.testing import check_grads

RNG = np.random.default_rng(23)


def dup(x):
    return srcad.Duplicated(x, np.zeros_like(x))


def weights(shape):
    return np.random.default_rng(29).standard_normal(shape)


# -- gathers: repeated indices accumulate ----------------------------------------------------------
def gather(x, idx, c):
    return np.sum(c * np.sin(x[idx]))


def gather_rows(A, idx, c):
    return np.sum(c * A[idx] ** 2)


def gather_columns(A, idx, c):
    return np.sum(c * np.tanh(A[:, idx]))


def gather_with_an_int(A, idx, c):
    return np.sum(c * A[1, idx] * A[0, idx])


def gather_2d_index(x, idx, c):
    return np.sum(c * x[idx] * x[idx])


def gather_apart(A, idx, c):
    # an int and an index array apart (a slice between): NumPy puts their axis first
    return np.sum(c * A[3, 2:, idx])


GATHERS = [
    (gather, (5,), np.array([0, 3, 3, 1, 3]), (5,)),
    (gather_rows, (4, 3), np.array([2, 2, 0]), (3, 3)),
    (gather_columns, (3, 4), np.array([1, 1, 3]), (3, 3)),
    (gather_with_an_int, (2, 4), np.array([0, 0, 2, 3]), (4,)),
    (gather_2d_index, (4,), np.array([[0, 1], [1, 1]]), (2, 2)),
    (gather_apart, (5, 6, 4), np.array([1, 3]), (2, 4)),
]


@pytest.mark.parametrize("f, shape, idx, c", GATHERS, ids=[g[0].__name__ for g in GATHERS])
def test_gathers(f, shape, idx, c):
    check_grads(f, dup(RNG.standard_normal(shape)), idx, weights(c))


def taken_apart(A):
    return A[3, 2:, np.array([1, 3])]


def test_vector_mode_of_index_arrays_apart_keeps_the_lanes_first():
    # jacfwd runs every lane at once (120 here, stacked lanes first): NumPy would put the
    # axis of `3` and `[1, 3]` before the lanes
    A = RNG.standard_normal((5, 6, 4))
    expected = np.zeros((2, 4) + A.shape)
    for i, column in enumerate([1, 3]):
        for j in range(4):
            expected[i, j, 3, 2 + j, column] = 1.0
    np.testing.assert_array_equal(srcad.jacfwd(taken_apart)(A), expected)


def sum_of_gather(x, idx):
    return np.sum(x[idx])


def test_repeated_indices_add_up():
    # by hand: d/dx_k sum(x[idx]) is the number of times k occurs in idx
    x_bar = np.zeros(4)
    srcad.autodiff(srcad.Reverse, sum_of_gather, srcad.Duplicated(np.ones(4), x_bar),
                   np.array([0, 0, 2, 0]))
    np.testing.assert_array_equal(x_bar, [3.0, 0.0, 1.0, 0.0])


def gather_in_a_loop(x, idx, w):
    total = 0.0
    for k in range(idx.shape[0]):
        total = total + np.sum(x[idx[k]] * w)
    return total


def test_gather_in_a_loop():
    check_grads(gather_in_a_loop, dup(RNG.standard_normal(5)),
                np.array([[0, 4], [4, 4], [2, 1]]), srcad.Active(0.8))


def named_gather(x, idx):
    y = x[idx]
    return np.sum(y * y * x[0])


def two_index_arrays(A, i, j):
    return np.sum(np.sin(A[i, :, j]))


def test_gather_bound_to_a_name_and_two_index_arrays():
    check_grads(named_gather, dup(RNG.standard_normal(4)), np.array([3, 3, 0]))
    check_grads(two_index_arrays, dup(RNG.standard_normal((3, 2, 4))), np.array([0, 2, 2]),
                np.array([1, 1, 3]))


# -- masks ----------------------------------------------------------------------------------------
def positive_part(x):
    return np.sum(x[x > 0.0] ** 2) + np.sum(np.exp(x[x < 0.0]))


def masked_rows(A, keep, c):
    return np.sum(c * A[keep] ** 3)


def combined_mask(x, y):
    mask = (x > -0.5) & (y < 0.5)
    return np.sum(x[mask] * y[mask])


def test_masks():
    check_grads(positive_part, dup(np.array([-1.2, 0.3, -0.4, 1.5, 0.8])))
    check_grads(masked_rows, dup(RNG.standard_normal((4, 2))),
                np.array([True, False, True, True]), weights((3, 2)))
    check_grads(combined_mask, dup(np.array([-1.0, 0.1, 0.7, -0.2])),
                dup(np.array([0.3, 0.9, -0.6, 0.2])))


def writes_through_a_gather(x, idx):
    # one index array, into a vector or a matrix's rows, is supported
    # (test_index_array_writes.py, test_index_mask_writes.py); two are not
    y = np.zeros((3, 2))
    y[idx, idx] = x[0]
    return np.sum(y)


def test_writes_through_two_index_arrays_into_a_matrix_are_refused_by_name():
    with pytest.raises(SrcadError) as info:
        srcad.autodiff(srcad.Reverse, writes_through_a_gather, dup(np.ones(3)), np.array([0, 1]))
    assert "y[idx, idx]" in str(info.value) and "test_array_gathers.py" in str(info.value)


# -- constant arrays, anywhere --------------------------------------------------------------
def constants(x):
    n = x.shape[0]
    ramp = np.linspace(0.0, 1.0, n)
    total = np.sum(x * ramp) + np.sum((np.eye(n) + np.full((n, n), 0.5)) @ x)
    for k in range(3):
        total = total + np.sum(np.arange(n) * x * x) * k + np.sum(np.ones(n) * x)
        total = total + np.sum(np.identity(n) @ x) * np.sum(np.zeros(n) + x)
    return total


def constant_index(x):
    idx = np.arange(1, 4)
    return np.sum(x[idx] ** 2)


def test_constant_arrays_anywhere():
    check_grads(constants, dup(RNG.standard_normal(4)))
    check_grads(constant_index, dup(RNG.standard_normal(5)))


@pytest.mark.slow  # among the slowest of make test (numba or long runs): make test-all
def test_numba_forward_mode_of_gathers_and_masks():
    check_grads(gather, dup(RNG.standard_normal(5)), np.array([0, 3, 3, 1]), weights(4),
                modes=("fwd",), backend="numba")
    check_grads(positive_part, dup(np.array([-1.2, 0.3, -0.4, 1.5])), modes=("fwd",),
                backend="numba")


def indexes_a_gather(A, idx):
    return np.sum(A[idx][1] ** 2)


def test_indexing_a_gathered_array_in_one_expression_is_refused():
    # x[i][j] is read as x[i, j], which is not what it means when i is an index array
    with pytest.raises(SrcadError) as info:
        srcad.autodiff(srcad.Reverse, indexes_a_gather, dup(np.ones((3, 2))), np.array([2, 0]))
    assert "A[idx][1]" in str(info.value) and "y = x[idx]" in str(info.value)
