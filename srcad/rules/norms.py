"""np.linalg.norm with `ord=`, `axis=` and `keepdims=`: vector norms (ord None, 2, 1, inf,
-inf, any other number p) of a vector or along one axis, matrix norms ('fro', 'nuc', 1, 2,
inf, -inf, -1) of a matrix. Each is a weighting `w` of the elements (tangent np.sum(g * w),
adjoint g * w), as in srcad/rules/statistics.py.

| ord        | w                                                                     |
|------------|-----------------------------------------------------------------------|
| None, 2    | x / ans ('fro' too, also over two axes of a stack)                    |
| 1          | sign(x), +1 at 0 (JAX: abs'(0) = 1)                                   |
| inf, -inf  | sign(x) split among the elements of largest (smallest) |x|            |
| p          | sign(x) |x|^(p-1) / ans^(p-1)                                        |
| 'nuc'      | U V^T of the SVD;  2: u1 v1^T, the top singular vectors               |
| 1, inf     | sign(x) on the columns (rows) of largest absolute sum, split on ties |

The 2-norm of a zero vector has a NaN derivative, as in JAX.
"""

from __future__ import annotations

import math

from srcad.errors import SrcadError
from srcad.rules.reductions import _axes
from srcad.rules.reductions import norm as first_norm
from srcad.rules.rule_type import linear
from srcad.rules.statistics import weighted

_SIGN = "np.where(x >= 0.0, 1.0, -1.0)"


def norm(ranks, keywords):
    rank, order, axis = ranks[0], keywords.get("ord"), keywords.get("axis")
    if isinstance(order, bool) or not (order is None or isinstance(order, (int, float, str))):
        raise SrcadError(f"ord={order!r} of np.linalg.norm", construct="norm",
                         hint="ord is a literal: None, a number, inf (np.inf), 'fro' or 'nuc'")
    if isinstance(axis, tuple) and len(axis) == 1:
        axis = axis[0]
    matrix = (axis is None and rank == 2 and order is not None) or isinstance(axis, tuple)
    if axis is None and order is not None and rank > 2:
        raise SrcadError(f"np.linalg.norm with ord={order!r} of an array of rank {rank}",
                         construct="norm", hint="give axis= (one axis or two)")
    if order is None and axis is None and not keywords.get("keepdims") and rank <= 2:
        return first_norm(ranks, {})  # the 2-norm, Frobenius's: numba compiles it
    if matrix and order in (None, "fro") and isinstance(axis, tuple) and len(axis) == 2 \
            and (rank > 2 or keywords.get("keepdims")):  # Frobenius over two axes of a stack
        return weighted("norm", rank, {"axis": axis, "keepdims": keywords.get("keepdims")},
                        lambda ax, axes: "(x / {})".format(
                            "ans" if keywords.get("keepdims") else
                            f"np.expand_dims(ans, {tuple(axes)!r})"))
    if matrix:
        return _matrix(rank, order, axis, bool(keywords.get("keepdims", False)))
    return weighted("norm", rank, {"axis": axis, "keepdims": keywords.get("keepdims")},
                    lambda ax, axes: _vector(order, ax, axes, axis, keywords))


def _answer(axes, axis, keywords):
    if keywords.get("keepdims") or axis is None:
        return "ans"
    return f"np.expand_dims(ans, {axes[0]!r})"


def _vector(order, ax, axes, axis, keywords):
    ans = _answer(axes, axis, keywords)
    if order is None or order == 2:
        return f"(x / {ans})"
    if order == 1:
        return _SIGN
    if order in (math.inf, -math.inf):
        best = "np.max" if order > 0 else "np.min"
        hits = f"(np.abs(x) == {best}(np.abs(x), {ax}, keepdims=True))"
        return f"({_SIGN} * {hits} / np.sum({hits}, {ax}, keepdims=True))"
    if isinstance(order, str) or order == 0:
        raise SrcadError(f"ord={order!r} of np.linalg.norm of a vector", construct="norm",
                         hint="a vector norm's ord is a number other than 0, or inf")
    p = float(order)
    return f"({_SIGN} * np.abs(x) ** {p - 1.0!r} / {ans} ** {p - 1.0!r})"


def _matrix(rank, order, axis, keepdims):
    if rank != 2 or (axis is not None and _axes(axis, rank) != (0, 1)) or keepdims:
        raise SrcadError(f"a matrix norm (ord={order!r}) of an array of rank {rank}, with "
                         f"axis={axis!r}{', keepdims=True' if keepdims else ''}",
                         construct="norm", hint="srcad differentiates matrix norms of one "
                         "matrix (axis=None or (0, 1)), no stacks")
    svd = "np.linalg.svd(x, full_matrices=False)"
    if order in (None, "fro"):
        w = "(x / ans)"
    elif order == "nuc":
        w = f"({svd}[0] @ {svd}[2])"
    elif order == 2:
        w = f"np.outer({svd}[0][:, 0], {svd}[2][0])"
    elif order in (1, -1, math.inf, -math.inf):
        along = 0 if order in (1, -1) else 1  # column sums (1) or row sums (inf)
        best = "np.max" if order > 0 else "np.min"
        sums = f"np.sum(np.abs(x), axis={along}, keepdims=True)"
        hits = f"({sums} == {best}({sums}))"
        w = f"({_SIGN} * {hits} / np.sum({hits}))"
    else:
        raise SrcadError(f"ord={order!r} of np.linalg.norm of a matrix", construct="norm",
                         hint="a matrix norm's ord is 'fro', 'nuc', 1, -1, 2, inf or -inf")
    return linear("norm", "x", (f"np.sum(g * {w})", f"g * {w}"), shape="()", rank=0)
