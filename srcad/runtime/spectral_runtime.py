"""What the derivatives of the spectral decompositions call on the python backend
(srcad/rules/spectral.py): each part of `np.linalg.eigh` (eigenvalues 0, eigenvectors 1) and
of `np.linalg.svd` (U 0, S 1, Vh 2) has its own tangent and adjoint, so that a program that
reads one part pays for that part's formula only; all work on stacks of matrices.

The formulas are the standard ones (Giles' matrix derivative results; for the SVD Townsend's
note, as JAX and autograd use them): with F[i, j] = 1 / (w[j] - w[i]) off the diagonal,
dV = V (F * (V^T dA V)) and dw = diag(V^T dA V). NumPy's eigh reads one triangle of A
(UPLO), so its tangent reads that triangle mirrored and its adjoint is folded back onto it.
At repeated eigenvalues (or singular values) the eigenvectors have no derivative: F is
infinite there, and the results are inf or nan, as JAX's are.
"""

from __future__ import annotations

from collections import namedtuple

import numpy as np

# np.linalg.lstsq's tuple with names, so that its parts are read as eigh's are
# (srcad/transform/normalize/desugar.py calls `lstsq_parts` where the user wrote lstsq)
LeastSquares = namedtuple("LeastSquares", "solution residuals rank singular_values")


def lstsq_parts(a, b, rcond=None):
    """np.linalg.lstsq(a, b, rcond), its parts named.

    >>> lstsq_parts(np.eye(2), np.array([1.0, 2.0])).solution.tolist()
    [1.0, 2.0]
    """
    return LeastSquares(*np.linalg.lstsq(a, b, rcond=rcond))


def _t(a):
    return np.swapaxes(a, -1, -2)


def _mirrored(d, uplo):
    """The symmetric matrix NumPy reads from one triangle of d."""
    return np.tril(d) + _t(np.tril(d, -1)) if uplo == "L" else np.triu(d) + _t(np.triu(d, 1))


def _folded(m, uplo):
    """The adjoint of `_mirrored`: m's entries summed onto the triangle read."""
    eye = np.eye(m.shape[-1])
    if uplo == "L":
        return np.tril(m + _t(m), -1) + m * eye
    return np.triu(m + _t(m), 1) + m * eye


def _gaps(w):
    """F[i, j] = 1 / (w[j] - w[i]) off the diagonal, 0 on it."""
    eye = np.eye(w.shape[-1])
    with np.errstate(divide="ignore"):
        return (1.0 - eye) / (w[..., None, :] - w[..., :, None] + eye)


def eigh_tangent(a, da, uplo, part):
    """The tangent of `np.linalg.eigh(a, uplo)[part]`."""
    w, v = np.linalg.eigh(a, uplo)
    rotated = _t(v) @ _mirrored(da, uplo) @ v
    if part == 0:
        return np.diagonal(rotated, axis1=-2, axis2=-1).copy()
    return v @ (_gaps(w) * rotated)


def eigh_adjoint(a, g, uplo, part):
    """The adjoint of a for the seed g of `np.linalg.eigh(a, uplo)[part]`."""
    w, v = np.linalg.eigh(a, uplo)
    inner = g[..., None, :] * np.eye(w.shape[-1]) if part == 0 else _gaps(w) * (_t(v) @ g)
    return _folded(v @ inner @ _t(v), uplo)


def _reduced_svd(a, full_matrices):
    m, n = np.shape(a)[-2:]
    if full_matrices and m != n:
        raise ValueError("the derivative of np.linalg.svd's U and Vh with full_matrices=True "
                         "of a matrix that is not square is not defined (the extra columns "
                         "are not unique); pass full_matrices=False")
    return np.linalg.svd(a, full_matrices=False)


def _svd_gaps(s):
    eye = np.eye(s.shape[-1])
    with np.errstate(divide="ignore"):
        return (1.0 - eye) / (s[..., None, :] ** 2 - s[..., :, None] ** 2 + eye)


