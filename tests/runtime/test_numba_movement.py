"""srcad/runtime/numba_movement.py and numba_selection.py against NumPy: each compiled
`moved_<name>` gives NumPy's result for the keywords NumPy takes, and each compiled adjoint
gives srcad/runtime/movement_runtime.py's (the python backend's, itself checked against finite
differences in tests/rules/test_shape_rules.py). Compiles numba code: make test-all."""

import numpy as np
import pytest

numba = pytest.importorskip("numba")

from srcad.runtime import movement_runtime as P  # noqa: E402
from srcad.runtime import numba_diagonals as G  # noqa: E402
from srcad.runtime import numba_movement as M  # noqa: E402
from srcad.runtime import numba_padding as D  # noqa: E402
from srcad.runtime import numba_selection as S  # noqa: E402

pytestmark = pytest.mark.slow
RNG = np.random.default_rng(0)
X3 = RNG.normal(size=(2, 3, 4))
X = X3[0, :2, :3].copy()
IDX, IDX2, WIDE = np.array([2, 0, 2, 1]), np.array([[1, 0], [0, 2]]), np.array([-7, 1, 9])
ORDER, COLUMN = np.array([[2, 2, 0], [1, 0, 1]]), np.array([[1], [2]])


def _same(got, expected):
    assert len(got) == len(expected)
    for k, (g, e) in enumerate(zip(got, expected)):
        assert np.shape(g) == np.shape(e), (k, np.shape(g), np.shape(e))
        np.testing.assert_allclose(g, e, rtol=1e-13, atol=1e-15, err_msg=str(k))


def test_flips_rolls_and_turns_are_numpys():
    @numba.njit
    def moved(x):
        return (M.moved_flip(x), M.moved_flip(x, 1), M.moved_flip(x, (0, -1)),
                M.moved_roll(x, 2), M.moved_roll(x, -1, axis=1),
                M.moved_roll(x, (1, 2), axis=(0, 1)), M.moved_roll(x, (1, 2), 2),
                M.moved_rot90(x), M.moved_rot90(x, 3), M.moved_rot90(x, k=2, axes=(1, 2)),
                M.moved_rot90(x, -1, (1, 0)))
    x = X3
    _same(moved(x), (np.flip(x), np.flip(x, 1), np.flip(x, (0, -1)), np.roll(x, 2),
                     np.roll(x, -1, axis=1), np.roll(x, (1, 2), axis=(0, 1)),
                     np.roll(x, (1, 2), 2), np.rot90(x), np.rot90(x, 3),
                     np.rot90(x, k=2, axes=(1, 2)), np.rot90(x, -1, (1, 0))))


def test_tile_repeat_and_their_adjoints_are_numpys():
    @numba.njit
    def moved(x):
        return (M.moved_tile(x, 2), M.moved_tile(x, (2, 1)), M.moved_tile(x, (2, 1, 2)),
                M.moved_repeat(x, 2), M.moved_repeat(x, 3, axis=1),
                M.moved_repeat(x, (1, 0, 2), axis=-1), M.moved_repeat(x, (2,), 0))

    @numba.njit
    def adjoints(g1, g2, g3, g4):
        return (M.untile(g1, 2, (2, 3)), M.untile(g2, (2, 1), (2, 3)),
                M.untile(g3, (2, 1, 2), (2, 3)), M.unrepeat(g4, 2, None, (2, 3)),
                M.unrepeat(g1[:, :3], (1, 0, 2), 1, (2, 3)))
    x = X
    _same(moved(x), (np.tile(x, 2), np.tile(x, (2, 1)), np.tile(x, (2, 1, 2)),
                     np.repeat(x, 2), np.repeat(x, 3, axis=1),
                     np.repeat(x, (1, 0, 2), axis=-1), np.repeat(x, (2,), 0)))
    g1, g2, g3 = RNG.normal(size=(2, 6)), RNG.normal(size=(4, 3)), RNG.normal(size=(2, 2, 6))
    g4 = RNG.normal(size=12)
    _same(adjoints(g1, g2, g3, g4), (
        P.untile(g1, 2, (2, 3)), P.untile(g2, (2, 1), (2, 3)), P.untile(g3, (2, 1, 2), (2, 3)),
        P.unrepeat(g4, 2, None, (2, 3)), P.unrepeat(g1[:, :3], (1, 0, 2), 1, (2, 3))))
    shapes = numba.njit(lambda: (M.tiled_shape((2, 3), (2, 1, 2)), M.tiled_shape((2, 3), 2),
                                 M.repeated_shape((2, 3), 2, None),
                                 M.repeated_shape((2, 3), (1, 0, 2), 1)))()
    assert shapes == ((2, 2, 6), (2, 6), (12,), (2, 3))


