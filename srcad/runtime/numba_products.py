"""np.tensordot, np.kron of any ranks and the derivatives of np.linalg.matrix_power on the
numba backend (numba has np.kron of vectors and matrices and np.linalg.matrix_power itself, no
np.tensordot, and no srcad/runtime/linalg_runtime.py).

srcad/transform/numba_linalg_calls.py spells `np.tensordot(x, y, axes=([1], [0]))` as
`moved_tensordot(x, y, '([1], [0])')`: the axes written in the call, as a string literal
(numba types a tuple of ints as a tuple, not as the literal its subscripts are made from).
The overload makes the einsum subscripts of those axes for the operands' ranks
(linalg_runtime's `tensordot_subscripts`, the python backend's rule's own) and runs
srcad/runtime/numba_einsum.py's loop nest; the derivatives of np.tensordot are einsums
already. `matrix_power_tangent` and `matrix_power_adjoint` are linalg_runtime's formulas
(the sum over i of a^i da a^(n-1-i); n < 0: of the inverse), compiled for one matrix.
srcad/transform/numba_linalg_calls.py spells `np.linalg.matrix_power(a, n)`
`linalg_matrix_power(a, n)`: numba's own is typed as returning an array or None (a path of
its implementation falls through without a return), which numba then cannot add into.
srcad/transform/numba_movement.py spells `np.kron(a, b)` `moved_kron(a, b)`: numba's own of
ranks up to 2, and of higher ranks each product a[i] b[j] written at its flat offset (the
lower rank padded with leading axes of length 1, as NumPy's).

Imported by generated numba modules only (it imports numba).
"""

from __future__ import annotations

import ast

import numpy as np
from numba import types
from numba.core.errors import TypingError
from numba.cpython.unsafe.tuple import tuple_setitem
from numba.extending import overload, register_jitable

from srcad.runtime.linalg_runtime import (
    matrix_power_adjoint,
    matrix_power_tangent,
    tensordot_subscripts,
)
from srcad.runtime.numba_convolution import c_strides, flat_offsets
from srcad.runtime.numba_einsum import moved_einsum


def moved_tensordot(x, y, axes="2"):
    return np.tensordot(x, y, ast.literal_eval(axes))


@overload(moved_tensordot, prefer_literal=True)
def _tensordot(x, y, axes="2"):
    if not isinstance(axes, (types.StringLiteral, types.Omitted)):
        raise TypingError("np.tensordot: srcad compiles axes written in the call")
    text = axes.value if isinstance(axes, types.Omitted) else axes.literal_value
    try:
        subscripts = tensordot_subscripts(getattr(x, "ndim", 0), getattr(y, "ndim", 0),
                                          ast.literal_eval(text))
    except ValueError as error:
        raise TypingError(f"np.tensordot: {error}") from None
    namespace = {"moved_einsum": moved_einsum}
    exec(f"def impl(x, y, axes='2'):\n    return moved_einsum({subscripts!r}, x, y)",
         namespace)
    return namespace["impl"]


def _matrix(a, name):
    if getattr(a, "ndim", 0) != 2:
        raise TypingError(f"np.linalg.{name}: srcad compiles one matrix (rank 2), no stacks")


def linalg_matrix_power(a, n):
    return np.linalg.matrix_power(a, n)


@overload(linalg_matrix_power)
def _linalg_matrix_power(a, n):
    _matrix(a, "matrix_power")
    if not isinstance(getattr(n, "dtype", n), types.Integer):
        raise TypingError("np.linalg.matrix_power: the exponent must be an integer")

    def impl(a, n):  # by squaring, as NumPy's
        if a.shape[0] != a.shape[1]:
            raise ValueError("np.linalg.matrix_power: the matrix must be square")
        base = np.ascontiguousarray(np.linalg.inv(a) if n < 0 else a)
        result = np.zeros(base.shape, base.dtype)
        for k in range(base.shape[0]):
            result[k, k] = 1
        exponent = -n if n < 0 else n
        while exponent > 0:
            if exponent & 1:
                result = result @ base
            exponent >>= 1
            if exponent > 0:
                base = base @ base
        return result
    return impl


@register_jitable
def _power_sum(a, da, n):
    """The sum over i < n of a^i da a^(n-1-i)."""
    total = np.zeros(da.shape)
    left = np.eye(a.shape[0])  # a^i
    for i in range(n):
        total += left @ da @ linalg_matrix_power(a, n - 1 - i)
        left = left @ a
    return total


@overload(matrix_power_tangent)
def _matrix_power_tangent(a, da, n):
    _matrix(a, "matrix_power")

    def impl(a, da, n):
        matrix, tangent = np.ascontiguousarray(a), np.ascontiguousarray(da)
        if n >= 0:
            return _power_sum(matrix, tangent, n)
        inverse = np.linalg.inv(matrix)
        return _power_sum(inverse, -(inverse @ tangent @ inverse), -n)
    return impl


@overload(matrix_power_adjoint)
def _matrix_power_adjoint(a, g, n):
    _matrix(a, "matrix_power")

    def impl(a, g, n):
        a_t, seed = np.ascontiguousarray(a.T), np.ascontiguousarray(g)
        if n >= 0:
            return _power_sum(a_t, seed, n)
        inverse_t = np.linalg.inv(a_t)  # inv(a)^T
        return -(inverse_t @ _power_sum(inverse_t, seed, -n) @ inverse_t)
    return impl


# -- np.kron of any ranks ------------------------------------------------------------------

def moved_kron(a, b):
    return np.kron(a, b)


@overload(moved_kron)
def _kron(a, b):
    if not (isinstance(a, types.Array) and isinstance(b, types.Array)):
        return lambda a, b: a * b  # of a number: the product, as NumPy's
    if a.ndim <= 2 and b.ndim <= 2:
        # numba's own, of vectors and matrices in C or F order (a view: copied)
        return lambda a, b: np.kron(np.ascontiguousarray(a), np.ascontiguousarray(b))
    rank = max(a.ndim, b.ndim)
    lead_a, lead_b = rank - a.ndim, rank - b.ndim
    widest = 0 if a.ndim == rank else 1

    def of_arrays(a, b):  # NumPy's: the lower rank padded with leading axes of length 1
        shape = a.shape if widest == 0 else b.shape
        for k in range(rank):
            size_a = a.shape[k - lead_a] if k >= lead_a else 1
            size_b = b.shape[k - lead_b] if k >= lead_b else 1
            shape = tuple_setitem(shape, k, size_a * size_b)
        strides = c_strides(shape)
        at_a = np.zeros(rank, np.int64)  # a's axis k steps b's length of out's axis k
        for k in range(rank):
            size_b = b.shape[k - lead_b] if k >= lead_b else 1
            at_a[k] = size_b * strides[k]
        offsets_a = flat_offsets(a.shape, at_a[lead_a:])
        offsets_b = flat_offsets(b.shape, strides[lead_b:])
        flat_a = np.ascontiguousarray(a * 1.0).reshape(-1)
        flat_b = np.ascontiguousarray(b * 1.0).reshape(-1)
        out = np.empty(flat_a.size * flat_b.size)
        for i in range(flat_a.size):
            for j in range(flat_b.size):
                out[offsets_a[i] + offsets_b[j]] = flat_a[i] * flat_b[j]
        return out.reshape(shape)
    return of_arrays
