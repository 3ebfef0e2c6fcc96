"""`gemm_into(a, b, c, beta)`: `c[...] = a @ b + beta * c` of float64 matrices in
numba-compiled code, by one BLAS `dgemm` call on the operands as they lie in memory: a strided
view whose rows or columns are contiguous (a transposed matrix, a column range, a row of
matrices `x[:, j, :]` of a 3-D array) is passed with its leading dimension and the transpose
flag, where numba's `np.dot` copies any operand that is not C- or F-contiguous first.

    gemm_into(x[:, j, :], lower[j].T, out[:, j, :], 1.0)   # no copy of any of the three

It returns False, having written nothing, where an operand is not such a view (a step that is
neither one element nor at least the row's length, a negative or zero step: a broadcast axis)
or SciPy's BLAS is missing (numba's BLAS calls go through it): the caller then computes the
product its own way. `c` must not overlap `a` or `b` (BLAS's own rule); BLAS adds the terms
in its own order, as `np.dot` does.

The call is numba's own BLAS entry point (`numba_xxgemm` of numba's helper library, the one
its `np.dot` and `np.linalg.pinv` call), so code calling it is cached on disk like any other.
`strided_product(a, b)`: `a @ b` of two float64 matrices of any layout, by `gemm_into` where
it can and the product has at least `MIN_WORK` multiplications, else by loops (what
`array_matmul` of strided matrices runs).

Imported by srcad/runtime/numba_contraction.py and srcad/runtime/numba_matmul.py (generated
modules reach it through them).
"""

from __future__ import annotations

import numba
import numpy as np
from numba import types

from srcad.runtime.numba_cache import runtime_cache_in_srcad_folder
from srcad.runtime.numba_direct_calls import register_direct_call

runtime_cache_in_srcad_folder()  # before its cached functions (srcad/runtime/numba_cache.py)

try:  # numba's BLAS calls go through SciPy's
    import scipy.linalg.cython_blas  # noqa: F401
    from numba.np.linalg import _BLAS, ensure_blas

    ensure_blas()
    _XXGEMM = _BLAS().numba_xxgemm(types.float64)
    BLAS = True
except Exception:  # pragma: no cover - SciPy is installed where srcad is tested
    _XXGEMM, BLAS = None, False

_ONE, _ZERO = np.ones(1), np.zeros(1)
# BLAS's letters, constants: `ord("n")` in compiled code compiles numba's string functions
_DOUBLE, _PLAIN, _TRANSPOSED = np.int8(ord("d")), np.int8(ord("n")), np.int8(ord("t"))
_ROWS, _COLUMNS = 0, 1  # how a matrix lies: contiguous rows (C-like) or columns (F-like)


@numba.njit(cache=True)
def lying(rows, cols, itemsize, row_step, col_step):
    """(how a matrix of `rows` x `cols` elements of `itemsize` bytes, `row_step` and
    `col_step` bytes apart, lies: `_ROWS` where each row is contiguous and rows start at least
    a row apart, `_COLUMNS` likewise by columns, -1 where BLAS cannot read it in place; its
    leading dimension in elements). An axis of length 1 may have any step. Of the numbers, not
    the array: one compilation for every array type (read-only or not, any layout)."""
    if itemsize != 8 or row_step % 8 or col_step % 8:
        return -1, 0
    s0, s1 = row_step // 8, col_step // 8
    if (s1 == 1 or cols <= 1) and (rows <= 1 or s0 >= max(1, cols)):
        return _ROWS, s0 if rows > 1 else max(1, cols)
    if (s0 == 1 or rows <= 1) and (cols <= 1 or s1 >= max(1, rows)):
        return _COLUMNS, s1 if cols > 1 else max(1, rows)
    return -1, 0


@numba.njit(cache=True)
def stored(x):
    """`lying` of the matrix `x`."""
    return lying(x.shape[0], x.shape[1], x.itemsize, x.strides[0], x.strides[1])


