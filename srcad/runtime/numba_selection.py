"""NumPy's selecting functions, compiled: what numba-compiled derivative code calls for
np.take (`axis=`, `mode=`) and np.sort (`axis=`, its stable order), which numba lacks or has
without those keywords, and the adjoints srcad/runtime/movement_runtime.py gives the python
backend (`untake`, `untake_along_axis`, `sort_order`, `unsort` and the result shapes), under
the same names and signatures (np.diagonal and np.trace: srcad/runtime/numba_diagonals.py).
np.take_along_axis, np.diag and np.diagflat are numba's own.

As in srcad/runtime/numba_movement.py: `moved_<name>` has NumPy's signature and a numba
`overload` that picks the implementation for the argument types; a result whose rank
depends on the operands' is built by source made for those ranks. Types they do not cover
fail to type, which srcad reports as a refusal naming the call.

Imported by generated numba modules only (it imports numba).
"""

from __future__ import annotations

import numpy as np
from numba import types
from numba.core.errors import TypingError
from numba.cpython.unsafe.tuple import tuple_setitem
from numba.extending import overload, register_jitable
from numba.np.unsafe.ndarray import to_fixed_tuple

from srcad.runtime.numba_movement import add_rows, int_type, omitted_argument, size_of, take_rows


def _index_rank(indices) -> int:
    if int_type(indices):
        return 0
    if isinstance(indices, (types.UniTuple, types.List)):
        return 1
    if isinstance(indices, types.Array) and isinstance(indices.dtype, types.Integer):
        return indices.ndim
    raise TypingError("np.take: srcad compiles int indices (a number, a tuple, a list or an "
                      "int array)")


def flat_index(indices):
    """`indices` as a 1-D int64 array."""


@overload(flat_index)
def _flat_index(indices):
    if int_type(indices):
        return lambda indices: np.full(1, indices, np.int64)
    if isinstance(indices, types.Array):
        return lambda indices: np.ascontiguousarray(indices).reshape(-1).astype(np.int64)

    def listed(indices):
        out = np.empty(len(indices), np.int64)
        for k in range(len(indices)):
            out[k] = indices[k]
        return out
    return listed


@register_jitable
def fixed_index(index, length, mode):
    """np.take's index into `length` elements: 'raise' (negative from the end, checked),
    'wrap' or 'clip'."""
    out = np.empty(index.size, np.int64)
    for k in range(index.size):
        q = index[k]
        if mode == "wrap":
            q = q % length
        elif mode == "clip":
            q = min(max(q, 0), length - 1)
        else:
            q = q + length if q < 0 else q
            if not 0 <= q < length:
                raise IndexError("np.take: an index is out of bounds")
        out[k] = q
    return out


def _compile(source: str):
    namespace = {"np": np, "take_rows": take_rows, "add_rows": add_rows,
                 "flat_index": flat_index, "fixed_index": fixed_index, "size_of": size_of,
                 "to_fixed_tuple": to_fixed_tuple, "tuple_setitem": tuple_setitem}
    exec(source, namespace)
    return namespace["impl"]


def _shape_source(rank: int, index_rank: int, shape: str, index_shape: str) -> str:
    """Source of np.take's result shape along `axis` (a run-time int) as a tuple."""
    lines = [f"    sizes = np.empty({rank - 1 + index_rank}, np.int64)",
             f"    for d in range({rank}):",
             "        if d < axis:", f"            sizes[d] = {shape}[d]",
             "        elif d > axis:", f"            sizes[d - 1 + {index_rank}] = {shape}[d]"]
    if index_rank:
        lines += [f"    for d in range({index_rank}):",
                  f"        sizes[axis + d] = {index_shape}[d]"]
    lines += [f"    sizes_tuple = to_fixed_tuple(sizes, {rank - 1 + index_rank})"]
    return "\n".join(lines)


# -- np.take -------------------------------------------------------------------------------------

def moved_take(a, indices, axis=None, out=None, mode="raise"):
    return np.take(a, indices, axis=axis, mode=mode)


@overload(moved_take)
def _take(a, indices, axis=None, out=None, mode="raise"):
    index_rank, rank = _index_rank(indices), a.ndim
    mode_of = "'raise'" if omitted_argument(mode) else "mode"
    head = ["def impl(a, indices, axis=None, out=None, mode='raise'):",
            "    index = flat_index(indices)"]
    if omitted_argument(axis):
        lines = head + ["    values = np.ascontiguousarray(a).reshape(-1)",
                        f"    taken = take_rows(values, 0, fixed_index(index, values.size, "
                        f"{mode_of}))"]
        result = {0: "taken[0]", 1: "taken"}.get(index_rank, "taken.reshape(indices.shape)")
        return _compile("\n".join(lines + [f"    return {result}"]))
    lines = head + ["    axis = axis % a.ndim",
                    f"    taken = take_rows(a, axis, fixed_index(index, a.shape[axis], "
                    f"{mode_of}))"]
    if index_rank == 1:
        return _compile("\n".join(lines + ["    return taken"]))
    index_shape = "indices.shape" if index_rank else "()"
    lines.append(_shape_source(rank, index_rank, "a.shape", index_shape))
    lines.append("    return taken.reshape(sizes_tuple)" if rank - 1 + index_rank
                 else "    return taken[0]")
    return _compile("\n".join(lines))


def untake(g, index, axis, mode, shape):
    """The adjoint of np.take (srcad/runtime/movement_runtime.py's)."""


