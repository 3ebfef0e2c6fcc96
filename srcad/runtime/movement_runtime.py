"""What the derivatives of NumPy's shape and movement functions call besides NumPy
(srcad/rules/movement.py, srcad/rules/selection.py): the result shapes of np.tile, np.pad,
np.diagonal, ... from their operands' shapes, and the adjoints that put a seed back where
its elements came from. Every adjoint is a scatter-add (np.add.at, np.bincount or a reshape
and a sum), vectorized: no Python loop over elements. The python backend's generated code
calls them by these names (srcad/runtime/runtime_names.py).
"""

from __future__ import annotations

import numpy as np


def _size(shape) -> int:
    return int(np.prod(shape, dtype=np.int64))


def tiled_shape(shape, reps):
    """The shape of `np.tile(x, reps)` for an `x` of `shape`.

    >>> tiled_shape((2, 3), (2,)), tiled_shape((3,), (2, 2))
    ((2, 6), (2, 6))
    """
    reps = (reps,) if isinstance(reps, int) else tuple(reps)
    rank = max(len(shape), len(reps))
    full = (1,) * (rank - len(shape)) + tuple(shape)
    reps = (1,) * (rank - len(reps)) + reps
    return tuple(int(r * n) for r, n in zip(reps, full))


def untile(g, reps, shape):
    """The adjoint of `np.tile(x, reps)`: the seed's copies of each element summed.

    >>> untile(np.arange(6.0).reshape(2, 3), (2, 1), (3,))
    array([3., 5., 7.])
    """
    reps = (reps,) if isinstance(reps, int) else tuple(reps)
    rank = max(len(shape), len(reps))
    full = (1,) * (rank - len(shape)) + tuple(shape)
    reps = (1,) * (rank - len(reps)) + reps
    pairs = [n for pair in zip(reps, full) for n in pair]
    summed = np.sum(np.reshape(g, pairs), axis=tuple(range(0, 2 * rank, 2)))
    return np.reshape(summed, shape)


def repeated_shape(shape, repeats, axis):
    """The shape of `np.repeat(x, repeats, axis)`.

    >>> repeated_shape((2, 3), 2, None), repeated_shape((2, 3), (1, 0, 2), 1)
    ((12,), (2, 3))
    """
    length = _size(shape) if axis is None else shape[axis]
    count = int(np.sum(np.broadcast_to(repeats, (length,))))
    if axis is None:
        return (count,)
    return tuple(shape[:axis]) + (count,) + tuple(shape[axis + 1:])


def unrepeat(g, repeats, axis, shape):
    """The adjoint of `np.repeat(x, repeats, axis)`: each element's repeats summed.

    >>> unrepeat(np.arange(4.0), 2, None, (2,))
    array([1., 5.])
    >>> unrepeat(np.arange(3.0), (2, 1), 0, (2,))
    array([1., 2.])
    """
    if axis is None:
        return np.reshape(unrepeat(g, repeats, 0, (_size(shape),)), shape)
    if isinstance(repeats, int):
        split = tuple(shape[:axis]) + (shape[axis], repeats) + tuple(shape[axis + 1:])
        return np.sum(np.reshape(g, split), axis=axis + 1)
    index = np.repeat(np.arange(shape[axis]), repeats)
    return scatter_along(g, index, axis, shape)


def scatter_along(g, index, axis, shape):
    """Zeros of `shape` with `g` added at `index` along `axis` (the adjoint of
    `np.take(x, index, axis)`; repeated indices add up).

    >>> scatter_along(np.ones(3), np.array([0, 2, 0]), 0, (3,))
    array([2., 0., 1.])
    """
    out = np.zeros(shape)
    index = np.asarray(index)
    moved = np.moveaxis(np.asarray(g, dtype=float), tuple(range(axis, axis + index.ndim)),
                        tuple(range(index.ndim)))
    np.add.at(np.moveaxis(out, axis, 0), index, moved)
    return out


def taken_shape(shape, index_shape, axis):
    """The shape of `np.take(x, index, axis)`.

    >>> taken_shape((2, 3), (4,), 1), taken_shape((2, 3), (), None)
    ((2, 4), ())
    """
    if axis is None:
        return tuple(index_shape)
    return tuple(shape[:axis]) + tuple(index_shape) + tuple(shape[axis + 1:])