def svd_tangent(a, da, full_matrices, part):
    """The tangent of `np.linalg.svd(a, full_matrices)[part]` (of `np.linalg.svd(a,
    compute_uv=False)` for part 1)."""
    u, s, vh = np.linalg.svd(a, full_matrices=False) if part == 1 else \
        _reduced_svd(a, full_matrices)
    ds = _t(u) @ da @ _t(vh)
    if part == 1:
        return np.diagonal(ds, axis1=-2, axis2=-1).copy()
    f, row = _svd_gaps(s), s[..., None, :]
    m, n = np.shape(a)[-2:]
    if part == 0:
        ds_s = ds * row  # dS diag(s)
        du = u @ (f * (ds_s + _t(ds_s)))
        if m > n:
            dav = da @ _t(vh)
            du = du + (dav - u @ (_t(u) @ dav)) / row
        return du
    s_ds = _t(row) * ds  # diag(s) dS
    dv = _t(vh) @ (f * (s_ds + _t(s_ds)))
    if n > m:
        dau = _t(da) @ u
        dv = dv + (dau - _t(vh) @ (vh @ dau)) / row
    return _t(dv)


def svd_adjoint(a, g, full_matrices, part):
    """The adjoint of a for the seed g of `np.linalg.svd(a, full_matrices)[part]`."""
    u, s, vh = np.linalg.svd(a, full_matrices=False) if part == 1 else \
        _reduced_svd(a, full_matrices)
    v = _t(vh)
    m, n = np.shape(a)[-2:]
    if part == 1:
        return u @ (g[..., :, None] * vh)
    f, row = _svd_gaps(s), s[..., None, :]
    if part == 0:
        rotated = _t(u) @ g
        out = u @ ((f * (rotated - _t(rotated))) * row) @ vh
        if m > n:
            out = out + (g - u @ rotated) / row @ vh
        return out
    gv = _t(g)
    rotated = _t(v) @ gv
    out = u @ (_t(row) * (f * (rotated - _t(rotated)))) @ vh
    if n > m:
        out = out + (u / row) @ _t(gv - v @ rotated)
    return out


def cond_tangent(a, da, ans):
    """The tangent of `np.linalg.cond(a)` = s[0] / s[-1] (its value `ans`)."""
    s = np.linalg.svd(a, compute_uv=False)
    ds = svd_tangent(a, da, False, 1)
    return (ds[..., 0] - ans * ds[..., -1]) / s[..., -1]


def cond_adjoint(a, g, ans):
    """The adjoint of a for the seed g of `np.linalg.cond(a)`."""
    s = np.linalg.svd(a, compute_uv=False)
    seed = np.zeros_like(s)
    seed[..., 0] = g / s[..., -1]
    seed[..., -1] -= g * ans / s[..., -1]
    return svd_adjoint(a, seed, False, 1)


def _qr(a):
    m, n = np.shape(a)[-2:]
    if m < n:
        raise ValueError("the derivative of np.linalg.qr of a matrix with fewer rows than "
                         "columns is not defined by srcad (nor by JAX): its R is not "
                         "square")
    return np.linalg.qr(a)


def _right_inverse(x, r):
    """x r^-1, r upper triangular (stacks too)."""
    return _t(np.linalg.solve(_t(r), _t(x)))


def qr_tangent(a, da, part):
    """The tangent of `np.linalg.qr(a)[part]` (Q 0, R 1; rows >= columns): with
    X = da R^-1, C = Q^T X and D = tril(C, -1) - tril(C, -1)^T,
    dQ = Q (D - C) + X and dR = (C - D) R."""
    q, r = _qr(a)
    x = _right_inverse(da, r)
    c = _t(q) @ x
    lower = np.tril(c, -1)
    d = lower - _t(lower)
    return q @ (d - c) + x if part == 0 else (c - d) @ r


def qr_adjoint(a, g, part):
    """The adjoint of a for the seed g of `np.linalg.qr(a)[part]` (the tangent's transpose)."""
    q, r = _qr(a)
    if part == 0:
        h = _t(q) @ g
        x_bar = g + q @ (np.tril(h - _t(h), -1) - h)
    else:
        k = g @ _t(r)
        x_bar = q @ (k - np.tril(k - _t(k), -1))
    return _t(np.linalg.solve(r, _t(x_bar)))  # x_bar r^-T