def test_every_pad_mode_and_its_adjoint_are_numpys():
    @numba.njit
    def padded(x, y):
        return (D.moved_pad(y, 1), D.moved_pad(x, ((1, 0), (0, 2))),
                D.moved_pad(x, 2, mode="edge"), D.moved_pad(x, (2, 1), "reflect"),
                D.moved_pad(y, 3, mode="wrap"), D.moved_pad(x, 1, mode="symmetric"),
                D.moved_pad(x, pad_width=1, constant_values=2.5),
                D.moved_pad(x, 1, constant_values=(1.0, 2.0)), D.moved_pad(x, 7, "reflect"),
                D.moved_pad(x, 7, "symmetric"), D.moved_pad(y, 9, "wrap"))

    @numba.njit
    def adjoints(g, h):
        return (D.unpad(g, (2, 3), 7, "reflect"), D.unpad(g, (2, 3), 7, "symmetric"),
                D.unpad(h, (2, 3), ((1, 0), (0, 2)), "constant"))
    x, y = X, np.arange(4.0)
    _same(padded(x, y), (
        np.pad(y, 1), np.pad(x, ((1, 0), (0, 2))), np.pad(x, 2, mode="edge"),
        np.pad(x, (2, 1), "reflect"), np.pad(y, 3, mode="wrap"), np.pad(x, 1, mode="symmetric"),
        np.pad(x, pad_width=1, constant_values=2.5), np.pad(x, 1, constant_values=(1.0, 2.0)),
        np.pad(x, 7, "reflect"), np.pad(x, 7, "symmetric"), np.pad(y, 9, "wrap")))
    g, h = RNG.normal(size=(16, 17)), RNG.normal(size=(3, 5))
    _same(adjoints(g, h), (P.unpad(g, (2, 3), 7, "reflect"), P.unpad(g, (2, 3), 7, "symmetric"),
                           P.unpad(h, (2, 3), ((1, 0), (0, 2)), "constant")))


