"""Solvers and decompositions: np.linalg.solve, inv, det, slogdet, cholesky (np.diag is in
srcad/rules/selection.py). The standard matrix-calculus rules, tangent and adjoint side by
side (x: the matrix A, y: the right-hand side b, ans: the result).

| primitive             | tangent                             | adjoint                         |
|-----------------------|-------------------------------------|---------------------------------|
| solve(A, b) (b: 1-D)  | -solve(A, dA @ ans); solve(A, db)   | -outer(solve(A.T, g), ans); ... |
| solve(A, B) (B: 2-D)  | the same                            | -solve(A.T, g) @ ans.T; ...     |
|                       |                                     | b: solve(A.T, g)                |
| inv(A)                | -ans @ dA @ ans                     | -ans.T @ g @ ans.T              |
| det(A)                | ans * trace(solve(A, dA))           | g * ans * inv(A).T              |
| slogdet(A).logabsdet  | trace(solve(A, dA))                 | g * inv(A).T                    |
| cholesky(A) (L)       | L Phi(L^-1 S L^-T), S from tril(dA) | its transpose (array_runtime)   |

`s, ld = np.linalg.slogdet(A)` is unpacked (transform/normalize/desugar.py) into the attributes
`np.linalg.slogdet(A).sign` (no derivative) and `.logabsdet`. np.linalg.cholesky reads only
the lower triangle of A, so its adjoint is zero above the diagonal: the derivative of what
NumPy computes, also for a non-symmetric A.
"""

from __future__ import annotations

from srcad.errors import SrcadError
from srcad.rules import linear


def _square(name, ranks):
    if ranks[0] != 2:
        raise SrcadError(f"np.linalg.{name} of an array of rank {ranks[0]}", construct=name,
                         hint=f"srcad differentiates np.linalg.{name} of one square matrix "
                         "(no stacks of matrices)")


def solve(ranks, keywords):
    """np.linalg.solve(A, b) with b a vector or a matrix of right-hand sides."""
    _square("solve", ranks)
    if ranks[1] not in (1, 2):
        raise SrcadError(f"np.linalg.solve with a right-hand side of rank {ranks[1]}",
                         construct="solve", hint="the right-hand side is a vector or a matrix")
    x_bar = "-np.outer(np.linalg.solve(x.T, g), ans)" if ranks[1] == 1 else \
        "-(np.linalg.solve(x.T, g) @ ans.T)"
    return linear("solve", "x y", ("-np.linalg.solve(x, g @ ans)", x_bar),
                  ("np.linalg.solve(x, g)", "np.linalg.solve(x.T, g)"),
                  shape="y_shape", rank=ranks[1])


def inv(ranks, keywords):
    """np.linalg.inv(A)."""
    _square("inv", ranks)
    return linear("inv", "x", ("-(ans @ g @ ans)", "-(ans.T @ g @ ans.T)"),
                  shape="x_shape", rank=2)


def det(ranks, keywords):
    """np.linalg.det(A)."""
    _square("det", ranks)
    return linear("det", "x", ("ans * np.trace(np.linalg.solve(x, g))",
                               "g * ans * np.linalg.inv(x).T"), shape="()", rank=0)


def logabsdet(ranks, keywords):
    """np.linalg.slogdet(A).logabsdet, the log of |det A|."""
    _square("slogdet", ranks)
    return linear("logabsdet", "x", ("np.trace(np.linalg.solve(x, g))",
                                     "g * np.linalg.inv(x).T"), shape="()", rank=0)


def sign_of_det(ranks, keywords):
    """np.linalg.slogdet(A).sign: piecewise constant, no derivative."""
    _square("slogdet", ranks)
    return linear("sign", "x", (None, None), shape="()", rank=0)


def cholesky(ranks, keywords):
    """np.linalg.cholesky(A), the lower factor L of A = L L^T."""
    _square("cholesky", ranks)
    return linear("cholesky", "x", ("cholesky_tangent(ans, g)", "cholesky_adjoint(ans, g)"),
                  shape="x_shape", rank=2)

