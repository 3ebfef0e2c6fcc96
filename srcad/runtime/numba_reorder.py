"""np.partition (kth=, axis=) and np.rollaxis (axis=, start=) compiled, and the derivative of
np.partition: `partition_order` and `unpartition`, the names the rule calls on the python
backend (srcad/runtime/movement_runtime.py). srcad/transform/numba_movement.py spells
`np.partition(...)` `moved_partition(...)` and `np.rollaxis(...)` `moved_rollaxis(...)`.

numba has np.partition along the last axis, without axis=, and no np.rollaxis. NumPy leaves
the order of the elements on either side of each kth unspecified, and numba's introselect (and
NumPy's own, which uses SIMD sorting networks where the CPU has them) places them otherwise:
so the compiled code calls NumPy's np.partition itself (numba's object mode, a short hold of
the GIL per call), and the result is NumPy's, element for element. The derivative follows the
arrangement the result has, read from the result, as on the python backend.

Imported by generated numba modules only (it imports numba).
"""

from __future__ import annotations

import numba
import numpy as np
from numba import types
from numba.core.errors import TypingError
from numba.extending import overload, register_jitable

from srcad.runtime.numba_movement import omitted_argument
from srcad.runtime.numba_selection import lanes


@register_jitable
def _back(out, moved, axis):
    """Rows of the lanes of `moved` (`lanes(x, axis)`) put back in x's layout."""
    return np.ascontiguousarray(np.swapaxes(out.reshape(moved.shape), axis, moved.ndim - 1))


# -- np.partition --------------------------------------------------------------------------

def moved_partition(a, kth, axis=-1, kind="introselect", order=None):
    return np.partition(a, kth, axis)


@overload(moved_partition)
def _partition(a, kth, axis=-1, kind="introselect", order=None):
    if not isinstance(a, types.Array):
        raise TypingError("srcad compiles np.partition of an array")
    if not omitted_argument(order):
        raise TypingError("srcad compiles np.partition without order=")
    flat = isinstance(axis, types.NoneType) or (isinstance(axis, types.Omitted)
                                                and axis.value is None)
    result = types.Array(a.dtype, 1 if flat else a.ndim, "C")

    def partitioned(a, kth, axis=-1, kind="introselect", order=None):
        with numba.objmode(out=result):  # NumPy's own arrangement (see above)
            out = np.ascontiguousarray(np.partition(a, kth, axis))
        return out
    return partitioned


def partition_order(x, ans, axis):
    """The permutation that puts `x`'s elements where `ans` has them (movement_runtime.py's)."""
    raise NotImplementedError  # compiled only: the overload below


@overload(partition_order)
def _partition_order(x, ans, axis):
    if omitted_argument(axis):
        return lambda x, ans, axis: _lane_order(np.ascontiguousarray(x).reshape(-1),
                                                np.ascontiguousarray(ans).reshape(-1))

    def along(x, ans, axis):
        axis = axis % x.ndim
        moved, rows = lanes(x, axis)
        _, results = lanes(ans, axis)
        order = np.empty(rows.shape, np.int64)
        for r in range(rows.shape[0]):
            order[r] = _lane_order(rows[r], results[r])
        return _back(order, moved, axis)
    return along


@register_jitable
def _lane_order(row, result):
    """The element of each rank in `row` put where that rank is in `result` (ties in their
    order, as a stable sort)."""
    in_row = np.argsort(row, kind="mergesort")
    in_result = np.argsort(result, kind="mergesort")
    order = np.empty(row.shape[0], np.int64)
    for rank in range(row.shape[0]):
        order[in_result[rank]] = in_row[rank]
    return order


def unpartition(g, x, ans, axis):
    """The adjoint of `ans = np.partition(x, kth, axis)` (movement_runtime.py's)."""
    raise NotImplementedError  # compiled only: the overload below


@overload(unpartition)
def _unpartition(g, x, ans, axis):
    if omitted_argument(axis):
        def flat(g, x, ans, axis):
            order = partition_order(x, ans, None)
            seed = np.ascontiguousarray(g).reshape(-1)
            out = np.empty(x.size)
            for k in range(order.size):
                out[order[k]] = seed[k]
            return out.reshape(x.shape)
        return flat

    def along(g, x, ans, axis):
        axis = axis % x.ndim
        moved, order = lanes(partition_order(x, ans, axis), axis)
        _, seed = lanes(np.ascontiguousarray(g * np.ones_like(x)), axis)
        out = np.empty(seed.shape)
        for r in range(seed.shape[0]):
            for j in range(seed.shape[1]):
                out[r, order[r, j]] = seed[r, j]
        return _back(out, moved, axis)
    return along


# -- np.rollaxis ---------------------------------------------------------------------------

def moved_rollaxis(a, axis, start=0):
    return np.rollaxis(a, axis, start)


@overload(moved_rollaxis)
def _rollaxis(a, axis, start=0):
    if not isinstance(a, types.Array):
        raise TypingError("srcad compiles np.rollaxis of an array")

    def rolled(a, axis, start=0):  # NumPy's: the axis moved to before `start`
        n = a.ndim
        if not -n <= axis < n:
            raise ValueError("axis out of bounds")
        axis = axis % n
        if start < 0:
            start += n
        if not 0 <= start <= n:
            raise ValueError("start out of bounds")
        if axis < start:
            start -= 1
        return np.moveaxis(a, axis, start)
    return rolled
