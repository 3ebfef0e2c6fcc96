"""Matrix products of float64 operands in numba-compiled code compiled once for every layout of
the operands: `array_matmul` (srcad/runtime/numba_matmul.py) calls these for C- and
F-contiguous operands, where it called numba's `np.dot`.

numba compiles its `np.dot` once per combination of its operands' layouts (C or F: `a @ b.T`,
`a.T @ b`, ...), each with its checks, its allocation and its BLAS call: a Kalman filter's
gradient compiled 4 variants of the matrix product and 2 of the matrix-vector product, about 5
functions each. Here each operand is typed as layout "A" (a cast that copies nothing, made at
`array_matmul`'s call: srcad/runtime/numba_direct_calls.py), so each product compiles once,
and the BLAS call numba's `np.dot` makes is made with the transpose flag and leading dimension
read from the operand's strides at run time:
`dgemm` (srcad/runtime/numba_gemm.py's `gemm_into`) for a matrix times a matrix, `dgemv` for a
matrix times a vector and a vector times a matrix. For a matrix with both dimensions longer
than 1 these are the flags numba derives from the layout, so the product is numba's (and
NumPy's) to the bit; a matrix with a dimension of length 1 (both C- and F-contiguous) may be
read the other way, the same sum of products computed by another BLAS kernel.

`any_layout(x)`: `x` typed as layout "A" inside compiled code (the product's result, for
`gemm_into`).
"""

from __future__ import annotations

import numba
import numpy as np
from numba import types
from numba.core.imputils import impl_ret_borrowed
from numba.extending import intrinsic

from srcad.runtime.numba_cache import runtime_cache_in_srcad_folder
from srcad.runtime.numba_gemm import (
    _COLUMNS,
    _DOUBLE,
    _ONE,
    _PLAIN,
    _TRANSPOSED,
    _ZERO,
    gemm_into,
    lying,
)

runtime_cache_in_srcad_folder()  # before its cached functions (srcad/runtime/numba_cache.py)

# numba's helper library's matrix-vector product (the one numba's np.dot calls): kind, trans,
# m, n, alpha*, a*, lda, x*, beta*, y*
_XXGEMV = types.ExternalFunction("numba_xxgemv", types.intc(
    types.char, types.char, types.intp, types.intp, types.voidptr, types.voidptr, types.intp,
    types.voidptr, types.voidptr, types.voidptr))


@intrinsic
def any_layout(typingctx, x):
    """`x` typed as an array of layout "A" (the same array: no copy)."""
    if not isinstance(x, types.Array):
        return None
    result = x.copy(layout="A")

    def codegen(context, builder, signature, args):
        value = context.cast(builder, args[0], x, result)
        return impl_ret_borrowed(context, builder, result, value)
    return result(x), codegen


@numba.njit(cache=True)
def matrix_product(a, b):
    """`a @ b` of two float64 matrices, each C- or F-contiguous (typed "A")."""
    m, k = a.shape
    n = b.shape[1]
    if b.shape[0] != k:
        raise ValueError("incompatible array sizes for np.dot(a, b) (matrix * matrix)")
    out = np.empty((m, n))
    if not gemm_into(a, b, any_layout(out), 0.0):  # numba's dgemm call, flags from strides
        raise ValueError("np.dot: an operand is not contiguous")  # array_matmul's are
    return out


@numba.njit(cache=True)
def _gemv(matrix, vector, rows_of_matrix):
    """`matrix @ vector` (`rows_of_matrix`) or `vector @ matrix` (not) by numba's dgemv call."""
    rows, cols = matrix.shape
    if (vector.shape[0] != cols) if rows_of_matrix else (vector.shape[0] != rows):
        raise ValueError("incompatible array sizes for np.dot(a, b)")
    out = np.zeros(rows if rows_of_matrix else cols)
    kind, ld = lying(rows, cols, matrix.itemsize, matrix.strides[0], matrix.strides[1])
    spread = vector.shape[0] > 1 and vector.strides[0] != 8
    if vector.shape[0] == 0 or (rows if rows_of_matrix else cols) == 0 or kind < 0 or spread:
        if kind < 0 or spread:  # not reached from array_matmul
            for i in range(rows):
                for j in range(cols):
                    if rows_of_matrix:
                        out[i] += matrix[i, j] * vector[j]
                    else:
                        out[j] += vector[i] * matrix[i, j]
        return out
    # BLAS is column-major: a matrix lying by columns is read as it is, one lying by rows
    # as its transpose (numba's flags for F and C operands)
    flip = (kind == _COLUMNS) != rows_of_matrix
    trans = _TRANSPOSED if flip else _PLAIN
    if kind == _COLUMNS:
        status = _XXGEMV(_DOUBLE, trans, rows, cols, _ONE.ctypes, matrix.ctypes, ld,
                         vector.ctypes, _ZERO.ctypes, out.ctypes)
    else:
        status = _XXGEMV(_DOUBLE, trans, cols, rows, _ONE.ctypes, matrix.ctypes, ld,
                         vector.ctypes, _ZERO.ctypes, out.ctypes)
    if status != 0:
        raise RuntimeError("np.dot: BLAS's dgemv was not found")
    return out


@numba.njit(cache=True)
def matrix_vector_product(a, x):
    """`a @ x` of a C- or F-contiguous float64 matrix and a contiguous vector (typed "A")."""
    return _gemv(a, x, a.shape[0] >= 0)  # True; a constant would be typed as its value


@numba.njit(cache=True)
def vector_matrix_product(x, a):
    """`x @ a` of a contiguous float64 vector and a C- or F-contiguous matrix (typed "A")."""
    return _gemv(a, x, a.shape[0] < 0)  # False, not a constant (one compilation)
