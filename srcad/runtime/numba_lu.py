"""scipy.linalg.lu_factor and lu_solve on the numba backend, and their derivatives: numba
`overload`s of srcad's spellings of them (srcad/runtime/scipy_lu.py: `lu_factor_matrix`,
`lu_pivots`, `lu_solve_matrix`, `lu_factor_tangent`, ...), whose Python versions call SciPy.
A generated numba module that calls one imports it from here (srcad/build/compiler.py).

The factorization is LAPACK's getrf in its unblocked form: partial pivoting by the first
largest magnitude in the column (idamax), the column scaled by the pivot's reciprocal, the
pivots 0-based int32 as SciPy returns them (row i interchanged with row piv[i], in order);
lu_solve is getrs (the interchanges, then the unit lower and the upper triangular solves; for
trans=1 the transposed solves, then the interchanges in reverse). The pivots are SciPy's
wherever no two candidates of a column tie to rounding, and the factors agree with SciPy's
to rounding; a zero pivot leaves its column unscaled (SciPy warns, numba cannot). The
derivatives are scipy_lu.py's formulas, with srcad/runtime/numba_linalg.py's triangular solve.

Imported by generated numba modules only (it imports numba).
"""

from __future__ import annotations

import numpy as np
from numba.extending import overload, register_jitable

from srcad.runtime.numba_linalg import triangular_solve
from srcad.runtime.scipy_lu import (
    lu_factor_adjoint,
    lu_factor_matrix,
    lu_factor_tangent,
    lu_pivots,
    lu_solve_adjoint,
    lu_solve_matrix,
    lu_solve_tangent,
)

# what generated numba code calls by these names (srcad/runtime/runtime_names.py)
__all__ = ["lu_factor_matrix", "lu_pivots", "lu_solve_matrix", "lu_factor_tangent",
           "lu_factor_adjoint", "lu_solve_tangent", "lu_solve_adjoint"]

_SMALLEST = np.finfo(np.float64).tiny  # LAPACK's sfmin: below it, divide (no overflow)


@register_jitable
def _factored(a):
    """(lu, piv): LAPACK's getrf of `a` (m x n), unblocked."""
    m, n = a.shape
    lu = np.ascontiguousarray(a).astype(np.float64)
    piv = np.empty(min(m, n), np.int32)
    for k in range(min(m, n)):
        p, largest = k, abs(lu[k, k])
        for i in range(k + 1, m):
            if abs(lu[i, k]) > largest:
                p, largest = i, abs(lu[i, k])
        piv[k] = p
        if p != k:
            row = lu[k].copy()
            lu[k] = lu[p]
            lu[p] = row
        pivot = lu[k, k]
        if pivot != 0.0:
            if abs(pivot) >= _SMALLEST:
                scale = 1.0 / pivot
                for i in range(k + 1, m):
                    lu[i, k] *= scale
            else:
                for i in range(k + 1, m):
                    lu[i, k] /= pivot
        for i in range(k + 1, m):
            factor = lu[i, k]
            for j in range(k + 1, n):
                lu[i, j] -= factor * lu[k, j]
    return lu, piv


@register_jitable
def _interchanged(rows, piv, backwards):
    """`rows` with row i and row piv[i] interchanged, for i in order (or in reverse)."""
    count = piv.shape[0]
    for step in range(count):
        i = count - 1 - step if backwards else step
        p = piv[i]
        if p != i:
            row = rows[i].copy()
            rows[i] = rows[p]
            rows[p] = row
    return rows


@register_jitable
def _solved(lu, piv, b, trans):
    """LAPACK's getrs: the solution of a x = b (a^T x = b for trans), a = P L U."""
    n = lu.shape[0]
    rows = np.ascontiguousarray(b).astype(np.float64).reshape((n, -1))
    if trans == 0:
        rows = _interchanged(rows, piv, False)
        rows = triangular_solve(lu, rows, True, False, True, False)
        rows = triangular_solve(lu, rows, False, False, False, False)
    else:
        rows = triangular_solve(lu, rows, False, True, False, False)
        rows = triangular_solve(lu, rows, True, True, True, False)
        rows = _interchanged(rows, piv, True)
    return rows


