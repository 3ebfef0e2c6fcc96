"""Products in numba-compiled derivative code (srcad/runtime/numba_arrays.py's part for them,
imported from there by the generated modules):

* `array_matmul(a, b)`: `a @ b` and `np.dot(a, b)` of 1-D and 2-D float arrays. Of float64
  C- and F-contiguous operands, numba's BLAS call through srcad/runtime/numba_blas.py, called
  straight from the call site and compiled once for every layout (srcad/runtime/
  numba_direct_calls.py); of two float64 matrices that are strided views (a column range, a
  matrix of a 3-D array), BLAS in place where they lie as it reads matrices (srcad/runtime/
  numba_gemm.py); of float32 operands numba's `np.dot`; else loops.
* `outer_add(a, x, y)`: `a += np.outer(x, y)`, the adjoint of a matrix-vector product, as one
  loop over `a` (numba's np.outer would allocate a matrix each time, then add it: in a
  recurrent loop that doubles the reverse sweep), called straight from the call site.
"""

from __future__ import annotations

import numba
import numpy as np
from numba import types
from numba.core.errors import TypingError
from numba.extending import overload

from srcad.runtime.numba_blas import (
    matrix_product,
    matrix_vector_product,
    vector_matrix_product,
)
from srcad.runtime.numba_cache import runtime_cache_in_srcad_folder
from srcad.runtime.numba_direct_calls import register_direct_call
from srcad.runtime.numba_gemm import BLAS as _BLAS  # numba's np.dot calls BLAS through SciPy
from srcad.runtime.numba_gemm import looped_product, strided_product

runtime_cache_in_srcad_folder()  # before its cached functions (srcad/runtime/numba_cache.py)


def array_matmul(a, b):
    return np.dot(a, b)


@numba.njit(cache=True)
def _matvec(a, x):
    m, n = a.shape
    if x.shape[0] != n:
        raise ValueError("array_matmul: shapes do not match")
    out = np.zeros(m)
    for i in range(m):
        s = 0.0
        for j in range(n):
            s += a[i, j] * x[j]
        out[i] = s
    return out


@numba.njit(cache=True)
def _vecmat(x, a):
    m, n = a.shape
    if x.shape[0] != m:
        raise ValueError("array_matmul: shapes do not match")
    out = np.zeros(n)
    for i in range(m):
        xi = x[i]
        for j in range(n):
            out[j] += xi * a[i, j]
    return out


@numba.njit(cache=True)
def _inner(x, y):
    if x.shape[0] != y.shape[0]:
        raise ValueError("array_matmul: shapes do not match")
    s = 0.0
    for i in range(x.shape[0]):
        s += x[i] * y[i]
    return s


# float64 products of C- or F-contiguous operands (srcad/runtime/numba_blas.py)
_ANY_LAYOUT = {(2, 2): matrix_product, (2, 1): matrix_vector_product,
               (1, 2): vector_matrix_product}
_LOOPS = {(1, 1): _inner, (2, 1): _matvec, (1, 2): _vecmat, (2, 2): looped_product}


def _blas_product(a, b):
    """numba's BLAS call for `a @ b` of C- or F-contiguous float64 operands (typed "A"), called
    with no function of its own per layout (srcad/runtime/numba_direct_calls.py)."""
    if _BLAS and isinstance(a, types.Array) and isinstance(b, types.Array) \
            and a.layout in "CF" and b.layout in "CF" and a.dtype == b.dtype == types.float64:
        return _ANY_LAYOUT.get((a.ndim, b.ndim))
    return None


register_direct_call(array_matmul, _blas_product)  # before the overload: tried first


@overload(array_matmul)
def _matmul(a, b):
    if isinstance(a, (types.Float, types.Integer)) or isinstance(b, (types.Float,
                                                                    types.Integer)):
        return lambda a, b: a * b  # np.dot with a number is a product
    if isinstance(a, types.Array) and isinstance(b, types.Array) \
            and {type(a.dtype), type(b.dtype)} <= {types.Float, types.Integer} \
            and isinstance(a.dtype, types.Float) != isinstance(b.dtype, types.Float):
        # an int constant matrix times a float vector: NumPy computes it in float64 too
        return lambda a, b: array_matmul(a.astype(np.float64), b.astype(np.float64))
    if not (isinstance(a, types.Array) and isinstance(b, types.Array)
            and isinstance(a.dtype, types.Float) and isinstance(b.dtype, types.Float)):
        raise TypingError("array_matmul: srcad compiles products of float arrays only")
    loops = _LOOPS.get((a.ndim, b.ndim))
    if loops is None:
        raise TypingError("array_matmul: srcad compiles products of 1-D and 2-D arrays only")
    if _BLAS and a.layout in "CF" and b.layout in "CF" and a.dtype == b.dtype:
        return lambda a, b: np.dot(a, b)  # float32 (float64: _blas_product)
    if _BLAS and (a.ndim, b.ndim) == (2, 2) and a.dtype == b.dtype == types.float64:
        return lambda a, b: strided_product(a, b)  # BLAS on the views where it reads them
    return lambda a, b: loops(a, b)


def outer_add(a, x, y):
    a += np.outer(x, y)


@numba.njit(cache=True)
def _outer_add(a, x, y):
    if a.shape[0] != x.shape[0] or a.shape[1] != y.shape[0]:
        raise ValueError("outer_add: shapes do not match")
    for i in range(x.shape[0]):
        xi = x[i]
        for j in range(y.shape[0]):
            a[i, j] += xi * y[j]


def _outer_add_loop(a, x, y):
    if isinstance(a, types.Array) and a.ndim == 2 and isinstance(x, types.Array) \
            and isinstance(y, types.Array) and x.ndim == 1 and y.ndim == 1:
        return _outer_add  # called with no function of its own (numba_direct_calls.py)
    return None


register_direct_call(outer_add, _outer_add_loop, cast=tuple)  # contiguous loops vectorize


@overload(outer_add)
def _outer_add_overload(a, x, y):
    if not isinstance(a, types.Array) or a.ndim != 2:
        raise TypingError("outer_add: srcad compiles an outer product added to a matrix only")

    def general(a, x, y):  # np.outer flattens its operands
        a += np.outer(x, y)
    return general
