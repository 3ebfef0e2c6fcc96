"""Writes through views and aliases of arrays (`v = state[i]; v[k] = ...`, a row passed to a
helper that writes it, `blk = A[1:3, 0:2]`, an alias `out = state` later rebound): as in
NumPy, they write the array viewed, and every other view of it sees the write. Each scenario
is checked against central differences and forward against reverse (check_grads: forward,
reverse and vector mode) on the python backend; the numba backend runs one function holding
every kind of view (one compile per mode). Refusals name the file, the line and the view."""

import math

import numpy as np
import pytest

import srcad
from srcad import Const, Duplicated
from srcad.errors import SrcadError
from srcad.testing import check_grads

RNG = np.random.default_rng(11)


def dup(x):
    return Duplicated(x, np.zeros_like(x))


def row_writes(x):
    # a row bound to a name, written element by element and in place as a whole
    state = np.zeros((3, 4))
    for i in range(3):
        v = state[i]
        for k in range(4):
            v[k] = math.sin(x[i, k]) * x[i, k - 1]
        v += x[i] * x[i]
    return np.sum(state * state)


def column_writes(x):
    a = x.copy()
    for j in range(4):
        c = a[:, j]
        for i in range(1, 3):
            c[i] = c[i] * c[i - 1] + x[i, j]
    return np.sum(a * np.cos(a))


def block_writes(x):
    # a block of an argument's copy; the block and the array are read after the writes
    a = x.copy()
    blk = a[1:3, 0:2]
    for p in range(2):
        for q in range(2):
            blk[p, q] = blk[p, q] ** 2 * x[0, p + q]
    return np.sum(a * a) + np.sum(blk)


def strided_writes(x):
    a = x.copy()
    even = a[::2]
    for k in range(2):
        even[k] *= x[2 * k + 1]
    return np.sum(a ** 3)


def view_of_a_view(x):
    a = x.copy()
    for i in range(3):
        r = a[i]
        tail = r[1:]
        for k in range(3):
            tail[k] = tail[k] * r[0] + 1.0
    return np.sum(a * a)


def _step(out, h, w):
    # writes the row it is given: out = tanh(w * h) elementwise, as the C++ ports do
    for k in range(len(out)):
        out[k] = math.tanh(w[k] * h[k] + out[k])


def view_passed_to_a_helper(x, w):
    hidden = np.zeros((4, 3))
    hidden[0] = x
    for t in range(1, 4):
        _step(hidden[t], hidden[t - 1], w)
    return np.sum(hidden ** 2)


def alias_rebound(x):
    state = np.zeros(3)
    other = x.copy()
    out = state
    for k in range(3):
        out[k] = x[k] * x[k]
    out = other
    out[0] = out[0] * state[1]
    return np.sum(state * other)


def view_made_before_the_write(x):
    # c is made before its row is written: it reads the written values (NumPy's view)
    e = np.zeros((3, 4))
    total = 0.0
    for i in range(3):
        c = e[i]
        for j in range(4):
            e[i, j] = math.exp(x[i, j])
        total = total + np.sum(c * c)
    return total


def rows_iterated_and_written(x):
    a = x.copy()
    for row in a:
        row[:] = np.sin(row) * row[0]
    return np.sum(a * a)


def argument_row_written(x):
    # a row of an argument written through a view: the caller's array changes
    v = x[1]
    v[0] = v[0] * v[2]
    return np.sum(x * x)


SCENARIOS = [row_writes, column_writes, block_writes, strided_writes, view_of_a_view,
             alias_rebound, view_made_before_the_write, rows_iterated_and_written,
             argument_row_written]


@pytest.mark.parametrize("f", SCENARIOS, ids=lambda f: f.__name__)
def test_writes_through_views_are_differentiated(f):
    x = RNG.standard_normal((3, 4)) if f is not strided_writes else RNG.standard_normal(4)
    x = RNG.standard_normal(3) if f is alias_rebound else x
    check_grads(f, dup(x))


def test_a_helper_writing_the_row_it_is_given():
    x, w = RNG.standard_normal(3), RNG.standard_normal(3)
    check_grads(view_passed_to_a_helper, dup(x), dup(w))
    check_grads(view_passed_to_a_helper, dup(x), Const(w))


