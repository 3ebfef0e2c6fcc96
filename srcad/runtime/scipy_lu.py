"""scipy.linalg's LU factorization, one array each, as srcad's generated code calls it, and
the derivatives of its packed factor and of its solve (srcad/rules/scipy_linalg.py):
`lu_factor(a)` is the tuple `(lu_factor_matrix(a), lu_pivots(a))` and `lu_solve((lu, piv), b,
trans)` is `lu_solve_matrix(lu, piv, b, trans=trans)` (srcad/transform/normalize/factor_calls.py).

With perm the row order the pivots give, a[perm] = L U (L unit lower, U upper, packed in one
matrix lu: L below the diagonal, U on and above it). For a tangent da, with
F = L^-1 da[perm] U^-1: dL = L tril(F, -1), dU = triu(F) U (the packed tangent is their sum);
the adjoint of a packed seed G is a[perm]_bar = L^-T (tril(L^T G_L, -1) + triu(G_U U^T)) U^-T.
SciPy is the user's: it is imported wherever these run. The pivots are constants (a step of
a), recomputed where a rule needs them (one factorization more).
"""

from __future__ import annotations

import sys

import numpy as np


def _linalg():
    return sys.modules["scipy.linalg"]


def lu_factor_matrix(a):
    """scipy.linalg.lu_factor(a)[0]: L and U packed in one matrix."""
    return _linalg().lu_factor(a)[0]


def lu_pivots(a):
    """scipy.linalg.lu_factor(a)[1]: the pivot indices (ints; no derivative)."""
    return _linalg().lu_factor(a)[1]


def lu_solve_matrix(lu, piv, b, trans=0):
    """scipy.linalg.lu_solve((lu, piv), b, trans)."""
    return _linalg().lu_solve((lu, piv), b, trans=trans)


def _parts(lu, piv):
    """(L, U, perm) of a packed factor and its pivots: a[perm] = L U."""
    n = lu.shape[0]
    perm = np.arange(n)
    for i, p in enumerate(piv):  # row i was interchanged with row piv[i], in order
        perm[i], perm[p] = perm[p], perm[i]
    return np.tril(lu, -1) + np.eye(n), np.triu(lu), perm


def _unpermuted(rows, perm):
    out = np.empty_like(rows)
    out[perm] = rows
    return out


def lu_factor_tangent(a, lu, g):
    """The tangent of lu_factor_matrix(a) = lu along g (a tangent of a)."""
    lower, upper, perm = _parts(lu, lu_pivots(a))
    solve = _linalg().solve_triangular
    f = solve(lower, g[perm], lower=True, unit_diagonal=True)
    f = solve(upper, f.T, trans=1, lower=False).T  # f U^-1
    return lower @ np.tril(f, -1) + np.triu(f) @ upper


def lu_factor_adjoint(a, lu, g):
    """a's adjoint from the adjoint g of lu_factor_matrix(a) = lu."""
    lower, upper, perm = _parts(lu, lu_pivots(a))
    solve = _linalg().solve_triangular
    h = np.tril(lower.T @ np.tril(g, -1), -1) + np.triu(np.triu(g) @ upper.T)
    h = solve(lower, h, trans=1, lower=True, unit_diagonal=True)  # L^-T h
    h = solve(upper, h.T, lower=False).T  # h U^-T
    return _unpermuted(h, perm)


def _columns(v, n):
    return v.reshape(n, -1)


def lu_solve_tangent(lu, piv, g, x, trans=0):
    """The tangent of x = lu_solve_matrix(lu, piv, b, trans) along g (a tangent of lu):
    a = P L U moves by P (dL U + L dU), and x by -op(a)^-1 op(da) x."""
    lower, upper, perm = _parts(lu, piv)
    da = _unpermuted(np.tril(g, -1) @ upper + lower @ np.triu(g), perm)
    moved = (da.T if trans else da) @ x
    return -lu_solve_matrix(lu, piv, moved, trans)


def lu_solve_adjoint(lu, piv, b_bar, x, trans=0):
    """lu's adjoint from b_bar (b's adjoint) and the solution x: a's is -b_bar x^T (its
    transpose for trans), carried back through a = P L U to the packed factor."""
    lower, upper, perm = _parts(lu, piv)
    n = lu.shape[0]
    a_bar = -_columns(b_bar, n) @ _columns(x, n).T
    a_bar = (a_bar.T if trans else a_bar)[perm]  # P^T a_bar
    return np.tril(a_bar @ upper.T, -1) + np.triu(lower.T @ a_bar)
