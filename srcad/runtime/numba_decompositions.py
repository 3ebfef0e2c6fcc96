"""np.linalg.svd, qr, pinv, lstsq and cond on the numba backend, with their derivatives, and
det's gradient `det_cofactor` (srcad/runtime/linalg_runtime.py's, compiled for one matrix):
numba has the decompositions themselves (not their keywords compute_uv=, mode=, NumPy's
default rcond of lstsq, nor the parts' names), and no srcad/runtime/spectral_runtime.py.

srcad/transform/numba_linalg_calls.py spells `np.linalg.svd(A, ...)` `linalg_svd(A, ...)`,
`np.linalg.qr` `linalg_qr`, `np.linalg.pinv` `linalg_pinv` and reads the parts `.U`, `.S`,
`.Vh`, `.Q`, `.R` and lstsq_parts' `.solution`, ... as `[0]`, `[1]`, ...; the overloads
below follow NumPy's keywords (compute_uv=False gives the singular values; lstsq's rcond=None
is NumPy's eps * max(m, n), not numba's machine precision). The tangents and adjoints are
spectral_runtime's formulas (Townsend's for the SVD, Walter's for QR), compiled for one
matrix: a stack of matrices fails to type, which srcad reports as a refusal naming the line.
At repeated singular values the singular vectors have no derivative (inf or NaN, as JAX).

Imported by generated numba modules only (it imports numba).
"""

from __future__ import annotations

import numpy as np
from numba import types
from numba.core.errors import TypingError
from numba.extending import overload, register_jitable

from srcad.runtime.linalg_runtime import det_cofactor, products_of_others
from srcad.runtime.numba_spectral import _gaps  # 1 / (w[j] - w[i]): of s^2 for the SVD
from srcad.runtime.spectral_runtime import (
    cond_adjoint,
    cond_tangent,
    lstsq_parts,
    qr_adjoint,
    qr_tangent,
    svd_adjoint,
    svd_tangent,
)


def linalg_svd(a, full_matrices=True, compute_uv=True, hermitian=False):
    return np.linalg.svd(a, full_matrices, compute_uv, hermitian)


def linalg_qr(a, mode="reduced"):
    return np.linalg.qr(a, mode)


def linalg_pinv(a, rcond=None, hermitian=False):
    return np.linalg.pinv(a, rcond, hermitian)


def _matrix(a, name):
    if getattr(a, "ndim", 0) != 2:
        raise TypingError(f"np.linalg.{name}: srcad compiles one matrix (rank 2), no stacks")


def _absent(value) -> bool:
    return value is None or isinstance(value, (types.Omitted, types.NoneType))


def _literal(value, name, default):
    """The value of a keyword written in the call (its default where it is left out)."""
    if isinstance(value, types.Omitted):
        return value.value
    if _absent(value):
        return default
    if isinstance(value, types.Literal):
        return value.literal_value
    if not isinstance(value, types.Type):  # an argument left out: its default's value
        return value
    raise TypingError(f"{name}: srcad compiles it written in the call")


@overload(linalg_svd, prefer_literal=True)
def _svd(a, full_matrices=True, compute_uv=True, hermitian=False):
    _matrix(a, "svd")
    if _literal(hermitian, "hermitian", False):
        raise TypingError("np.linalg.svd: srcad compiles hermitian=False only")
    if not _literal(compute_uv, "compute_uv", True):
        return lambda a, full_matrices=True, compute_uv=True, hermitian=False: \
            np.linalg.svd(np.ascontiguousarray(a), False)[1]
    full = bool(_literal(full_matrices, "full_matrices", True))
    return lambda a, full_matrices=True, compute_uv=True, hermitian=False: \
        np.linalg.svd(np.ascontiguousarray(a), full)


@overload(linalg_qr, prefer_literal=True)
def _qr(a, mode="reduced"):
    _matrix(a, "qr")
    if _literal(mode, "mode", "reduced") != "reduced":
        raise TypingError("np.linalg.qr: srcad compiles mode='reduced' only")
    return lambda a, mode="reduced": np.linalg.qr(np.ascontiguousarray(a))