if BLAS:
    @numba.njit(cache=True)
    def _gemm_into(a, b, c, beta):
        """`c[...] = a @ b + beta * c` by one dgemm on the views in place; False (nothing
        written) where a view does not lie as BLAS reads matrices."""
        m, k = a.shape
        n = b.shape[1]
        if b.shape[0] != k or c.shape[0] != m or c.shape[1] != n:
            raise ValueError("gemm_into: shapes do not match")
        if m == 0 or n == 0:
            return True
        if k == 0:  # an empty sum (BLAS's rules for the leading dimensions need k > 0)
            for i in range(m):
                for j in range(n):
                    c[i, j] = beta * c[i, j] if beta != 0.0 else 0.0
            return True
        a_kind, a_ld = lying(m, k, a.itemsize, a.strides[0], a.strides[1])
        b_kind, b_ld = lying(k, n, b.itemsize, b.strides[0], b.strides[1])
        c_kind, c_ld = lying(m, n, c.itemsize, c.strides[0], c.strides[1])
        if a_kind < 0 or b_kind < 0 or c_kind < 0:
            return False
        alpha_slot = _ONE  # BLAS reads alpha and beta through pointers: constants, so
        # the usual products (beta 0 or 1) allocate nothing
        beta_slot = _ONE if beta == 1.0 else _ZERO if beta == 0.0 else np.array([beta])
        if c_kind == _ROWS:  # BLAS (column-major) computes c.T = b.T @ a.T
            status = _XXGEMM(_DOUBLE, _PLAIN if b_kind == _ROWS else _TRANSPOSED,
                             _PLAIN if a_kind == _ROWS else _TRANSPOSED, n, m, k,
                             alpha_slot.ctypes, b.ctypes, b_ld, a.ctypes, a_ld,
                             beta_slot.ctypes, c.ctypes, c_ld)
        else:
            status = _XXGEMM(_DOUBLE, _PLAIN if a_kind == _COLUMNS else _TRANSPOSED,
                             _PLAIN if b_kind == _COLUMNS else _TRANSPOSED, m, n, k,
                             alpha_slot.ctypes, a.ctypes, a_ld, b.ctypes, b_ld,
                             beta_slot.ctypes, c.ctypes, c_ld)
        if status != 0:
            raise RuntimeError("gemm_into: BLAS's dgemm was not found")
        return True
else:  # pragma: no cover - SciPy is installed where srcad is tested
    @numba.njit(cache=True)
    def _gemm_into(a, b, c, beta):
        return False


def gemm_into(a, b, c, beta):
    """`_gemm_into`; in numba-compiled code called with `a` and `b` typed as read-only
    layout "A" and `c` as layout "A" (casts, no copies), so that it compiles once, not once
    per combination of the views' layouts and read-only flags (a fused product's views of
    `np.broadcast_to`'s read-only arrays, and of writable ones)."""
    return _gemm_into(a, b, c, beta)


def _gemm_types(a, b, c, beta):
    return (a.copy(layout="A", readonly=True), b.copy(layout="A", readonly=True),
            c.copy(layout="A"), beta)


register_direct_call(gemm_into, lambda a, b, c, beta: _gemm_into if all(
    isinstance(t, types.Array) for t in (a, b, c)) else None,
    cast=lambda argument_types: _gemm_types(*argument_types))


MIN_WORK = 512  # multiplications below which a BLAS call costs more than loops


@numba.njit(cache=True)
def strided_product(a, b):
    """`a @ b` of two float64 matrices of any layout: BLAS on the views in place where they
    lie as it reads them and the product is not tiny, else loops."""
    m, k = a.shape
    n = b.shape[1]
    if b.shape[0] != k:
        raise ValueError("array_matmul: shapes do not match")
    if m * k * n >= MIN_WORK:
        out = np.zeros((m, n))
        if gemm_into(a, b, out, 0.0):
            return out
    return looped_product(a, b)


@numba.njit(cache=True)
def looped_product(a, b):
    """`a @ b` of two float64 matrices by loops, each row of the product a sum over a's row
    in order (numba's own product needs contiguous operands and SciPy's BLAS)."""
    m, n = a.shape
    if b.shape[0] != n:
        raise ValueError("array_matmul: shapes do not match")
    p = b.shape[1]
    out = np.zeros((m, p))
    for i in range(m):
        for k in range(n):
            aik = a[i, k]
            for j in range(p):
                out[i, j] += aik * b[k, j]
    return out
