"""np.diagonal and np.trace compiled for numba (`offset=`, `axis1=`, `axis2=`), of a matrix
and of a stack of matrices (an array of rank 3 or more: a loop over the other axes), which
numba lacks, and the adjoints srcad/runtime/movement_runtime.py gives the python backend
(`undiagonal`, `untrace`, `diagonal_shape`), under the same names and signatures.

As in srcad/runtime/numba_selection.py: `moved_<name>` has NumPy's signature and a numba
`overload` that picks the implementation for the argument types; a stack is read through its
C-ordered copy, the diagonals of the b-th matrix at flat offsets from its first element.

Imported by generated numba modules only (it imports numba).
"""

from __future__ import annotations

import numpy as np
from numba import types
from numba.core.errors import TypingError
from numba.extending import overload, register_jitable
from numba.np.unsafe.ndarray import to_fixed_tuple

# -- np.diagonal, np.trace (of a matrix, and of a stack: a loop over the other axes) ----------

@register_jitable
def _diagonal_start(rows, columns, offset):
    """(first row, first column, length) of the offset-th diagonal."""
    row, column = max(-offset, 0), max(offset, 0)
    return row, column, max(0, min(rows - row, columns - column))


def _stack(name, rank):
    if rank < 2:
        raise TypingError(f"np.{name}: the diagonal of an array of rank 2 or more")


@register_jitable
def _stack_plan(shape, offset, axis1, axis2):
    """(C-order strides of `shape`, the other axes, the count of their elements, the two axes
    as non-negative ints, first row, first column, length) of the diagonals of a stack."""
    rank = len(shape)
    first, second = axis1 % rank, axis2 % rank
    strides = np.empty(rank, np.int64)
    step = 1
    for k in range(rank - 1, -1, -1):
        strides[k] = step
        step *= shape[k]
    others = np.empty(rank - 2, np.int64)
    count, j = 1, 0
    for k in range(rank):
        if k != first and k != second:
            others[j] = k
            count *= shape[k]
            j += 1
    row, column, length = _diagonal_start(shape[first], shape[second], offset)
    return strides, others, count, first, second, row, column, length


@register_jitable
def _stack_base(shape, strides, others, b):
    """The flat C-order index of element 0 of the axes of the diagonal in the b-th matrix."""
    base = 0
    for j in range(len(others) - 1, -1, -1):
        size = shape[others[j]]
        base += (b % size) * strides[others[j]]
        b //= size
    return base


def moved_diagonal(a, offset=0, axis1=0, axis2=1):
    return np.diagonal(a, offset, axis1, axis2)


@overload(moved_diagonal)
def _diagonal(a, offset=0, axis1=0, axis2=1):
    _stack("diagonal", a.ndim)
    if a.ndim == 2:
        def matrix(a, offset=0, axis1=0, axis2=1):
            matrix = a if axis1 % 2 == 0 else a.T
            row, column, length = _diagonal_start(matrix.shape[0], matrix.shape[1], offset)
            out = np.empty(length, a.dtype)
            for k in range(length):
                out[k] = matrix[row + k, column + k]
            return out
        return matrix
    rank, out_rank = a.ndim, a.ndim - 1  # to_fixed_tuple takes a constant length

    def stack(a, offset=0, axis1=0, axis2=1):
        flat = np.ascontiguousarray(a).reshape(-1)
        strides, others, count, first, second, row, column, length = _stack_plan(
            a.shape, offset, axis1, axis2)
        out = np.empty(count * length, a.dtype)
        for b in range(count):
            base = _stack_base(a.shape, strides, others, b)
            for k in range(length):
                out[b * length + k] = flat[base + (row + k) * strides[first]
                                           + (column + k) * strides[second]]
        shape = np.empty(rank - 1, np.int64)
        for j in range(rank - 2):
            shape[j] = a.shape[others[j]]
        shape[rank - 2] = length
        return out.reshape(to_fixed_tuple(shape, out_rank))
    return stack


def moved_trace(a, offset=0, axis1=0, axis2=1, dtype=None, out=None):
    return np.trace(a, offset, axis1, axis2)


