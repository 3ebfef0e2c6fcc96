"""An index into a slice written directly on an array (`x[1:3][1]`, `x[-3:][0]`, `A[1:, 0][1]`)
reads (or writes) one element of the array, composed like a view's index and checked as NumPy
checks it: `x[1:3][5]` raises IndexError though `x[6]` exists, and a negative index counts
from the slice's end. Derivatives are checked against central differences and forward against
reverse (check_grads), on both backends, and exactly against gradients derived by hand."""

import numpy as np
import pytest

import srcad
from srcad import BatchDuplicated, Duplicated
from srcad.testing import check_grads

X = np.array([0.5, -1.0, 2.0, 1.5, -0.7, 0.3, 1.1, 0.9])
A = np.arange(12.0).reshape(4, 3) * 0.1 - 0.4


def dup(x):
    return Duplicated(x.copy(), np.zeros_like(x))


def sliced_reads(x, k):
    # x[2] * x[5] + x[2]^2 + x[6] + x[1 + k] * x[4]
    return x[1:3][1] * x[-3:][0] + x[::2][1] ** 2 + x[-3:][-2] + x[1:][k] * x[2:5][-1]


def _sliced_reads_by_hand(x, k):
    g = np.zeros_like(x)
    g[2] += x[5] + 2.0 * x[2]
    g[5] += x[2]
    g[6] += 1.0
    g[1 + k] += x[4]
    g[4] += x[1 + k]
    return g


def sliced_rows(a, x):
    # a[2, 0] * x[1] + sum(a[3]) * a[1:3][-1][2]: an element of a column slice, a row of a
    # row slice (a[3]), an element of a row of a row slice (a[2, 2])
    return a[1:, 0][1] * x[1:3][0] + np.sum(a[1:][2]) * a[1:3][-1][2]


def written_through_slices(x):
    a = x.copy()
    a[1:4][1] = x[0] * x[3]  # a[2]
    a[-3:][-1] *= x[1]  # a[7]
    return np.sum(a * a)


def test_the_gradient_is_the_one_derived_by_hand():
    for k in (0, 3, -1):
        x_bar = np.zeros_like(X)
        srcad.autodiff(srcad.Reverse, sliced_reads, Duplicated(X.copy(), x_bar), k)
        np.testing.assert_allclose(x_bar, _sliced_reads_by_hand(X, k % (len(X) - 1)),
                                   rtol=1e-13)
    # a[2] = x0 x3, a[7] = x7 x1, the rest of a is x: sum(a^2)
    x0, x1, x3, x7 = X[0], X[1], X[3], X[7]
    want = 2.0 * X
    want[2] = 0.0
    want[0], want[3] = 2 * x0 + 2 * x0 * x3 * x3, 2 * x3 + 2 * x0 * x0 * x3
    want[7], want[1] = 2 * x7 * x1 * x1, 2 * x1 + 2 * x7 * x7 * x1
    x_bar = np.zeros_like(X)
    srcad.autodiff(srcad.Reverse, written_through_slices, Duplicated(X.copy(), x_bar))
    np.testing.assert_allclose(x_bar, want, rtol=1e-13)


@pytest.mark.parametrize("backend", ["python", pytest.param("numba", marks=pytest.mark.slow)])
def test_elements_of_slices_match_finite_differences_in_every_mode(backend):
    if backend == "numba":
        pytest.importorskip("numba")
    check_grads(sliced_reads, dup(X), 3, backend=backend)
    check_grads(sliced_reads, dup(X), -2, backend=backend)
    check_grads(sliced_rows, dup(A), dup(X), backend=backend)
    check_grads(written_through_slices, dup(X), backend=backend)


def past_the_slice(x, k):
    return x[1:3][k] * x[0]


@pytest.mark.parametrize("backend", ["python", "numba"])
def test_an_index_past_the_slice_raises_index_error_in_every_mode(backend):
    if backend == "numba":
        pytest.importorskip("numba")
    for k in (5, 2, -3):  # x[6], x[3] and x[0] exist; the slice has two elements
        with pytest.raises(IndexError):  # what NumPy does
            past_the_slice(X.copy(), k)
        lanes = np.stack([np.ones_like(X), np.arange(len(X), dtype=float)])
        for mode, x in ((srcad.Reverse, dup(X)), (srcad.Forward, dup(X)),
                        (srcad.Forward, BatchDuplicated(X.copy(), lanes))):
            with pytest.raises(IndexError, match="out of bounds for a view"):
                srcad.autodiff(mode, past_the_slice, x, k, backend=backend)
    x_bar = np.zeros_like(X)  # in the slice: -1 is its last element, x[2]
    srcad.autodiff(srcad.Reverse, past_the_slice, Duplicated(X.copy(), x_bar), -1,
                   backend=backend)
    np.testing.assert_allclose(x_bar, [X[2], 0, X[0], 0, 0, 0, 0, 0], rtol=1e-15)
