"""Parts of a rebound array's shape the reverse sweep reads (`T.shape[::-1][:1] +
T.shape[1:]`, the shape of `T.T @ T`): the whole shape is recorded, one tape per rank, and the
part taken from it again in the reverse sweep. numba types a list by its elements, and the
parts (tuples of one and two ints) recorded on one list stopped numba from compiling
`T += T.T @ T` ("Invalid use of BoundFunction(list.append ...)")."""

import numpy as np
import pytest

import srcad
from srcad.testing import check_grads


def product_added_into_its_operand(A, B):
    T = A.copy()
    T += A @ B
    T += T.T @ T
    return np.sum(np.sin(T))


def transposed_product_in_a_loop(A, B):
    s = 0.0
    T = A.copy()
    for _k in range(2):
        s += np.sum(T.T @ B)
        T = T * 0.5 + np.cos(T)
    return s + np.sum(T)


def products_of_parts_of_shapes(A, B):
    T = A * 2.0
    T += T.T @ B
    T += A @ (T.T @ B)
    return np.sum(T * T)


def _cases():
    rng = np.random.default_rng(3)
    square = rng.standard_normal((3, 3)) * 0.5
    tall = rng.standard_normal((3, 2))
    return [(product_added_into_its_operand, square, rng.standard_normal((3, 3)) * 0.5),
            (transposed_product_in_a_loop, tall, rng.standard_normal((3, 4))),
            (products_of_parts_of_shapes, square, rng.standard_normal((3, 3)))]


def _args(A, B, varied_b):
    b = srcad.Duplicated(B.copy(), np.zeros_like(B)) if varied_b else srcad.Const(B.copy())
    return srcad.Duplicated(A.copy(), np.zeros_like(A)), b


@pytest.mark.parametrize("case", range(3))
def test_only_whole_shapes_are_recorded(case):
    f, A, B = _cases()[case]
    for varied_b in (True, False):
        source = srcad.source(f, srcad.Reverse, *_args(A, B, varied_b), backend="numba")
        assert "shape_tape_0d" not in source  # no tuple of another length beside the shapes
    assert ".append(T.shape)" in source  # B constant: T's values are not needed, its shape is


@pytest.mark.parametrize("case", range(3))
def test_parts_of_shapes_answer_as_central_differences_on_python(case):
    f, A, B = _cases()[case]
    for varied_b in (True, False):
        check_grads(f, *_args(A, B, varied_b))


@pytest.mark.slow  # numba compiles three reverse functions (~15 s)
@pytest.mark.parametrize("case", range(3))
def test_parts_of_shapes_answer_as_central_differences_on_numba(case):
    f, A, B = _cases()[case]
    for varied_b in (True, False):
        check_grads(f, *_args(A, B, varied_b), backend="numba", modes=("rev",))