@overload(linalg_pinv)
def _pinv(a, rcond=None, hermitian=False):
    _matrix(a, "pinv")
    if _absent(rcond):  # NumPy's default
        return lambda a, rcond=None, hermitian=False: np.linalg.pinv(
            np.ascontiguousarray(a), 1e-15)
    return lambda a, rcond=None, hermitian=False: np.linalg.pinv(
        np.ascontiguousarray(a), rcond)


@overload(lstsq_parts)
def _lstsq_parts(a, b, rcond=None):
    _matrix(a, "lstsq")
    if _absent(rcond):  # NumPy's default: eps * max(m, n)
        eps = float(np.finfo(np.float64).eps)

        def impl(a, b, rcond=None):
            cutoff = eps * max(a.shape[0], a.shape[1])
            return np.linalg.lstsq(np.ascontiguousarray(a), np.ascontiguousarray(b), cutoff)
        return impl
    return lambda a, b, rcond=None: np.linalg.lstsq(np.ascontiguousarray(a),
                                                    np.ascontiguousarray(b), rcond)


@register_jitable
def _reduced_svd(a):
    return np.linalg.svd(np.ascontiguousarray(a), False)


@register_jitable
def _check_square(a, full_matrices):
    if full_matrices and a.shape[0] != a.shape[1]:
        raise ValueError("srcad: the derivative of np.linalg.svd's U and Vh with "
                         "full_matrices=True of a matrix that is not square is not defined "
                         "(the extra columns are not unique); pass full_matrices=False")


@register_jitable
def _singular_vectors_tangent(a, da, part):
    u, s, vh = _reduced_svd(a)
    ds = u.T @ np.ascontiguousarray(da) @ vh.T
    f, row = _gaps(s * s), s.reshape((1, -1))
    m, n = a.shape
    if part == 0:
        ds_s = ds * row  # dS diag(s)
        du = u @ (f * (ds_s + ds_s.T))
        if m > n:
            dav = np.ascontiguousarray(da) @ vh.T
            du = du + (dav - u @ (u.T @ dav)) / row
        return du
    s_ds = row.T * ds  # diag(s) dS
    dv = vh.T @ (f * (s_ds + s_ds.T))
    if n > m:
        dau = np.ascontiguousarray(da.T) @ u
        dv = dv + (dau - vh.T @ (vh @ dau)) / row
    return np.ascontiguousarray(dv.T)


@overload(svd_tangent, prefer_literal=True)
def _svd_tangent(a, da, full_matrices, part):
    _matrix(a, "svd")
    if not isinstance(part, types.IntegerLiteral):
        raise TypingError("svd_tangent: the part is a literal 0, 1 or 2")
    if part.literal_value == 1:
        def values(a, da, full_matrices, part):
            u, s, vh = _reduced_svd(a)
            return np.diag(u.T @ np.ascontiguousarray(da) @ vh.T).copy()
        return values

    def vectors(a, da, full_matrices, part):
        _check_square(a, full_matrices)
        return _singular_vectors_tangent(a, da, part)
    return vectors


@register_jitable
def _singular_vectors_adjoint(a, g, part):
    u, s, vh = _reduced_svd(a)
    v = np.ascontiguousarray(vh.T)
    f, row = _gaps(s * s), s.reshape((1, -1))
    m, n = a.shape
    seed = np.ascontiguousarray(g)
    if part == 0:
        rotated = u.T @ seed
        out = u @ ((f * (rotated - rotated.T)) * row) @ vh
        if m > n:
            out = out + ((seed - u @ rotated) / row) @ vh
        return out
    gv = np.ascontiguousarray(seed.T)
    rotated = v.T @ gv
    out = u @ (row.T * (f * (rotated - rotated.T))) @ vh
    if n > m:
        out = out + (u / row) @ np.ascontiguousarray((gv - v @ rotated).T)
    return out


