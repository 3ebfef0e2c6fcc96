"""A row view bound in a loop and only read in the rest of the iteration (`w = W[i]`) has as its
adjoint the same row of the array's adjoint (`w_bar = W_bar[i]`, bound at the start of the
iteration's reverse, after the replay of `w = W[i]` where its index needs one): no work array
added into `W_bar[i]` and zeroed per iteration (srcad/transform/reverse/view_adjoints.py). A
view read after its loop, or of an array the loop rebinds, keeps its own adjoint."""

import math

import numpy as np
import pytest

import srcad
from srcad.testing import check_grads


def rows(W, x):
    """A row and a slice of a row, of a parameter and of a local array written before the
    loop, read in inner loops."""
    n, m = W.shape
    E = np.zeros((n, m))
    for i in range(n):
        for j in range(m):
            E[i, j] = math.exp(W[i, j])
    s = 0.0
    for i in range(n):
        w = W[i]
        e = E[i, 1:]
        for j in range(m):
            s = s + math.sin(w[j]) * x[j]
        for j in range(m - 1):
            s = s + e[j] * w[j + 1] * x[j]
    return s


def read_after_loop(W, x):
    """The last row is read again after the loop: its adjoint is needed before the loop's
    reverse, where no alias is bound yet."""
    s = 0.0
    for i in range(W.shape[0]):
        w = W[i]
        s = s + w[0] * w[1] * x[i]
    return s + w[1] * w[1]


def array_written_in_loop(W, x):
    """W's elements are written in the loop (after the row is read): the view is read as the
    array itself (transform/normalize/views.py)."""
    s = 0.0
    for i in range(W.shape[0]):
        w = W[i]
        s = s + math.cos(w[0]) * w[1] * x[i]
        W[i, 0] = W[i, 1] * x[i]
    return s


def whole_rows(W, x):
    """Two overlapping views of one row (both alias W_bar), read by whole-array operations
    (their adjoints are added into as arrays)."""
    s = 0.0
    for i in range(W.shape[0]):
        w = W[i]
        e = W[i, 1:]
        s = s + np.sum(np.sin(w) * x) + np.dot(e, e) * w[0]
    return s


def written_before_loop(W, x):
    """W's elements are written before the loop only: the reverse of that write runs after
    every addition through the rows' adjoints, as without them."""
    W[0, 1] = W[0, 1] * x[0]
    s = 0.0
    for i in range(W.shape[0]):
        w = W[i]
        s = s + math.sin(w[0]) * w[1] * x[i]
    return s


def rebound_in_loop(W, x):
    """A is rebound after the row is taken: the row's adjoint belongs to the old A, whose
    adjoint is not A_bar at the start of the iteration's reverse."""
    s = 0.0
    A = W * 1.0
    for i in range(W.shape[0]):
        v = A[i]
        A = A * x[i]
        s = s + v[0] * v[1] * x[i]
    return s


W0 = np.linspace(-0.6, 0.8, 12).reshape(3, 4)
X0 = np.linspace(0.3, 1.1, 4)


@pytest.mark.parametrize("backend", ["python", pytest.param("numba", marks=pytest.mark.slow)])
@pytest.mark.parametrize("f", [rows, read_after_loop, array_written_in_loop,
                               whole_rows, written_before_loop, rebound_in_loop],
                         ids=lambda f: f.__name__)
def test_view_adjoints_differentiate_right(f, backend):
    modes = ("fwd", "rev", "vec") if backend == "python" else ("rev",)
    check_grads(f, srcad.Duplicated(W0.copy(), np.zeros_like(W0)),
                srcad.Duplicated(X0.copy(), np.zeros_like(X0)), modes=modes, backend=backend)


def _reverse(f, backend="python"):
    source = srcad.source(f, srcad.Reverse, srcad.Duplicated(W0.copy(), np.zeros_like(W0)),
                          srcad.Duplicated(X0.copy(), np.zeros_like(X0)), backend=backend)
    return source.split("# reverse sweep")[1]


def test_a_row_view_read_in_its_iteration_has_the_rows_adjoint_as_its_own():
    for backend in ("python", "numba"):
        reverse = _reverse(rows, backend)
        assert "w_bar = W_bar[i]" in reverse and "e_bar = E_bar[i, 1:]" in reverse
        assert "+= w_bar" not in reverse and "+= e_bar" not in reverse  # no per-row addition
        assert "w_bar[...] = 0.0" not in reverse and "zeros_like(w)" not in reverse


def test_a_view_read_after_its_loop_keeps_its_own_adjoint():
    assert "W_bar[i] += w_bar" in _reverse(read_after_loop)


def test_which_views_alias_their_arrays_adjoint():
    for backend in ("python", "numba"):
        reverse = _reverse(written_before_loop, backend)
        assert "w_bar = W_bar[i]" in reverse and "+= w_bar" not in reverse
        reverse = _reverse(whole_rows, backend)
        assert "w_bar = W_bar[i]" in reverse and "e_bar = W_bar[i, 1:]" in reverse
        reverse = _reverse(rebound_in_loop, backend)
        assert "v_bar = A_bar[i]" not in reverse and "v_bar[...] = 0.0" in reverse
