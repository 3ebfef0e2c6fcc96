"""np.pad on the numba backend (numba has none), every mode NumPy has but 'odd' reflections
(constant with `constant_values=` a number or a pair, edge, reflect, symmetric, wrap), its
adjoint `unpad` and `padded_shape`, as srcad/runtime/numba_movement.py's functions are: one
index per axis, read with `filled_rows` (constant elements filled in) and added back with
`add_rows`.

Imported by generated numba modules only (it imports numba).
"""

from __future__ import annotations

import numpy as np
from numba import types
from numba.core.errors import TypingError
from numba.cpython.unsafe.tuple import tuple_setitem
from numba.extending import overload, register_jitable

from srcad.runtime.numba_movement import (
    add_rows,
    int_type,
    ints_type,
    omitted_argument,
    take_rows,
)


@register_jitable
def filled_rows(x, axis, index, before, after):
    """take_rows with `before` where the index is -1 and `after` where it is -2 (np.pad's
    constant elements)."""
    rows = np.swapaxes(x, 0, axis)
    out = np.empty((index.shape[0],) + rows.shape[1:], x.dtype)
    for k in range(index.shape[0]):
        if index[k] < 0:
            out[k] = before if index[k] == -1 else after
        else:
            out[k] = rows[index[k]]
    return np.ascontiguousarray(np.swapaxes(out, 0, axis))



def moved_pad(array, pad_width, mode="constant", constant_values=0):
    return np.pad(array, pad_width, mode=mode, constant_values=constant_values)


_MODES = ("constant", "edge", "reflect", "symmetric", "wrap")


def _widths_source(pad_width) -> str:
    """Source of the (before, after) pair of axis `a` from np.pad's pad_width, by its type."""
    if int_type(pad_width):
        return "pad_width, pad_width"
    if ints_type(pad_width):
        return "pad_width[0], pad_width[-1]"
    if isinstance(pad_width, types.UniTuple) and ints_type(pad_width.dtype):
        return ("pad_width[a if len(pad_width) > 1 else 0][0], "
                "pad_width[a if len(pad_width) > 1 else 0][-1]")
    raise TypingError("np.pad: srcad compiles an int, a pair or a tuple of pairs as pad_width")


@register_jitable
def _padded(n, before, after, mode):
    """The index np.pad reads along an axis of length n (constant elements: -1 before the
    array, -2 after it)."""
    index = np.arange(before + n + after) - before
    for p in range(index.size):
        q = index[p]
        if 0 <= q < n:
            continue
        if mode == 0:
            index[p] = -1 if q < 0 else -2
        elif mode == 1:
            index[p] = min(max(q, 0), n - 1)
        elif mode == 2:
            period = 2 * n - 2
            q = q % period if period > 0 else 0
            index[p] = period - q if q >= n else q
        elif mode == 3:
            q = q % (2 * n)
            index[p] = 2 * n - 1 - q if q >= n else q
        else:
            index[p] = q % n
    return index


@register_jitable
def _mode_number(mode):
    if mode == "constant":
        return 0
    if mode == "edge":
        return 1
    if mode == "reflect":
        return 2
    if mode == "symmetric":
        return 3
    if mode == "wrap":
        return 4
    raise ValueError("np.pad: srcad compiles the modes constant, edge, reflect, symmetric, wrap")


def _mode_source(mode) -> str:
    return "0" if omitted_argument(mode) else "_mode_number(mode)"


def _pad_compile(source):
    namespace = {"np": np, "take_rows": take_rows, "filled_rows": filled_rows,
                 "add_rows": add_rows, "_padded": _padded, "_mode_number": _mode_number}
    exec(source, namespace)
    return namespace["impl"]


@overload(moved_pad)
def _pad(array, pad_width, mode="constant", constant_values=0):
    if omitted_argument(constant_values):
        fill = "0.0, 0.0"
    elif isinstance(constant_values, types.Number):
        fill = "constant_values, constant_values"
    elif isinstance(constant_values, types.UniTuple) and \
            isinstance(constant_values.dtype, types.Number) and constant_values.count <= 2:
        fill = "constant_values[0], constant_values[-1]"
    else:
        raise TypingError("np.pad: srcad compiles a number or a pair (before, after) as "
                          "constant_values")
    return _pad_compile(
        "def impl(array, pad_width, mode='constant', constant_values=0):\n"
        f"    code = {_mode_source(mode)}\n"
        "    out = np.ascontiguousarray(array)\n"
        "    for a in range(out.ndim):\n"
        f"        before, after = {_widths_source(pad_width)}\n"
        "        index = _padded(out.shape[a], before, after, code)\n"
        f"        out = filled_rows(out, a, index, {fill})\n"
        "    return out")


def unpad(g, shape, pad_width, mode):
    """The adjoint of np.pad (srcad/runtime/movement_runtime.py's)."""


@overload(unpad)
def _unpad(g, shape, pad_width, mode):
    return _pad_compile(
        "def impl(g, shape, pad_width, mode):\n"
        "    code = _mode_number(mode)\n"
        "    out = np.ascontiguousarray(g)\n"
        "    for a in range(out.ndim):\n"
        f"        before, after = {_widths_source(pad_width)}\n"
        "        out = add_rows(out, a, _padded(shape[a], before, after, code), shape[a])\n"
        "    return out")


def padded_shape(shape, pad_width):
    """The shape of np.pad (srcad/runtime/movement_runtime.py's)."""


@overload(padded_shape)
def _padded_shape(shape, pad_width):
    source = ("def impl(shape, pad_width):\n"
              "    out = shape\n"
              "    for a in range(len(shape)):\n"
              f"        before, after = {_widths_source(pad_width)}\n"
              "        out = tuple_setitem(out, a, shape[a] + before + after)\n"
              "    return out")
    namespace = {"tuple_setitem": tuple_setitem}
    exec(source, namespace)
    return namespace["impl"]