@overload(lu_factor_matrix)
def _lu_factor_matrix(a):
    return lambda a: _factored(a)[0]


@overload(lu_pivots)
def _lu_pivots(a):
    return lambda a: _factored(a)[1]


@overload(lu_solve_matrix)
def _lu_solve_matrix(lu, piv, b, trans=0):
    if b.ndim == 1:
        return lambda lu, piv, b, trans=0: _solved(lu, piv, b, trans)[:, 0].copy()
    return lambda lu, piv, b, trans=0: _solved(lu, piv, b, trans)


# -- the derivatives (srcad/runtime/scipy_lu.py's formulas) -----------------------------------

@register_jitable
def _parts(lu, piv):
    """(L, U, perm) of a packed factor and its pivots: a[perm] = L U."""
    n = lu.shape[0]
    perm = np.arange(n)
    for i in range(piv.shape[0]):
        p = piv[i]
        perm[i], perm[p] = perm[p], perm[i]
    return np.tril(lu, -1) + np.eye(n), np.ascontiguousarray(np.triu(lu)), perm


@register_jitable
def _rows(m, perm):
    out = np.empty((perm.shape[0], m.shape[1]))
    for i in range(perm.shape[0]):
        out[i] = m[perm[i]]
    return out


@register_jitable
def _unpermuted(rows, perm):
    out = np.empty(rows.shape)
    for i in range(perm.shape[0]):
        out[perm[i]] = rows[i]
    return out


@register_jitable
def _c(m):
    return np.ascontiguousarray(m)


@overload(lu_factor_tangent)
def _lu_factor_tangent(a, lu, g):
    def tangent(a, lu, g):
        lower, upper, perm = _parts(lu, _factored(a)[1])
        f = triangular_solve(lower, _rows(_c(g), perm), True, False, True, True)
        f = _c(triangular_solve(upper, _c(f.T), False, True, False, True).T)  # f U^-1
        return lower @ _c(np.tril(f, -1)) + _c(np.triu(f)) @ upper
    return tangent


@overload(lu_factor_adjoint)
def _lu_factor_adjoint(a, lu, g):
    def adjoint(a, lu, g):
        lower, upper, perm = _parts(lu, _factored(a)[1])
        g = _c(g * 1.0)
        h = np.tril(_c(lower.T) @ _c(np.tril(g, -1)), -1) + np.triu(_c(np.triu(g)) @ _c(upper.T))
        h = triangular_solve(lower, _c(h), True, True, True, True)  # L^-T h
        h = _c(triangular_solve(upper, _c(h.T), False, False, False, True).T)  # h U^-T
        return _unpermuted(h, perm)
    return adjoint


@overload(lu_solve_tangent)
def _lu_solve_tangent(lu, piv, g, x, trans=0):
    def tangent(lu, piv, g, x, trans=0):
        lower, upper, perm = _parts(lu, piv)
        g = _c(g * 1.0)
        da = _unpermuted(_c(np.tril(g, -1)) @ upper + lower @ _c(np.triu(g)), perm)
        moved = np.dot(_c(da.T) if trans else da, _c(x))
        return -lu_solve_matrix(lu, piv, moved, trans)
    return tangent


@overload(lu_solve_adjoint)
def _lu_solve_adjoint(lu, piv, b_bar, x, trans=0):
    def adjoint(lu, piv, b_bar, x, trans=0):
        lower, upper, perm = _parts(lu, piv)
        n = lu.shape[0]
        a_bar = -(_c(b_bar * 1.0).reshape((n, -1)) @ _c(_c(x).reshape((n, -1)).T))
        a_bar = _rows(_c(a_bar.T) if trans else a_bar, perm)  # P^T a_bar
        return np.tril(a_bar @ _c(upper.T), -1) + np.triu(_c(lower.T) @ a_bar)
    return adjoint
