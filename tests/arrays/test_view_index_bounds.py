"""An index into a slice view is checked against the view, as NumPy checks it: srcad reads a
view written through as its array with the indices composed (`v = a[1:3]; v[k]` is
`a[1 + k]`), and `a[1 + 5]` may exist where `v[5]` does not. Out of the view, the generated
code raises IndexError in every mode and on both backends; a negative index counts from the
view's end (`v[-1]` is the view's last element). Derivatives are checked against central
differences (check_grads) and, on numba, against the python backend."""

import numpy as np
import pytest

import srcad
from srcad import BatchDuplicated, Duplicated
from srcad.testing import check_grads

X = np.array([0.5, -1.0, 2.0, 1.5, -0.7, 0.3, 1.1, 0.9])


def dup(x):
    return Duplicated(x.copy(), np.zeros_like(x))


def literal_past_the_view(x):
    a = x.copy()
    v = a[1:3]  # two elements; a[6] exists, v[5] does not
    v[5] = x[0] * 2.0
    return np.sum(a * a)


def counter_past_the_view(x):
    a = x.copy()
    v = a[1:3]
    for k in range(3):  # v[2] is out of the view, a[3] is not
        v[k] = x[k] * v[k]
    return np.sum(a * a)


def read_past_the_view(x):
    a = x.copy()
    v = a[2:6:2]  # a[2], a[4]
    v[0] = x[1] * x[1]
    return v[2] * 3.0 + np.sum(a)  # a[6] exists, v[2] does not


def past_a_view_from_the_end(x):
    a = x.copy()
    v = a[-3:]  # the last three; v[3] is not a[0]
    for k in range(4):
        v[k] = v[k] * x[0]
    return np.sum(a * a)


def past_a_view_with_computed_bounds(x, i):
    a = x.copy()
    v = a[i:i + 2]
    for k in range(3):
        v[k] = v[k] * x[k]
    return np.sum(a * a)


OUT_OF_THE_VIEW = [(literal_past_the_view, ()), (counter_past_the_view, ()),
                   (read_past_the_view, ()), (past_a_view_from_the_end, ()),
                   (past_a_view_with_computed_bounds, (2,))]


@pytest.mark.parametrize("f, rest", OUT_OF_THE_VIEW, ids=lambda v: getattr(v, "__name__", ""))
def test_an_index_out_of_the_view_raises_index_error_in_every_mode(f, rest):
    with pytest.raises(IndexError):  # what NumPy does
        f(X.copy(), *rest)
    lanes = np.stack([np.ones_like(X), np.arange(len(X), dtype=float)])
    for mode, x in ((srcad.Reverse, dup(X)), (srcad.ReverseWithPrimal, dup(X)),
                    (srcad.Forward, dup(X)), (srcad.Forward, BatchDuplicated(X.copy(), lanes))):
        with pytest.raises(IndexError, match="out of bounds for a view of size"):
            srcad.autodiff(mode, f, x, *rest)


# -- in the view: negative indices, computed bounds, a view from the end


def negative_indices(x):
    a = x.copy()
    v = a[1:5]  # a[1..4]
    v[-1] = x[0] * x[2]  # a[4]
    v[-4] = v[-1] * x[3]  # a[1]
    return np.sum(a * a) + v[-2]  # + a[3]


def computed_bounds(x, i):
    a = x.copy()
    v = a[i:i + 3]
    for k in range(3):
        v[k] = v[k] * x[k] + v[k - 1]  # v[-1] at k = 0: the view's last element
    return np.sum(a * a)


def from_the_end(x):
    a = x.copy()
    w = a[-3:]
    for k in range(3):
        w[k] = w[k] * x[k]
    return np.sum(a * np.sin(a))


def blocks_made_in_a_loop(x):
    a = x.copy()
    for b in range(3):
        blk = a[2 * b:2 * b + 3]  # overlapping blocks, their bounds computed per iteration
        for k in range(3):
            blk[k] = blk[k] * x[k] + blk[-1]
    return np.sum(a * a)


def _negative_indices_by_hand(x):
    """The gradient of negative_indices, derived by hand: a[4] = x0 x2, a[1] = x0 x2 x3, the
    rest of a is x, and the result is sum(a^2) + x3."""
    a4, a1 = x[0] * x[2], x[0] * x[2] * x[3]
    g = 2.0 * x.copy()
    g[1] = g[4] = 0.0
    for weight, factors in ((2.0 * a4, {0: x[2], 2: x[0]}),
                            (2.0 * a1, {0: x[2] * x[3], 2: x[0] * x[3], 3: x[0] * x[2]})):
        for j, d in factors.items():
            g[j] += weight * d
    g[3] += 1.0
    return g


def test_a_negative_index_reads_and_writes_from_the_end_of_the_view():
    x_bar = np.zeros_like(X)
    srcad.autodiff(srcad.Reverse, negative_indices, Duplicated(X.copy(), x_bar))
    np.testing.assert_allclose(x_bar, _negative_indices_by_hand(X), rtol=1e-12)
    check_grads(negative_indices, dup(X))


@pytest.mark.parametrize("f, rest", [(computed_bounds, (1,)), (computed_bounds, (-5,)),
                                     (from_the_end, ()), (blocks_made_in_a_loop, ())],
                         ids=["i=1", "i=-5", "from_the_end", "blocks_made_in_a_loop"])
def test_views_in_range_are_differentiated(f, rest):
    check_grads(f, dup(X), *rest)


# -- numba: the same checks compiled (one function, two modes)


def through_a_slice(x, k, n):
    a = x.copy()
    v = a[1:3]
    for j in range(n):  # a counter: compared with the view's size, no call in range
        v[j] = v[j] * x[j]
    v[k] = x[0] * x[3]  # any int: the checked element, from the end when negative
    return np.sum(a * a)


@pytest.mark.parametrize("mode", [srcad.Reverse, srcad.Forward])
def test_numba_checks_the_view_as_numpy_does(mode):
    pytest.importorskip("numba")
    for k, n in ((-1, 2), (-2, 1), (1, 2)):
        python, compiled = dup(X), dup(X)
        if mode is srcad.Forward:
            python = compiled = Duplicated(X.copy(), np.arange(len(X), dtype=float))
        expected = srcad.autodiff(mode, through_a_slice, python, k, n)
        got = srcad.autodiff(mode, through_a_slice, compiled, k, n, backend="numba")
        np.testing.assert_allclose(np.asarray(got, dtype=float), np.asarray(expected,
                                                                            dtype=float))
        np.testing.assert_allclose(compiled.shadow, python.shadow)
    check_grads(through_a_slice, dup(X), -1, 2)  # the python backend against differences
    for k, n in ((2, 2), (-3, 2), (0, 3)):
        with pytest.raises(IndexError):
            through_a_slice(X.copy(), k, n)
        with pytest.raises(IndexError, match="out of bounds for a view"):
            srcad.autodiff(mode, through_a_slice, dup(X), k, n, backend="numba")