def test_a_write_through_a_view_matches_the_hand_derivative():
    # row_writes: state[i, k] = sin(x_ik) x_i,k-1 + x_ik^2, f = sum state^2
    x = RNG.standard_normal((3, 4))
    s = np.sin(x) * np.roll(x, 1, axis=1) + x * x
    ds_dx = np.cos(x) * np.roll(x, 1, axis=1) + 2 * x  # d s_ik / d x_ik
    ds_dprev = np.sin(x)  # d s_ik / d x_i,k-1
    expected = 2 * s * ds_dx + np.roll(2 * s * ds_dprev, -1, axis=1)
    for mode in ("reverse", "forward"):
        np.testing.assert_allclose(srcad.gradient(row_writes, x, mode=mode), expected,
                                   rtol=1e-12)


def every_kind_of_view(x, w):
    # the scenarios above in one function, for the numba backend (one compile per mode)
    a = np.zeros((4, 3))
    a[0] = x
    for t in range(1, 4):
        _step(a[t], a[t - 1], w)  # a row written by a helper
    out = a
    for i in range(4):
        row = out[i]  # a view of an alias
        row[0] = row[0] * row[2]
        row += w * row[1]
    blk = a[1:3, 0:2]
    for p in range(2):
        col = blk[:, p]  # a column of a block
        col[1] = col[0] * x[p]
    even = a[::2]  # every other row
    for p in range(2):
        tail = even[p][1:]  # a view of a view
        for k in range(2):
            tail[k] = tail[k] * w[k]
    for r in a:
        r[:] = np.sin(r) * r[0]
    return np.sum(a * a)


@pytest.mark.slow  # numba compilations or a bounded fuzz run: make test-all
def test_every_kind_of_view_on_numba():
    pytest.importorskip("numba")
    x, w = RNG.standard_normal(3), RNG.standard_normal(3)
    check_grads(every_kind_of_view, dup(x), dup(w), backend="numba")
    check_grads(every_kind_of_view, dup(x), dup(w))


# -- refused: a view whose array is not known from the source, or whose indices do not compose


def view_chosen_by_a_branch(x, flag):
    a = x.copy()
    b = np.zeros(3)
    if flag > 0:
        v = a
    else:
        v = b
    v[0] = x[1] * 2.0  # writes a or b, depending on flag
    return np.sum(a * b)


def view_of_a_rebound_array(x):
    a = x.copy()
    v = a[0:2]  # v keeps viewing the first a, read through a after a write through v
    s = 0.0
    for k in range(2):
        v[k] = x[k] * v[k]
        s = s + a[k]
        a = np.ones(3)
    return np.sum(a) + np.sum(v) + s


def view_kept_after_its_array_is_rebound(x):
    a = x.copy()
    v = a[0:2]  # no read through `a` sees the writes through `v`: v is as good as a copy
    for k in range(2):
        v[k] = x[k] * v[k]
        a = np.ones(3)
    return np.sum(a) + np.sum(v)


def test_a_view_whose_sharing_no_read_sees_is_differentiated_as_a_copy():
    x = np.array([0.5, -1.0, 2.0])
    check_grads(view_kept_after_its_array_is_rebound, dup(x))


@pytest.mark.parametrize("f, line, words", [
    (view_chosen_by_a_branch, 7, "`v` is a view whose array is not known here"),
    (view_of_a_rebound_array, 2, "`v` is a view of `a`, which is rebound while the view"),
])
def test_views_srcad_cannot_resolve_are_refused_by_line(f, line, words):
    line += f.__code__.co_firstlineno  # the line of the statement refused
    x = np.array([0.5, -1.0, 2.0])
    args = (x, 1.0) if f is view_chosen_by_a_branch else (x,)
    for mode in (srcad.Reverse, srcad.Forward):
        with pytest.raises(SrcadError) as info:
            srcad.autodiff(mode, f, dup(x.copy()), *args[1:])
        error = info.value
        assert error.filename == __file__ and error.line == line, (error.filename, error.line)
        assert words in str(error) and "write through a view" in str(error)
        assert error.hint
