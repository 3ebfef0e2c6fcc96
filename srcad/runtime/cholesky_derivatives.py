"""The derivatives of srcad's own Cholesky rules (`cholesky_tangent`, `cholesky_adjoint` of
srcad/runtime/array_runtime.py), which second order meets when it differentiates generated
code again: forward over reverse needs the tangent of `cholesky_adjoint` in L, reverse over
forward the tangent and the adjoint of `cholesky_tangent` in L. Each is the product rule
through the same few steps (solves with L, the map Phi), written out by hand.

With Phi(X) = tril(X) - diag(X) / 2 (self-adjoint) and S the symmetric matrix of dA's lower
triangle:

* cholesky_tangent(L, dA) = L Phi(C), C = L^-1 S L^-T; along dL: dL Phi(C) + L Phi(dC),
  dC = -L^-1 dL C - C dL^T L^-T; its adjoint in L for a seed W:
  W Phi(C)^T - L^-T (M + M^T) C with M = Phi(L^T W) (C is symmetric).
* cholesky_adjoint(L, g) = T(L^-T P L^-1), P = Phi(L^T g), T(X) = tril(X) + tril(X^T, -1);
  along dL: T(dR L^-1 - R dL L^-1), R = L^-T P, dR = L^-T (Phi(dL^T g) - dL^T R).

Guarantee: each function is exact (no differences), for one matrix (rank 2).

>>> import numpy as np
>>> L = np.array([[2.0, 0.0], [1.0, 3.0]])
>>> dL = np.array([[0.5, 0.0], [0.25, 1.0]])
>>> g = np.array([[1.0, 0.0], [2.0, 1.0]])
>>> from srcad.runtime.array_runtime import cholesky_adjoint
>>> eps = 1e-6
>>> step = (cholesky_adjoint(L + eps * dL, g) - cholesky_adjoint(L - eps * dL, g)) / (2 * eps)
>>> bool(np.allclose(cholesky_adjoint_tangent(L, g, dL), step, atol=1e-8))
True
"""

from __future__ import annotations

import numpy as np

from srcad.errors import SrcadError


def _phi(x):
    return np.tril(x) - 0.5 * np.diag(np.diag(x))


def _symmetric_of_lower(dA):
    return np.tril(dA) + np.tril(dA, -1).T


def _inner(L, dA):
    """C = L^-1 S L^-T."""
    return np.linalg.solve(L, np.linalg.solve(L, _symmetric_of_lower(dA)).T).T


def cholesky_tangent_tangent(L, dA, dL):
    """The tangent of `cholesky_tangent(L, dA)` along dL (dA fixed)."""
    C = _inner(L, dA)
    left = np.linalg.solve(L, dL @ C)  # L^-1 dL C
    dC = -left - left.T  # C dL^T L^-T is the transpose of L^-1 dL C (C symmetric)
    return dL @ _phi(C) + L @ _phi(dC)


def cholesky_tangent_adjoint(L, dA, W):
    """The adjoint in L of `cholesky_tangent(L, dA)` for the seed W (dA fixed)."""
    C = _inner(L, dA)
    M = _phi(L.T @ W)
    return W @ _phi(C).T - np.linalg.solve(L.T, (M + M.T) @ C)


def cholesky_adjoint_tangent(L, g, dL):
    """The tangent of `cholesky_adjoint(L, g)` along dL (g fixed)."""
    R = np.linalg.solve(L.T, _phi(L.T @ g))  # L^-T P
    dR = np.linalg.solve(L.T, _phi(dL.T @ g) - dL.T @ R)
    # sym = R L^-1, d sym = dR L^-1 - R L^-1 dL L^-1 = (dR - R L^-1 dL) L^-1
    R_inv = np.linalg.solve(L.T, R.T).T  # R L^-1
    d_sym = np.linalg.solve(L.T, (dR - R_inv @ dL).T).T
    return np.tril(d_sym) + np.tril(d_sym.T, -1)


def reverse_over_reverse_refused(name):
    """What a reverse pass over srcad's reverse code calls in place of an adjoint it does not
    have (srcad's own second order runs forward over reverse, or reverse over forward)."""
    raise SrcadError(f"reverse mode over srcad's reverse rule of {name} is not supported",
                     construct=name, hint="use srcad.hessian or srcad.hvp, which run forward "
                     "mode over reverse mode")
