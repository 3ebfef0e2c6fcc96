"""Solvers and decompositions: np.linalg.solve, inv, det, slogdet, cholesky (np.diag is in
srcad/rules/selection.py). The standard matrix-calculus rules, tangent and adjoint side by
side (x: the matrix A, y: the right-hand side b, ans: the result).

| primitive             | tangent                             | adjoint                         |
|-----------------------|-------------------------------------|---------------------------------|
| solve(A, b) (b: 1-D)  | -solve(A, dA @ ans); solve(A, db)   | -outer(solve(A.T, g), ans); ... |
| solve(A, B) (B: 2-D)  | the same                            | -solve(A.T, g) @ ans.T; ...     |
|                       |                                     | b: solve(A.T, g)                |
| inv(A)                | -ans @ dA @ ans                     | -ans.T @ g @ ans.T              |
| det(A)                | ans tr(solve(A, dA)); 0 det: C . dA | g * C, C = det_cofactor(A)      |
| slogdet(A).logabsdet  | trace(solve(A, dA))                 | g * inv(A).T                    |
| cholesky(A) (L)       | L Phi(L^-1 S L^-T), S from tril(dA) | its transpose (array_runtime)   |

C, the cofactor matrix, is det(A) inv(A)^T where A is regular and comes from the SVD where A
is singular (det is a polynomial, differentiable everywhere: at [[1, 2], [2, 4]] the gradient
is [[4, -2], [-2, 1]], as JAX's). slogdet's logabsdet at a singular A is -inf and has no finite
derivative (JAX gives inf entries): srcad refuses it as a non-finite derivative.

Stacks of matrices (rank above 2) take the same formulas with each matrix's transpose
(np.swapaxes(., -1, -2)); a stack's adjoint is summed over the axes broadcasting added.

`s, ld = np.linalg.slogdet(A)` is unpacked (transform/normalize/desugar.py) into the attributes
`np.linalg.slogdet(A).sign` (no derivative) and `.logabsdet`. np.linalg.cholesky reads only
the lower triangle of A, so its adjoint is zero above the diagonal: the derivative of what
NumPy computes, also for a non-symmetric A.
"""

from __future__ import annotations

from srcad.errors import SrcadError
from srcad.rules.rule_type import linear

_T = "np.swapaxes({}, -1, -2)"  # the transpose of each matrix of a stack


def _square(name, ranks):
    if ranks[0] < 2:
        raise SrcadError(f"np.linalg.{name} of an array of rank {ranks[0]}", construct=name,
                         hint=f"np.linalg.{name} takes a square matrix or a stack of them")
    return ranks[0] > 2  # a stack of matrices


def solve(ranks, keywords):
    """np.linalg.solve(A, b) with b a vector or a matrix of right-hand sides, or stacks of
    them (NumPy 2: b is a vector only when it has rank 1)."""
    stacked = _square("solve", ranks) or ranks[1] > 2
    if ranks[1] < 1:
        raise SrcadError("np.linalg.solve with a number as right-hand side",
                         construct="solve", hint="the right-hand side is a vector or a matrix")
    if not stacked:
        x_bar = "-np.outer(np.linalg.solve(x.T, g), ans)" if ranks[1] == 1 else \
            "-(np.linalg.solve(x.T, g) @ ans.T)"
        return linear("solve", "x y", ("-np.linalg.solve(x, g @ ans)", x_bar),
                      ("np.linalg.solve(x, g)", "np.linalg.solve(x.T, g)"),
                      shape="y_shape", rank=ranks[1])
    x_t = _T.format("x")
    if ranks[1] == 1:  # one vector for every matrix of the stack
        b_bar = f"np.linalg.solve({x_t}, g[..., None])[..., 0]"
        return linear("solve", "x y", ("-np.linalg.solve(x, g @ ans[..., None])[..., 0]",
                                       f"-({b_bar}[..., :, None] * ans[..., None, :])"),
                      ("np.linalg.solve(x, g)", f"unbroadcast({b_bar}, y_shape)"),
                      shape="x_shape[:-1]", rank=ranks[0] - 1)
    b_bar = f"np.linalg.solve({x_t}, g)"
    return linear("solve", "x y", ("-np.linalg.solve(x, g @ ans)",
                                   f"unbroadcast(-({b_bar} @ {_T.format('ans')}), x_shape)"),
                  ("np.linalg.solve(x, g)", f"unbroadcast({b_bar}, y_shape)"),
                  shape="np.broadcast_shapes(x_shape[:-2], y_shape[:-2]) + y_shape[-2:]",
                  rank=max(ranks))