def test_take_and_its_adjoints_are_numpys():
    @numba.njit
    def taken(x, x3):
        return (S.moved_take(x, IDX), S.moved_take(x, IDX[:3], axis=1),
                S.moved_take(x3, IDX2, axis=0), S.moved_take(x, WIDE, mode="wrap"),
                S.moved_take(x, WIDE, axis=1, mode="clip"), S.moved_take(x, 4),
                S.moved_take(x, indices=IDX2, axis=-1), S.moved_take(x3[:, 0], (0, 2, 2)),
                S.moved_take(x, 1, axis=1))

    @numba.njit
    def adjoints(g1, g2, g3, ga, gb):
        return (S.untake(g1, IDX, None, "raise", (2, 3)), S.untake(g2, IDX2, 0, "raise", (3, 2)),
                S.untake(g3, WIDE, 1, "clip", (2, 3)), S.untake(2.0, 4, None, "raise", (2, 3)),
                S.untake_along_axis(ga, ORDER, 1, (2, 3)),
                S.untake_along_axis(gb, COLUMN, 1, (2, 3)),
                S.untake_along_axis(g1, IDX, None, (2, 3)),
                S.untake_along_axis(ga, -ORDER, 1, (2, 3)))
    x, x3 = X, RNG.normal(size=(3, 2))
    _same(taken(x, x3), (
        np.take(x, IDX), np.take(x, IDX[:3], axis=1), np.take(x3, IDX2, axis=0),
        np.take(x, WIDE, mode="wrap"), np.take(x, WIDE, axis=1, mode="clip"), np.take(x, 4),
        np.take(x, indices=IDX2, axis=-1), np.take(x3[:, 0], [0, 2, 2]),
        np.take(x, 1, axis=1)))
    g1, g2, g3 = RNG.normal(size=4), RNG.normal(size=(2, 2, 2)), RNG.normal(size=(2, 3))
    ga, gb = RNG.normal(size=(2, 3)), RNG.normal(size=(2, 1))
    _same(adjoints(g1, g2, g3, ga, gb), (
        P.untake(g1, IDX, None, "raise", (2, 3)), P.untake(g2, IDX2, 0, "raise", (3, 2)),
        P.untake(g3, WIDE, 1, "clip", (2, 3)), P.untake(2.0, 4, None, "raise", (2, 3)),
        P.untake_along_axis(ga, ORDER, 1, (2, 3)), P.untake_along_axis(gb, COLUMN, 1, (2, 3)),
        P.untake_along_axis(g1, IDX, None, (2, 3)), P.untake_along_axis(ga, -ORDER, 1, (2, 3))))
    shapes = numba.njit(lambda: (S.taken_shape((3, 2), (2, 2), 0), S.taken_shape((2, 3), (), 1),
                                 S.along_shape((2, 3), (2, 1), 1)))()
    assert shapes == ((2, 2, 2), (2,), (2, 1))


def test_a_take_out_of_bounds_raises_as_numpys():
    with pytest.raises(IndexError):
        numba.njit(lambda x: S.moved_take(x, 7))(X)


def test_diagonals_traces_and_sorts_are_numpys():
    @numba.njit
    def selected(m, xs):
        return (G.moved_diagonal(m), G.moved_diagonal(m, 1), G.moved_diagonal(m, -1, 1, 0),
                G.moved_trace(m), G.moved_trace(m, 2), G.moved_trace(m, -1, 1, 0),
                S.moved_sort(xs), S.moved_sort(xs, axis=0), S.moved_sort(xs, axis=None),
                S.moved_sort(xs, kind="stable"))

    @numba.njit
    def adjoints(g, xs, gs):
        return (G.undiagonal(g, (3, 4), 1, 0, 1), G.undiagonal(g[:2], (4, 3), -1, 1, 0),
                G.untrace(1.5, (3, 4), 1, 0, 1), G.untrace(1.5, (3, 4), -1, 1, 0),
                S.sort_order(xs, 0), S.sort_order(xs, None), S.sort_order(xs, -1),
                S.unsort(gs, xs, 0), S.unsort(gs, xs, 1), S.unsort(gs.ravel(), xs, None))
    m = RNG.normal(size=(3, 4))
    xs = np.array([[3.0, 1.0, 3.0], [2.0, 2.0, 0.0]])  # ties: the stable order
    _same(selected(m, xs), (
        np.diagonal(m), np.diagonal(m, 1), np.diagonal(m, -1, 1, 0), np.trace(m),
        np.trace(m, 2), np.trace(m, -1, 1, 0), np.sort(xs), np.sort(xs, axis=0),
        np.sort(xs, axis=None), np.sort(xs, kind="stable")))
    g, gs = RNG.normal(size=3), RNG.normal(size=(2, 3))
    _same(adjoints(g, xs, gs), (
        P.undiagonal(g, (3, 4), 1, 0, 1), P.undiagonal(g[:2], (4, 3), -1, 1, 0),
        P.untrace(1.5, (3, 4), 1, 0, 1), P.untrace(1.5, (3, 4), -1, 1, 0),
        P.sort_order(xs, 0), P.sort_order(xs, None), P.sort_order(xs, -1),
        P.unsort(gs, xs, 0), P.unsort(gs, xs, 1), P.unsort(gs.ravel(), xs, None)))
