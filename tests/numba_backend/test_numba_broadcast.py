"""srcad/runtime/numba_broadcast.py: np.broadcast_shapes and np.broadcast_to as straight-line
code for the ranks, what numba-compiled generated code calls in place of numba's own."""

import ast

import numpy as np
import pytest

numba = pytest.importorskip("numba")

import srcad  # noqa: E402
from srcad.runtime.numba_broadcast import broadcast_shape, broadcast_view  # noqa: E402


@numba.njit
def _views(a, b):
    shape = broadcast_shape(a.shape, b.shape)
    return shape, broadcast_view(a, shape), broadcast_view(b, shape)


@numba.njit
def _mixed(a, n):  # an int is a 1-D shape, () broadcasts with anything
    return broadcast_shape(a.shape, (), n, (3,))


@numba.njit
def _view(a, shape):
    return broadcast_view(a, shape)


def test_shapes_and_views_are_numpys():
    rng = np.random.default_rng(0)
    for sa, sb in (((3,), (2, 1)), ((2, 1), (1, 3)), ((0, 1), (3,))):  # few compiles
        a, b = rng.standard_normal(sa), rng.standard_normal(sb)[..., ::1]
        shape, va, vb = _views(a, b)
        assert shape == np.broadcast_shapes(sa, sb)
        for got, w in zip((va, vb), np.broadcast_arrays(a, b)):
            assert got.shape == w.shape
            # the steps of the axes longer than 1 (NumPy's and numba's differ on the others)
            assert [s for s, n in zip(got.strides, got.shape) if n > 1] == \
                [s for s, n in zip(w.strides, w.shape) if n > 1]
            np.testing.assert_array_equal(got, w)
            assert not got.flags.writeable  # read-only, as NumPy's and numba's view
    assert _mixed(np.ones((2, 1)), 1) == np.broadcast_shapes((2, 1), (), 1, (3,))
    every_other = np.arange(3.0)[::2, None]  # strides (16, 8)
    assert _view(every_other, (4, 2, 5)).strides == \
        np.broadcast_to(every_other, (4, 2, 5)).strides


def test_what_does_not_broadcast_raises_as_numba_does():
    with pytest.raises(ValueError, match="shape mismatch"):
        _views(np.ones(3), np.ones(4))
    with pytest.raises(ValueError, match="could not be broadcast"):
        _view(np.ones(3), (2, 4))
    with pytest.raises(ValueError, match="more dimensions"):
        _view(np.ones((2, 3)), (3,))
    with pytest.raises(ValueError, match="non-negative"):
        _view(np.ones(1), (-1,))


def stretched(x, y):
    z = np.broadcast_to(x, np.broadcast_shapes(x.shape, y.shape))
    return np.sum(z * y)


def test_generated_numba_code_calls_the_straight_line_helpers():
    x, y = np.ones((1, 3)), np.ones((2, 1))
    for mode in (srcad.Forward, srcad.Reverse):
        args = (srcad.Duplicated(x, np.ones_like(x)), y) if mode is srcad.Forward else (
            srcad.Duplicated(x, np.zeros_like(x)), y)
        source = srcad.source(stretched, mode, *args, backend="numba")
        called = {ast.unparse(n.func) for n in ast.walk(ast.parse(source))
                  if isinstance(n, ast.Call)}
        assert not called & {"np.broadcast_to", "np.broadcast_shapes"}, source
        assert {"broadcast_view", "broadcast_shape"} <= called, source


def test_a_number_spread_over_a_shape():
    got = _view(2.5, (2, 3))
    assert got.shape == (2, 3) and got.strides == (0, 0) and not got.flags.writeable
    np.testing.assert_array_equal(got, np.full((2, 3), 2.5))