def untake(g, index, axis, mode, shape):
    """The adjoint of `np.take(x, index, axis, mode=mode)`.

    >>> untake(np.ones(2), np.array([-1, 5]), None, "clip", (2, 2))
    array([[1., 0.],
           [0., 1.]])
    """
    length = _size(shape) if axis is None else shape[axis]
    index = np.asarray(index)
    if mode == "wrap":
        index = index % length
    elif mode == "clip":
        index = np.clip(index, 0, length - 1)
    if axis is None:
        return np.reshape(scatter_along(g, index, 0, (length,)), shape)
    return scatter_along(g, index, axis, shape)


def along_shape(shape, index_shape, axis):
    """The shape of `np.take_along_axis(x, index, axis)`.

    >>> along_shape((2, 3), (2, 1), 1), along_shape((2, 3), (4,), None)
    ((2, 1), (4,))
    """
    if axis is None:
        return tuple(index_shape)
    widened = tuple(shape[:axis]) + (index_shape[axis],) + tuple(shape[axis + 1:])
    return tuple(np.broadcast_shapes(widened, tuple(index_shape)))


def untake_along_axis(g, index, axis, shape):
    """The adjoint of `np.take_along_axis(x, index, axis)`.

    >>> untake_along_axis(np.ones((1, 2)), np.array([[1, 1]]), 1, (1, 3))
    array([[0., 2., 0.]])
    """
    if axis is None:
        return np.reshape(scatter_along(g, index, 0, (_size(shape),)), shape)
    g = np.asarray(g, dtype=float)
    grids = list(np.ogrid[tuple(slice(1 if n == 1 else m) for n, m in zip(shape, g.shape))])
    grids[axis] = np.asarray(index)
    out = np.zeros(shape)
    np.add.at(out, tuple(grids), g)
    return out


def _diagonal_positions(shape, offset, axis1, axis2):
    length = len(range(max(-offset, 0), shape[axis1]))
    length = max(0, min(length, shape[axis2] - max(offset, 0)))
    steps = np.arange(length)
    return steps + max(-offset, 0), steps + max(offset, 0)


def diagonal_shape(shape, offset, axis1, axis2):
    """The shape of `np.diagonal(x, offset, axis1, axis2)`.

    >>> diagonal_shape((3, 4), 1, 0, 1), diagonal_shape((2, 3, 4), -1, 2, 1)
    ((3,), (2, 3))
    """
    rows, _ = _diagonal_positions(shape, offset, axis1, axis2)
    rest = tuple(n for k, n in enumerate(shape) if k not in (axis1, axis2))
    return rest + (len(rows),)


def undiagonal(g, shape, offset, axis1, axis2):
    """The adjoint of `np.diagonal(x, offset, axis1, axis2)`: `g` on that diagonal of zeros.

    >>> undiagonal(np.array([1.0, 2.0]), (2, 3), 1, 0, 1)
    array([[0., 1., 0.],
           [0., 0., 2.]])
    """
    out = np.zeros(shape)
    rows, columns = _diagonal_positions(shape, offset, axis1, axis2)
    np.moveaxis(out, (axis1, axis2), (-2, -1))[..., rows, columns] = g
    return out


def untrace(g, shape, offset, axis1, axis2):
    """The adjoint of `np.trace(x, offset, axis1, axis2)`: `g` along that diagonal.

    >>> untrace(2.0, (2, 2), 0, 0, 1)
    array([[2., 0.],
           [0., 2.]])
    """
    length = diagonal_shape(shape, offset, axis1, axis2)[-1]
    g = np.asarray(g, dtype=float)
    spread = np.broadcast_to(g[..., None], g.shape + (length,))
    return undiagonal(spread, shape, offset, axis1, axis2)


def pad_widths(shape, pad_width):
    """np.pad's `pad_width` as one (before, after) pair per axis.

    >>> pad_widths((2, 3), 1).tolist(), pad_widths((2, 3), ((1, 0), (0, 2))).tolist()
    ([[1, 1], [1, 1]], [[1, 0], [0, 2]])
    """
    return np.broadcast_to(np.asarray(pad_width, dtype=np.int64), (len(shape), 2))


