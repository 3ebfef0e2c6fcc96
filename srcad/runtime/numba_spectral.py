"""np.linalg.eigh and eigvalsh on the numba backend, with their derivatives: numba has both
without `UPLO=` (and returns eigh's pair unnamed), and no srcad/runtime/spectral_runtime.py.
srcad/transform/numba_compat.py spells `np.linalg.eigh(A, UPLO='U')` as
`spectral_eigh(A, UPLO='U')` and its parts `.eigenvalues`, `.eigenvectors` as `[0]`, `[1]`;
`eigh_tangent` and `eigh_adjoint` are spectral_runtime's formulas (Giles': dw = diag(V^T dA V),
dV = V (F * (V^T dA V)), F[i, j] = 1 / (w[j] - w[i]) off the diagonal, inf or NaN at repeated
eigenvalues as JAX's), compiled for one matrix; a stack of matrices fails to type, which srcad
reports as a refusal naming the call.

Imported by generated numba modules only (it imports numba).
"""

from __future__ import annotations

import numpy as np
from numba import types
from numba.core.errors import TypingError
from numba.extending import overload, register_jitable

from srcad.runtime.numba_linalg import mirrored


def spectral_eigh(a, UPLO="L"):  # noqa: N803 - NumPy's keyword
    return np.linalg.eigh(a, UPLO)


def spectral_eigvalsh(a, UPLO="L"):  # noqa: N803 - NumPy's keyword
    return np.linalg.eigvalsh(a, UPLO)


def _matrix(a, name):
    if getattr(a, "ndim", 0) != 2:
        raise TypingError(f"np.linalg.{name}: srcad compiles one matrix (rank 2), no stacks")


@overload(spectral_eigh)
def _eigh(a, UPLO="L"):  # noqa: N803
    _matrix(a, "eigh")
    return lambda a, UPLO="L": np.linalg.eigh(mirrored(a, UPLO == "L"))


@overload(spectral_eigvalsh)
def _eigvalsh(a, UPLO="L"):  # noqa: N803
    _matrix(a, "eigvalsh")
    return lambda a, UPLO="L": np.linalg.eigvalsh(mirrored(a, UPLO == "L"))


@register_jitable
def _gaps(w):
    """F[i, j] = 1 / (w[j] - w[i]) off the diagonal, 0 on it (NumPy's division: inf at a
    repeated eigenvalue)."""
    n = w.shape[0]
    out = np.zeros((n, n))
    for i in range(n):
        for j in range(n):
            if i != j:
                gap = w[j] - w[i]
                out[i, j] = np.inf if gap == 0.0 else 1.0 / gap
    return out


@register_jitable
def _folded(m, lower):
    """The adjoint of `mirrored`: m's entries summed onto the triangle read."""
    both = m + m.T
    return np.ascontiguousarray((np.tril(both, -1) if lower else np.triu(both, 1))
                                + np.diag(np.diag(m)))


def eigh_tangent(a, da, uplo, part):
    """The tangent of `np.linalg.eigh(a, uplo)[part]` (spectral_runtime's)."""


def eigh_adjoint(a, g, uplo, part):
    """The adjoint of a for the seed g of `np.linalg.eigh(a, uplo)[part]` (spectral_runtime's)."""


@overload(eigh_tangent, prefer_literal=True)
def _eigh_tangent(a, da, uplo, part):
    _matrix(a, "eigh")
    if not isinstance(part, types.IntegerLiteral):
        raise TypingError("eigh_tangent: the part is a literal 0 or 1")
    if part.literal_value == 0:
        def values(a, da, uplo, part):
            w, v = np.linalg.eigh(mirrored(a, uplo == "L"))
            return np.ascontiguousarray(np.diag(v.T @ mirrored(da, uplo == "L") @ v))
        return values

    def vectors(a, da, uplo, part):
        w, v = np.linalg.eigh(mirrored(a, uplo == "L"))
        rotated = v.T @ mirrored(da, uplo == "L") @ v
        return np.ascontiguousarray(v @ (_gaps(w) * rotated))
    return vectors


@overload(eigh_adjoint)
def _eigh_adjoint(a, g, uplo, part):
    _matrix(a, "eigh")
    if getattr(g, "ndim", 0) == 1:  # the eigenvalues' seed
        def values(a, g, uplo, part):
            w, v = np.linalg.eigh(mirrored(a, uplo == "L"))
            return _folded(v @ np.diag(g) @ v.T, uplo == "L")
        return values

    def vectors(a, g, uplo, part):
        w, v = np.linalg.eigh(mirrored(a, uplo == "L"))
        return _folded(v @ (_gaps(w) * (v.T @ g)) @ v.T, uplo == "L")
    return vectors
