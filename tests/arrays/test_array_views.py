"""Views and aliases of arrays whose elements the function writes: a view (`c = e[i]`, a row
passed to a helper, the rows of `for row in e`, a helper's filled local returned to the
caller) made after the last write to its array reads the finished values, and is
differentiated as the subscript it is; a view that a later write (a later statement, or the
next iteration of a loop around it) changes sees the write, as in NumPy (it is read as the
array itself: tests/arrays/test_array_view_writes.py has the writes through views). Gradients are
checked against hand-derived formulas, central differences and forward against reverse
(check_grads)."""

import math

import numpy as np
import pytest

import srcad
from srcad import Const, Constant, Duplicated
from srcad.testing import check_grads

RNG = np.random.default_rng(7)


def dup(x):
    return Duplicated(x, np.zeros_like(x))


def _weighted_squares(x):
    y = np.zeros(len(x))
    for i in range(len(x)):
        y[i] = x[i] * x[i] * (i + 1)
    return y


def ends_of_returned_array(x):
    # the helper's filled local `y` becomes the caller's `y`: an alias of a finished array
    y = _weighted_squares(x)
    return y[len(x) - 1] + 3.0 * y[0]


def test_an_array_a_helper_fills_and_returns_is_differentiated():
    # f = n x_{n-1}^2 + 3 x_0^2: gradient (6 x_0, 0, ..., 2 n x_{n-1})
    x = RNG.standard_normal(4)
    expected = np.zeros(4)
    expected[0], expected[3] = 6.0 * x[0], 8.0 * x[3]
    for mode in ("reverse", "forward"):
        np.testing.assert_allclose(srcad.gradient(ends_of_returned_array, x, mode=mode),
                                   expected, rtol=1e-13)
    check_grads(ends_of_returned_array, dup(x))


def _row_dot(row, v):
    s = 0.0
    for j in range(len(v)):
        s = s + row[j] * v[j]
    return s


def rows_of_a_filled_array(a, v):
    """sum_i (e_i . v)^2 with e = exp(a): rows of the written `e` bound to a name, passed to
    a helper, and iterated over."""
    k, d = a.shape
    e = np.zeros((k, d))
    for i in range(k):
        for j in range(d):
            e[i, j] = math.exp(a[i, j])
    total = 0.0
    for i in range(k):
        c = e[i]
        total = total + 0.5 * _row_dot(c, v) * _row_dot(e[i], v)
    for row in e:
        total = total + 0.5 * _row_dot(row, v) ** 2
    return total


def rows_of_a_filled_array_in_v(v, a):
    return rows_of_a_filled_array(a, v)


def rows_of_a_filled_array_gradient(a, v):
    e = np.exp(a)
    ev = e @ v
    return 2.0 * ev[:, None] * v[None, :] * e, 2.0 * e.T @ ev


@pytest.mark.slow  # among the slowest of make test (numba or long runs): make test-all
def test_rows_of_an_array_written_before_are_read_as_its_rows():
    a, v = RNG.standard_normal((3, 2)), RNG.standard_normal(2)
    ga, gv = rows_of_a_filled_array_gradient(a, v)
    for mode in ("reverse", "forward"):
        np.testing.assert_allclose(srcad.gradient(rows_of_a_filled_array, a, Constant(v),
                                                  mode=mode), ga, rtol=1e-12)
        np.testing.assert_allclose(srcad.gradient(rows_of_a_filled_array_in_v, v,
                                                  Constant(a), mode=mode), gv, rtol=1e-12)
    check_grads(rows_of_a_filled_array, dup(a), dup(v))
    check_grads(rows_of_a_filled_array, dup(a), Const(v))  # mixed annotations
    check_grads(rows_of_a_filled_array, Const(a), dup(v))


def view_made_before_a_write(a):
    # c is e's row i before its elements are written: NumPy's c sees the writes
    k, d = a.shape
    e = np.zeros((k, d))
    total = 0.0
    for i in range(k):
        c = e[i]
        for j in range(d):
            e[i, j] = math.exp(a[i, j])
        total = total + _row_dot(c, c)
    return total


def view_rebound_each_iteration(a):
    # e is written in the loop around the view: the next iteration changes the old view
    k, d = a.shape
    e = np.zeros((k, d))
    total = 0.0
    for i in range(k):
        for j in range(d):
            e[i, j] = math.exp(a[i, j])
        c = e[0]
        total = total + _row_dot(c, c)
    return total


def test_a_view_a_later_write_changes_sees_the_write():
    # made before the write: sum_ij exp(a_ij)^2, gradient 2 exp(2a); row 0 read in every
    # iteration after it is filled: k sum_j exp(a_0j)^2, gradient 2k exp(2 a_0j) in row 0
    a = RNG.standard_normal((3, 2))
    first_row = np.zeros_like(a)
    first_row[0] = 2 * 3 * np.exp(2 * a[0])
    for f, expected in ((view_made_before_a_write, 2 * np.exp(2 * a)),
                        (view_rebound_each_iteration, first_row)):
        for mode in ("reverse", "forward"):
            np.testing.assert_allclose(srcad.gradient(f, a, mode=mode), expected, rtol=1e-12)


@pytest.mark.slow  # among the slowest of make test (numba or long runs): make test-all
def test_rows_of_a_filled_array_on_numba():
    # the same rows on the numba backend (reverse mode: the += adjoints are compiled)
    pytest.importorskip("numba")
    a, v = RNG.standard_normal((3, 2)), RNG.standard_normal(2)
    ga, _ = rows_of_a_filled_array_gradient(a, v)
    np.testing.assert_allclose(srcad.gradient(rows_of_a_filled_array, a, Constant(v),
                                              backend="numba"), ga, rtol=1e-12)


def row_dots(W, v):
    # w, a row view of an array nothing writes, taken again by each iteration
    total = 0.0
    for i in range(W.shape[0]):
        w = W[i]
        s = 0.0
        for j in range(v.shape[0]):
            s = s + w[j] * v[j]
        total = total + s * s
    return total


def row_dots_in_v(v, W):
    return row_dots(W, v)


def test_a_row_view_per_iteration_is_read_again_not_taped_and_its_adjoint_is_the_adjoints_row():
    # sum_i (W_i . v)^2: dW_i = 2 s_i v, dv = 2 sum_i s_i W_i, with s = W v
    W, v = RNG.standard_normal((4, 3)), RNG.standard_normal(3)
    s = W @ v
    np.testing.assert_allclose(srcad.gradient(row_dots, W, Constant(v)),
                               2.0 * s[:, None] * v[None, :], rtol=1e-12)
    np.testing.assert_allclose(srcad.gradient(row_dots_in_v, v, Constant(W)),
                               2.0 * W.T @ s, rtol=1e-12)
    check_grads(row_dots, dup(W), dup(v))
    text = srcad.source(row_dots, srcad.Reverse, dup(W), dup(v))
    code = [line.strip() for line in text.splitlines() if not line.strip().startswith("#")]
    # the reverse sweep binds w = W[i] again and reads w[j]; only s is taped
    assert not any(line.startswith("tape.append(w[") for line in code), text
    # w's adjoint is the row W_bar[i] (bound with the replay): no array of its own to add into
    # W_bar[i] and zero per iteration (transform/reverse/view_adjoints.py)
    assert "w_bar = W_bar[i]" in code and "w_bar = np.zeros_like(w_bar)" not in code, text
    assert "w_bar[...] = 0.0" not in code and "W_bar[i] += w_bar" not in code, text
