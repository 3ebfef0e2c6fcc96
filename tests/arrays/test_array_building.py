"""Building arrays: np.concatenate, np.stack, np.hstack, np.vstack of listed arrays,
np.array of a list of numbers, np.atleast_1d/2d/3d, over a table of ranks and axes, each
checked by `check_grads` in forward, vector and reverse mode against central finite
differences (python backend)."""

import numpy as np
import pytest

import srcad
from srcad.errors import SrcadError
from srcad.testing import check_grads

RNG = np.random.default_rng(31)


def dup(x):
    return srcad.Duplicated(x, np.zeros_like(x))


def weights(shape):
    return np.random.default_rng(37).standard_normal(shape)


def concatenate_vectors(x, y, c):
    return np.sum(c * np.sin(np.concatenate([x, y * y, x])))


def concatenate_columns(A, B, c):
    return np.sum(c * np.concatenate((A, B), axis=1) ** 2)


def concatenate_last_axis(A, B, c):
    return np.sum(c * np.exp(np.concatenate([A, B], axis=-1)))


def stack_rows(x, y, c):
    return np.sum(c * np.stack([x, x * y, y]))


def stack_columns(x, y, c):
    return np.sum(c * np.tanh(np.stack((x, y), axis=1)))


def stack_matrices(A, B, c):
    return np.sum(c * np.stack([A, B], axis=2) ** 3)


def hstack_vstack(x, y, c):
    return np.sum(c * np.vstack([np.hstack([x, y]), np.hstack((y, x))]) ** 2)


def hstack_vstack_matrices(A, B, c):
    return np.sum(c * np.hstack([A, B]) ** 2) + np.sum(np.vstack([A, B]) ** 3)


CASES = [
    (concatenate_vectors, ((3,), (2,)), (8,)),
    (concatenate_columns, ((2, 3), (2, 1)), (2, 4)),
    (concatenate_last_axis, ((2, 2), (2, 3)), (2, 5)),
    (stack_rows, ((3,), (3,)), (3, 3)),
    (stack_columns, ((4,), (4,)), (4, 2)),
    (stack_matrices, ((2, 3), (2, 3)), (2, 3, 2)),
    (hstack_vstack, ((2,), (3,)), (2, 5)),
    (hstack_vstack_matrices, ((2, 3), (2, 3)), (2, 6)),
]


@pytest.mark.parametrize("f, shapes, c", CASES, ids=[f.__name__ for f, _, _ in CASES])
def test_joining_arrays(f, shapes, c):
    check_grads(f, *[dup(RNG.standard_normal(s)) for s in shapes], weights(c))


def only_one_listed_array_varies(x, y, c):
    return np.sum(c * np.concatenate([y, x]))


def test_inactive_listed_arrays_have_zero_tangents():
    check_grads(only_one_listed_array_varies, dup(RNG.standard_normal(3)),
                RNG.standard_normal(2), weights(5))


def vector_of_numbers(a, b, c):
    v = np.array([a, b * c, 1.0, a * a])
    return np.sum(v * v) + v[1] * v[3]


def matrix_of_a_loop(x):
    total = 0.0
    for i in range(x.shape[0] - 1):
        v = np.array([x[i], x[i + 1] * x[i]])
        total = total + np.sum(np.exp(v)) + np.sum(np.hstack([x[i], 2.0 * x[i + 1]]) ** 2)
    return total


def test_arrays_of_numbers():
    # the values of np.array([a, b * c, ...]) by hand: d/da sum(v*v) = 2a + 4a^3, ...
    check_grads(vector_of_numbers, srcad.Active(0.4), srcad.Active(-1.3), srcad.Active(0.9))
    check_grads(matrix_of_a_loop, dup(RNG.standard_normal(4)))


def test_array_of_numbers_by_hand():
    a_bar, b_bar, c_bar = srcad.autodiff(srcad.Reverse, vector_of_numbers, srcad.Active(2.0),
                                         srcad.Active(3.0), srcad.Active(5.0))
    # f = a^2 + (bc)^2 + 1 + a^4 + bc a^2
    assert a_bar == pytest.approx(2 * 2.0 + 4 * 2.0 ** 3 + 2 * 15.0 * 2.0)
    assert b_bar == pytest.approx(2 * 15.0 * 5.0 + 5.0 * 4.0)
    assert c_bar == pytest.approx(2 * 15.0 * 3.0 + 3.0 * 4.0)


def at_least(a, x, A, c1, c2, c3):
    return np.sum(np.atleast_1d(a) * 2.0) + np.sum(c1 * np.atleast_2d(x) ** 2) \
        + np.sum(c2 * np.atleast_3d(A) ** 2) + np.sum(c3 * np.atleast_3d(x)) \
        + np.sum(np.atleast_2d(A) * A) + np.sum(np.atleast_2d(a) * np.atleast_3d(a))


def test_atleast():
    check_grads(at_least, srcad.Active(0.7), dup(RNG.standard_normal(3)),
                dup(RNG.standard_normal((2, 3))), weights((1, 3)), weights((2, 3, 1)),
                weights((1, 3, 1)))


def mixed_ranks(x, A):
    return np.sum(np.concatenate([x, A]))


def stack_of_a_variable(x):
    # np.vstack(parts) of a list variable is supported, and so are joins of an array (of
    # its rows); np.concatenate of the numbers of a vector raises in NumPy
    return np.sum(np.concatenate(x))


@pytest.mark.parametrize("f, args, words", [
    (mixed_ranks, lambda: (dup(np.ones(3)), dup(np.ones((2, 3)))), "different ranks"),
    (stack_of_a_variable, lambda: (dup(np.ones(3)),), "np.concatenate of a list or array of"),
], ids=["mixed_ranks", "variable"])
def test_refusals_name_the_line(f, args, words):
    with pytest.raises(SrcadError) as info:
        srcad.autodiff(srcad.Reverse, f, *args())
    assert words in str(info.value) and "test_array_building.py" in str(info.value)


def test_forward_mode_joins_the_tangents_once():
    # one join of the listed tangents, not one join per operand padded with zeros
    args = (dup(np.ones((2, 3))), dup(np.ones((2, 1))), np.ones((2, 4)))
    source = srcad.source(concatenate_columns, srcad.Forward, *args)
    assert "np.concatenate((A_dot, B_dot), axis=1)" in source, source
    check_grads(concatenate_columns, *args)