@overload(svd_adjoint)
def _svd_adjoint(a, g, full_matrices, part):
    _matrix(a, "svd")
    if getattr(g, "ndim", 0) == 1:  # the singular values' seed
        def values(a, g, full_matrices, part):
            u, s, vh = _reduced_svd(a)
            return u @ (g.reshape((-1, 1)) * vh)
        return values

    def vectors(a, g, full_matrices, part):
        _check_square(a, full_matrices)
        return _singular_vectors_adjoint(a, g, part)
    return vectors


def _number(value) -> str:
    """How the overload reads a number that may come as a 0-d array (a broadcast seed)."""
    return "{}.sum()" if isinstance(value, types.Array) else "{}"


@overload(cond_tangent)
def _cond_tangent(a, da, ans):
    _matrix(a, "cond")
    namespace = {"np": np, "_reduced_svd": _reduced_svd}
    exec("def impl(a, da, ans):\n"
         "    u, s, vh = _reduced_svd(a)\n"
         "    ds = np.diag(u.T @ np.ascontiguousarray(da) @ vh.T)\n"
         f"    return (ds[0] - {_number(ans).format('ans')} * ds[-1]) / s[-1]", namespace)
    return namespace["impl"]


@overload(cond_adjoint)
def _cond_adjoint(a, g, ans):
    _matrix(a, "cond")
    namespace = {"np": np, "_reduced_svd": _reduced_svd}
    exec("def impl(a, g, ans):\n"
         "    u, s, vh = _reduced_svd(a)\n"
         f"    seed, value = {_number(g).format('g')}, {_number(ans).format('ans')}\n"
         "    weights = np.zeros(s.shape[0])\n"
         "    weights[0] += seed / s[-1]\n"
         "    weights[-1] -= seed * value / s[-1]\n"
         "    return u @ (weights.reshape((-1, 1)) * vh)", namespace)
    return namespace["impl"]


_products_of_others = register_jitable(products_of_others)


@overload(det_cofactor)
def _det_cofactor(a):
    _matrix(a, "det")

    def impl(a):  # linalg_runtime.det_cofactor: det(a) inv(a)^T, or from the SVD
        a = np.ascontiguousarray(a)
        det = np.linalg.det(a)
        if det != 0.0:
            inverse = np.linalg.inv(a)
            if np.all(np.isfinite(inverse)):
                return np.ascontiguousarray(det * inverse.T)
        u, s, vh = np.linalg.svd(a)
        others = _products_of_others(s)  # prod_{j != i} s_j
        return np.linalg.det(u) * np.linalg.det(vh) * ((u * others.reshape((1, -1))) @ vh)
    return impl


@register_jitable
def _qr_checked(a):
    if a.shape[0] < a.shape[1]:
        raise ValueError("srcad: the derivative of np.linalg.qr of a matrix with fewer rows "
                         "than columns is not defined by srcad (nor by JAX): its R is not "
                         "square")
    return np.linalg.qr(np.ascontiguousarray(a))


@register_jitable
def _right_inverse(x, r):
    """x r^-1, r upper triangular."""
    return np.ascontiguousarray(np.linalg.solve(np.ascontiguousarray(r.T),
                                                np.ascontiguousarray(x.T)).T)


@overload(qr_tangent)
def _qr_tangent(a, da, part):
    _matrix(a, "qr")

    def impl(a, da, part):
        q, r = _qr_checked(a)
        x = _right_inverse(da, r)
        c = q.T @ x
        lower = np.tril(c, -1)
        d = lower - lower.T
        return q @ (d - c) + x if part == 0 else (c - d) @ r
    return impl


@overload(qr_adjoint)
def _qr_adjoint(a, g, part):
    _matrix(a, "qr")

    def impl(a, g, part):
        q, r = _qr_checked(a)
        seed = np.ascontiguousarray(g)
        if part == 0:
            h = q.T @ seed
            x_bar = seed + q @ (np.tril(h - h.T, -1) - h)
        else:
            k = seed @ r.T
            x_bar = q @ (k - np.tril(k - k.T, -1))
        return np.ascontiguousarray(np.linalg.solve(r, np.ascontiguousarray(x_bar.T)).T)
    return impl