def inv(ranks, keywords):
    """np.linalg.inv(A), also of a stack of matrices."""
    if _square("inv", ranks):
        ans_t = _T.format("ans")
        return linear("inv", "x", ("-(ans @ g @ ans)", f"-({ans_t} @ g @ {ans_t})"),
                      shape="x_shape", rank=ranks[0])
    return linear("inv", "x", ("-(ans @ g @ ans)", "-(ans.T @ g @ ans.T)"),
                  shape="x_shape", rank=2)


def det(ranks, keywords):
    """np.linalg.det(A), also of a stack of matrices: its gradient is the cofactor matrix
    (`det_cofactor`, srcad/runtime/linalg_runtime.py), det(A) inv(A)^T where A is regular and
    from the SVD where it is singular (det is a polynomial: JAX's gradient there too)."""
    if _square("det", ranks):
        return linear("det", "x", ("np.sum(det_cofactor(x) * g, axis=(-2, -1))",
                                   "g[..., None, None] * det_cofactor(x)"),
                      shape="x_shape[:-2]", rank=ranks[0] - 2)
    # forward: today's trace formula where det(A) != 0 (one solve per tangent direction)
    return linear("det", "x", ("(ans * np.trace(np.linalg.solve(x, g)) if ans != 0.0 else "
                               "np.sum(det_cofactor(x) * g))", "g * det_cofactor(x)"),
                  shape="()", rank=0)


_TRACE_OF_SOLVE = "np.trace(np.linalg.solve(x, g), axis1=-2, axis2=-1)"
_INV_T = "np.swapaxes(np.linalg.inv(x), -1, -2)"


def det_cofactor_rule(ranks, keywords):
    """Second order through det's rule: the derivative of the cofactor matrix C = det(A)
    inv(A)^T, dC = C tr(A^-1 dA) - det(A) (A^-1 dA A^-1)^T; its adjoint for the seed W,
    sum(W * C) inv(A)^T - det(A) (A^-1 W A^-1)^T (a regular A: at a singular one these are
    not finite, and srcad says so)."""
    stacked = _square("det", ranks)
    inv_x = "np.linalg.inv(x)"
    if not stacked:
        return linear("det_cofactor", "x", (
            "det_cofactor(x) * np.trace(np.linalg.solve(x, g)) - np.linalg.det(x) * "
            f"(np.linalg.solve(x, g) @ {inv_x}).T",
            f"np.sum(g * det_cofactor(x)) * {inv_x}.T - np.linalg.det(x) * "
            f"({inv_x} @ g @ {inv_x}).T"), shape="x_shape", rank=2)
    det_x = "np.linalg.det(x)[..., None, None]"
    return linear("det_cofactor", "x", (
        f"det_cofactor(x) * {_TRACE_OF_SOLVE}[..., None, None] - {det_x} * "
        + _T.format(f"np.linalg.solve(x, g) @ {inv_x}"),
        f"np.sum(g * det_cofactor(x), axis=(-2, -1))[..., None, None] * {_INV_T} - "
        f"{det_x} * " + _T.format(f"{inv_x} @ g @ {inv_x}")), shape="x_shape", rank=ranks[0])


def logabsdet(ranks, keywords):
    """np.linalg.slogdet(A).logabsdet, the log of |det A|."""
    if _square("slogdet", ranks):
        return linear("logabsdet", "x", (_TRACE_OF_SOLVE, f"g[..., None, None] * {_INV_T}"),
                      shape="x_shape[:-2]", rank=ranks[0] - 2)
    return linear("logabsdet", "x", ("np.trace(np.linalg.solve(x, g))",
                                     "g * np.linalg.inv(x).T"), shape="()", rank=0)


def sign_of_det(ranks, keywords):
    """np.linalg.slogdet(A).sign: piecewise constant, no derivative."""
    _square("slogdet", ranks)
    return linear("sign", "x", (None, None), shape="x_shape[:-2]", rank=ranks[0] - 2)


def cholesky(ranks, keywords):
    """np.linalg.cholesky(A), the lower factor L of A = L L^T (also of a stack)."""
    if _square("cholesky", ranks):
        return linear("cholesky", "x", ("stacked_cholesky_tangent(ans, g)",
                                        "stacked_cholesky_adjoint(ans, g)"),
                      shape="x_shape", rank=ranks[0])
    return linear("cholesky", "x", ("cholesky_tangent(ans, g)", "cholesky_adjoint(ans, g)"),
                  shape="x_shape", rank=2)