@overload(moved_trace)
def _trace(a, offset=0, axis1=0, axis2=1, dtype=None, out=None):
    _stack("trace", a.ndim)
    if a.ndim == 2:
        return lambda a, offset=0, axis1=0, axis2=1, dtype=None, out=None: np.sum(
            moved_diagonal(a, offset, axis1, axis2))
    sums_rank = a.ndim - 2  # to_fixed_tuple takes a constant length

    def stack(a, offset=0, axis1=0, axis2=1, dtype=None, out=None):
        diagonals = moved_diagonal(a, offset, axis1, axis2)
        length = diagonals.shape[-1]
        rows = np.ascontiguousarray(diagonals).reshape(-1, length)
        sums = np.zeros(rows.shape[0], diagonals.dtype)
        for b in range(rows.shape[0]):
            for k in range(length):
                sums[b] += rows[b, k]
        shape = np.empty(sums_rank, np.int64)
        for j in range(sums_rank):
            shape[j] = diagonals.shape[j]
        return sums.reshape(to_fixed_tuple(shape, sums_rank))
    return stack


def undiagonal(g, shape, offset, axis1, axis2):
    """The adjoint of np.diagonal (srcad/runtime/movement_runtime.py's)."""


@overload(undiagonal)
def _undiagonal(g, shape, offset, axis1, axis2):
    _stack("diagonal", len(shape))
    if len(shape) == 2:
        def matrix(g, shape, offset, axis1, axis2):
            out = np.zeros(shape)
            matrix = out if axis1 % 2 == 0 else out.T
            row, column, length = _diagonal_start(matrix.shape[0], matrix.shape[1], offset)
            for k in range(length):
                matrix[row + k, column + k] = g[k]
            return out
        return matrix

    def stack(g, shape, offset, axis1, axis2):
        out = np.zeros(shape)
        flat = out.reshape(-1)
        values = np.ascontiguousarray(g).reshape(-1)
        strides, others, count, first, second, row, column, length = _stack_plan(
            shape, offset, axis1, axis2)
        for b in range(count):
            base = _stack_base(shape, strides, others, b)
            for k in range(length):
                flat[base + (row + k) * strides[first] + (column + k) * strides[second]] = \
                    values[b * length + k]
        return out
    return stack


def untrace(g, shape, offset, axis1, axis2):
    """The adjoint of np.trace (srcad/runtime/movement_runtime.py's)."""


@overload(untrace)
def _untrace(g, shape, offset, axis1, axis2):
    _stack("trace", len(shape))
    if len(shape) == 2:
        # g: a float, or a 0-d adjoint array (np.ravel(np.trace(x))) whose sum is its value
        value = _zero_d_value if isinstance(g, types.Array) else _float_value

        def matrix(g, shape, offset, axis1, axis2):
            rows, columns = (shape[0], shape[1]) if axis1 % 2 == 0 else (shape[1], shape[0])
            length = _diagonal_start(rows, columns, offset)[2]
            return undiagonal(np.full(length, value(g)), shape, offset, axis1, axis2)
        return matrix

    def stack(g, shape, offset, axis1, axis2):
        length = diagonal_shape(shape, offset, axis1, axis2)[-1]
        values = np.ascontiguousarray(g).reshape(-1)
        spread = np.empty(values.size * length)
        for b in range(values.size):
            for k in range(length):
                spread[b * length + k] = values[b]
        return undiagonal(spread, shape, offset, axis1, axis2)
    return stack


@register_jitable
def _zero_d_value(g):
    return g.sum()


@register_jitable
def _float_value(g):
    return g


def diagonal_shape(shape, offset, axis1, axis2):
    """The shape of np.diagonal (srcad/runtime/movement_runtime.py's)."""


@overload(diagonal_shape)
def _diagonal_shape(shape, offset, axis1, axis2):
    _stack("diagonal", len(shape))
    if len(shape) == 2:
        def matrix(shape, offset, axis1, axis2):
            rows, columns = (shape[0], shape[1]) if axis1 % 2 == 0 else (shape[1], shape[0])
            return (_diagonal_start(rows, columns, offset)[2],)
        return matrix
    rank, out_rank = len(shape), len(shape) - 1

    def stack(shape, offset, axis1, axis2):
        _, others, _, first, second, _, _, length = _stack_plan(shape, offset, axis1, axis2)
        out = np.empty(rank - 1, np.int64)
        for j in range(rank - 2):
            out[j] = shape[others[j]]
        out[rank - 2] = length
        return to_fixed_tuple(out, out_rank)
    return stack
