"""Loops over the rows of a matrix (`for row in A`, `row = A[i]`, `for a, b in zip(A, B)`,
`A[i, :]` read in an inner loop, rows of a local copy) in vector mode on numba, whose lanes
live in arrays: a row's tangents are the same row of its array's tangents, in that array's
layout (the caller's, lanes first, or lanes last inside the function). Also the batched
reverse mode on numba, whose adjoint rows keep their lanes last. Every jacobian is checked
against central finite differences computed here and against the other mode; python vector
mode is checked too, with mixed annotations.
"""

import math

import numpy as np
import pytest
from helpers.differences import central

import srcad
from srcad import Active, Const, Constant, Duplicated
from srcad.testing import check_grads

pytest.importorskip("numba")


def matrix_differences(f, x):
    """The jacobian of f (x -> a 1-D array) against x's elements in order."""
    return central(f, x).reshape(-1, x.size)


def products_of_rows(A):
    out = np.zeros(A.shape[0])
    i = 0
    for row in A:
        out[i] = row[0] * row[1]
        i += 1
    return out


def rows_into_output(y, A):
    for i in range(A.shape[0]):
        row = A[i]
        y[i] = row[0] * row[1] + math.sin(row[1])


def cross_of_zipped_rows(A, B):
    out = np.zeros(A.shape[0])
    i = 0
    for a, b in zip(A, B):
        out[i] = a[0] * b[1] - a[1] * b[0] + a[0] * a[0]
        i += 1
    return out


def rows_times_vector(A, x):
    """`A[i, :]` read element by element in an inner loop; x is read again and again (its
    tangents are copied lanes last), A's elements once (used in the caller's layout)."""
    out = np.zeros(A.shape[0])
    for i in range(A.shape[0]):
        row = A[i, :]
        s = 0.0
        for j in range(row.shape[0]):
            s += row[j] * x[j]
        out[i] = math.sin(s)
    return out


def rows_of_a_local_copy(A, c):
    """Rows of a local array (tangents lanes last), and a row's tail, a view of a view."""
    C = A.copy()
    out = np.zeros(A.shape[0])
    for i in range(A.shape[0]):
        C[i, 0] = C[i, 0] * C[i, 1] + c
    for i in range(A.shape[0]):
        r = C[i]
        tail = r[1:]
        out[i] = r[0] + tail[0] * tail[1]
    return out


def rows_of_two_arrays(A, B):
    """`r` is a row of A (active) on even rows, of B on odd ones: zero tangents there."""
    out = np.zeros(A.shape[0])
    for i in range(A.shape[0]):
        if i % 2 == 0:
            r = A[i]
        else:
            r = B[i]
        out[i] = r[0] * r[1] + r[2]
    return out


def _matrix(rows, columns, shift=0.0):
    return np.arange(rows * columns, dtype=float).reshape(rows, columns) * 0.31 + 0.2 + shift


def _jacobian_case(f):
    """(args with the matrix bare, the same function of the matrix alone)."""
    A, B = _matrix(4, 3), _matrix(4, 3, shift=1.0)
    if f is cross_of_zipped_rows:
        return (A, Constant(B)), lambda M: f(M, B)
    if f is rows_times_vector:
        x = np.array([0.3, -0.2, 0.5])
        return (A, Constant(x)), lambda M: f(M, x)
    if f is rows_of_a_local_copy:
        return (A, Constant(0.4)), lambda M: f(M, 0.4)
    return (A,), f


@pytest.mark.parametrize("f", [products_of_rows, cross_of_zipped_rows],
                         ids=lambda f: f.__name__)
@pytest.mark.slow  # among the slowest of make test (numba or long runs): make test-all
def test_numba_vector_jacobian_of_row_loops_matches_differences_and_reverse(f):
    args, of_matrix = _jacobian_case(f)
    expected = matrix_differences(of_matrix, args[0])
    forward = srcad.jacobian(f, *args, backend="numba", mode="forward")
    reverse = srcad.jacobian(f, *args, backend="python", mode="reverse")
    assert forward.shape == expected.shape == (4, 12)
    np.testing.assert_allclose(forward, expected, rtol=1e-6, atol=1e-8)
    np.testing.assert_allclose(forward, reverse, rtol=1e-12, atol=1e-14)


@pytest.mark.parametrize("f, args", [
    (rows_into_output, lambda: (Duplicated(np.zeros(3), np.zeros(3)),
                                Duplicated(_matrix(3, 2), np.zeros((3, 2))))),
    (rows_times_vector, lambda: (Duplicated(_matrix(4, 3), np.zeros((4, 3))),
                                 Duplicated(np.array([0.3, -0.2, 0.5]), np.zeros(3)))),
    (rows_of_a_local_copy, lambda: (Duplicated(_matrix(4, 3), np.zeros((4, 3))),
                                    Active(0.4))),
    (rows_of_two_arrays, lambda: (Duplicated(_matrix(5, 3), np.zeros((5, 3))),
                                  Const(_matrix(5, 3, shift=1.0)))),
], ids=lambda v: getattr(v, "__name__", ""))
@pytest.mark.slow  # among the slowest of make test (numba or long runs): make test-all
def test_vector_mode_of_row_loops_with_mixed_annotations_agrees_with_differences(f, args):
    """numba's vector mode (lanes in arrays) against differences; on python every mode
    (forward, reverse: the dot-product test) and both lanes of vector mode."""
    check_grads(f, *args(), backend="numba", modes=("vec",))
    check_grads(f, *args(), modes=("fwd", "rev", "vec"))


@pytest.mark.slow  # numba compilations or a bounded fuzz run: make test-all
@pytest.mark.parametrize("f", [rows_times_vector, rows_of_a_local_copy],
                         ids=lambda f: f.__name__)
def test_numba_batched_reverse_runs_row_loops_in_one_sweep(f):
    """The reverse code binds a row of an adjoint array (`row_bar = A_bar[i]`); in the lanes
    code it is a lanes-last view, so W cotangents go through one sweep (no fallback to one
    sweep per row), and the jacobian agrees with forward mode and differences."""
    args, of_matrix = _jacobian_case(f)
    prep = srcad.prepare_jacobian(f, *args, backend="numba", mode="reverse")
    assert prep.state.get("batched") and prep.chunk == 4
    J = srcad.jacobian(f, *args, prep=prep)
    np.testing.assert_allclose(J, matrix_differences(of_matrix, args[0]), rtol=1e-6,
                               atol=1e-8)
    np.testing.assert_allclose(J, srcad.jacobian(f, *args, mode="forward"), rtol=1e-12,
                               atol=1e-14)


@pytest.mark.parametrize("f", [products_of_rows, cross_of_zipped_rows],
                         ids=lambda f: f.__name__)
def test_python_batched_reverse_keeps_adjoint_rows_as_views(f):
    """python: adjoint arrays hold their lanes last, so `row_bar = A_bar[i]` is the row's W
    lanes, written through in place (a copy would lose the writes); W rows of J a sweep."""
    args, of_matrix = _jacobian_case(f)
    J = srcad.jacobian(f, *args, mode="reverse", chunk=3)
    np.testing.assert_allclose(J, matrix_differences(of_matrix, args[0]), rtol=1e-6,
                               atol=1e-8)
    np.testing.assert_allclose(J, srcad.jacobian(f, *args, mode="forward"), rtol=1e-12,
                               atol=1e-14)