def padded_shape(shape, pad_width):
    """The shape of `np.pad(x, pad_width, ...)`.

    >>> padded_shape((2, 3), ((1, 0), (0, 2)))
    (3, 5)
    """
    widths = pad_widths(shape, pad_width)
    return tuple(int(n + a + b) for n, (a, b) in zip(shape, widths))


def unpad(g, shape, pad_width, mode):
    """The adjoint of `np.pad(x, pad_width, mode)` (mode constant, edge, reflect, symmetric or
    wrap): each padded element's seed added to the element of `x` it copies. The positions
    come from padding the array of `x`'s flat positions the same way.

    >>> unpad(np.ones(5), (3,), 1, "edge")
    array([2., 1., 2.])
    """
    size = _size(shape)
    positions = np.reshape(np.arange(size), shape)
    if mode == "constant":  # the constant elements go to a position past the end, dropped
        padded = np.pad(positions, pad_width, mode="constant", constant_values=size)
    else:
        padded = np.pad(positions, pad_width, mode=mode)
    weights = np.ravel(np.broadcast_to(g, padded.shape)).astype(float)
    summed = np.bincount(np.ravel(padded), weights=weights, minlength=size + 1)
    return np.reshape(summed[:size], shape)


def sort_order(x, axis):
    """The permutation `np.sort(x, axis)` applies (stable: tied elements keep their order,
    as in JAX's sort), as indices for np.take_along_axis (axis None: of the flat array).

    >>> sort_order(np.array([2.0, 1.0, 2.0]), -1)
    array([1, 0, 2])
    """
    return np.argsort(x, axis=axis, kind="stable")


def unsort(g, x, axis):
    """The adjoint of `np.sort(x, axis)`: the seed put back in `x`'s order.

    >>> unsort(np.array([10.0, 20.0, 30.0]), np.array([3.0, 1.0, 2.0]), -1)
    array([30., 10., 20.])
    """
    x = np.asarray(x)
    if axis is None:
        order = np.argsort(np.ravel(x), kind="stable")
        out = np.empty(x.size)
        out[order] = np.ravel(g)
        return np.reshape(out, x.shape)
    inverse = np.argsort(sort_order(x, axis), axis=axis, kind="stable")
    return np.take_along_axis(np.broadcast_to(g, x.shape), inverse, axis=axis)


def partition_order(x, ans, axis):
    """The permutation that puts `x`'s elements where `ans = np.partition(x, kth, axis)` has
    them (axis None: of the flat array): the element of each rank in x goes where that rank
    is in ans (ties: in their order, as a stable sort). Read from the result, so it is
    NumPy's arrangement whatever its algorithm.

    >>> partition_order(np.array([3.0, 1.0, 2.0]), np.array([1.0, 2.0, 3.0]), -1)
    array([1, 2, 0])
    """
    if axis is None:
        x, ans, axis = np.ravel(x), np.ravel(ans), -1
    in_x = np.argsort(x, axis=axis, kind="stable")
    rank_in_ans = np.argsort(np.argsort(ans, axis=axis, kind="stable"), axis=axis)
    return np.take_along_axis(in_x, rank_in_ans, axis=axis)


def unpartition(g, x, ans, axis):
    """The adjoint of `ans = np.partition(x, kth, axis)`: the seed put back in x's order.

    >>> unpartition(np.array([10.0, 20.0, 30.0]), np.array([3.0, 1.0, 2.0]),
    ...             np.array([1.0, 2.0, 3.0]), -1)
    array([30., 10., 20.])
    """
    order = partition_order(x, ans, axis)
    back = np.argsort(order, axis=-1 if axis is None else axis)
    if axis is None:
        return np.reshape(np.take(np.ravel(g), back), np.shape(x))
    return np.take_along_axis(g, back, axis=axis)


# the names generated code calls (srcad/runtime/runtime_names.py)
MOVEMENT_RUNTIME_NAMES = ("tiled_shape", "untile", "repeated_shape", "unrepeat",
                          "taken_shape", "untake", "along_shape", "untake_along_axis",
                          "diagonal_shape", "undiagonal", "untrace", "padded_shape", "unpad",
                          "sort_order", "unsort", "partition_order", "unpartition")
__all__ = list(MOVEMENT_RUNTIME_NAMES)