@overload(untake)
def _untake(g, index, axis, mode, shape):
    lines = ["def impl(g, index, axis, mode, shape):", "    flat = flat_index(index)",
             "    seed = np.ascontiguousarray(np.asarray(g))"]
    if omitted_argument(axis):
        lines += ["    size = size_of(shape)",
                  "    out = add_rows(seed.reshape(-1), 0, fixed_index(flat, size, mode), size)",
                  "    return out.sum()" if len(shape) == 0 else "    return out.reshape(shape)"]
        return _compile("\n".join(lines))
    lines += ["    seed = seed.reshape(tuple_setitem(shape, axis, flat.size))",
              "    return add_rows(seed, axis, fixed_index(flat, shape[axis], mode), "
              "shape[axis])"]
    return _compile("\n".join(lines))


def taken_shape(shape, index_shape, axis):
    """The shape of np.take (srcad/runtime/movement_runtime.py's)."""


@overload(taken_shape)
def _taken_shape(shape, index_shape, axis):
    if omitted_argument(axis):
        return lambda shape, index_shape, axis: index_shape
    rank, index_rank = len(shape), len(index_shape)
    return _compile("\n".join(["def impl(shape, index_shape, axis):",
                               _shape_source(rank, index_rank, "shape", "index_shape"),
                               "    return sizes_tuple"]))


# -- np.take_along_axis's adjoint -------------------------------------------------------------

def untake_along_axis(g, index, axis, shape):
    """The adjoint of np.take_along_axis (srcad/runtime/movement_runtime.py's)."""


@overload(untake_along_axis)
def _untake_along_axis(g, index, axis, shape):
    if omitted_argument(axis):
        def flat(g, index, axis, shape):
            size = size_of(shape)
            positions = fixed_index(flat_index(index), size, "raise")
            return add_rows(np.ascontiguousarray(g).reshape(-1), 0, positions,
                            size).reshape(shape)
        return flat

    def along(g, index, axis, shape):
        out = np.zeros(shape)
        for position in np.ndindex(g.shape):
            at = position
            read = position
            for d in range(len(shape)):
                if index.shape[d] == 1:
                    read = tuple_setitem(read, d, 0)
                if shape[d] == 1:
                    at = tuple_setitem(at, d, 0)
            q = index[read]
            at = tuple_setitem(at, axis, q + shape[axis] if q < 0 else q)
            out[at] += g[position]
        return out
    return along


def along_shape(shape, index_shape, axis):
    """The shape of np.take_along_axis (srcad/runtime/movement_runtime.py's)."""


@overload(along_shape)
def _along_shape(shape, index_shape, axis):
    if omitted_argument(axis):
        return lambda shape, index_shape, axis: index_shape

    def broadcast(shape, index_shape, axis):
        out = index_shape
        for d in range(len(shape)):
            if d != axis and index_shape[d] == 1:
                out = tuple_setitem(out, d, shape[d])
        return out
    return broadcast


# -- np.sort: the stable order ------------------------------------------------------------------

@register_jitable
def lanes(x, axis):
    """x with `axis` last, as rows of that axis (a C-contiguous copy)."""
    moved = np.ascontiguousarray(np.swapaxes(x, axis, x.ndim - 1))
    return moved, moved.reshape((-1, moved.shape[-1]))


def sort_order(x, axis):
    """The permutation np.sort applies (srcad/runtime/movement_runtime.py's)."""


@overload(sort_order)
def _sort_order(x, axis):
    if omitted_argument(axis):
        return lambda x, axis: np.argsort(np.ascontiguousarray(x).reshape(-1), kind="mergesort")

    def along(x, axis):
        axis = axis % x.ndim
        moved, rows = lanes(x, axis)
        order = np.empty(rows.shape, np.int64)
        for r in range(rows.shape[0]):
            order[r] = np.argsort(rows[r], kind="mergesort")
        return np.ascontiguousarray(np.swapaxes(order.reshape(moved.shape), axis, x.ndim - 1))
    return along


def moved_sort(a, axis=-1, kind=None, order=None, stable=None):
    return np.sort(a, axis=axis)


@overload(moved_sort)
def _sort(a, axis=-1, kind=None, order=None, stable=None):
    if not isinstance(axis, types.Type):  # omitted: the last axis
        return lambda a, axis=-1, kind=None, order=None, stable=None: np.take_along_axis(
            a, sort_order(a, -1), -1)
    if omitted_argument(axis):
        return lambda a, axis=-1, kind=None, order=None, stable=None: take_rows(
            np.ascontiguousarray(a).reshape(-1), 0, sort_order(a, None))
    return lambda a, axis=-1, kind=None, order=None, stable=None: np.take_along_axis(
        a, sort_order(a, axis), axis)


def unsort(g, x, axis):
    """The adjoint of np.sort (srcad/runtime/movement_runtime.py's)."""


@overload(unsort)
def _unsort(g, x, axis):
    if omitted_argument(axis):
        def flat(g, x, axis):
            out = np.empty(x.size)
            order = sort_order(x, None)
            seed = np.ascontiguousarray(g).reshape(-1)
            for k in range(order.size):
                out[order[k]] = seed[k]
            return out.reshape(x.shape)
        return flat

    def along(g, x, axis):
        axis = axis % x.ndim
        moved, order = lanes(sort_order(x, axis), axis)
        _, seed = lanes(np.ascontiguousarray(g), axis)
        out = np.empty(seed.shape)
        for r in range(seed.shape[0]):
            for j in range(seed.shape[1]):
                out[r, order[r, j]] = seed[r, j]
        return np.ascontiguousarray(np.swapaxes(out.reshape(moved.shape), axis, x.ndim - 1))
    return along
