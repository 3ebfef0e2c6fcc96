"""Contractions: np.einsum (any subscripts, ellipsis, implicit output), np.tensordot (axes=),
np.inner of arrays and the stacked (batched) forms of `@` / np.matmul, all spelled as einsum
subscripts. An einsum is linear in each operand: the tangent of operand k is the same einsum
with its tangent in its place; the adjoint contracts the seed with the other operands onto
operand k's labels (srcad/runtime/linalg_runtime.py's `einsum_adjoint`: it also sums the axes
broadcasting widened, and writes a repeated label's diagonal).

| primitive                       | subscripts                 | tangent of x0              |
|---------------------------------|----------------------------|----------------------------|
| np.einsum(s, x0, x1, ...)       | s                          | np.einsum(s, g, x1, ...)   |
| np.tensordot(x, y, axes=1)      | "ab,bc->ac" (by the ranks) | np.einsum(..., g, y)       |
| np.inner(x, y)                  | "ak,bk->ab"                | the same                   |
| x @ y, stacked (rank > 2)       | "...ij,...jk->...ik"       | the same                   |

The adjoint of operand k is `einsum_adjoint(s, k, g, x0, x1, ...)`; the result's shape is read
off the operands' shapes label by label (broadcast where an ellipsis axis may be 1).
numba has no np.einsum or np.tensordot: srcad/runtime/numba_einsum.py compiles np.einsum (and
einsum_adjoint) as loop nests for the numba backend; np.tensordot is refused by name there.
"""

from __future__ import annotations

import string

from srcad.errors import SrcadError
from srcad.rules.rule_type import MUL, Rule
from srcad.runtime.linalg_runtime import einsum_labels, tensordot_subscripts

NUMBA_REFUSAL = ("numba has no `{name}`: srcad differentiates it on the python backend")


def contraction(name, subscripts: str, ranks) -> Rule:
    """The rule of `np.einsum(subscripts, x0, x1, ...)` for operands of these ranks."""
    try:
        labels, output = einsum_labels(subscripts, ranks)
    except ValueError as error:
        raise SrcadError(f"np.{name} with subscripts {subscripts!r}: {error}",
                         construct=name) from None
    for spelled, rank in zip(labels, ranks):
        if len(spelled) != rank or not spelled.isalpha():
            raise SrcadError(f"np.{name} subscripts {subscripts!r} for operands of ranks "
                             f"{tuple(ranks)}", construct=name,
                             hint="give each operand one letter per axis (or `...`)")
    if len(set(output)) != len(output) or not set(output) <= set("".join(labels)):
        raise SrcadError(f"np.{name} output subscripts {subscripts!r}", construct=name,
                         hint="each output letter once, and only letters of the operands")
    n = len(ranks)
    xs = [f"x{k}" for k in range(n)]
    literal = repr(subscripts)
    tangents = [f"np.einsum({literal}, {', '.join('g' if j == k else xs[j] for j in range(n))})"
                for k in range(n)]
    adjoints = [f"einsum_adjoint({literal}, {k}, g, {', '.join(xs)})" for k in range(n)]
    return Rule(name, tuple(xs), tuple(adjoints), "float", tuple(tangents), False,
                _shape(labels, output), len(output))


def _shape(labels, output) -> str:
    """The result's shape: for each output label, the length of the operand axes it names
    (np.broadcast_shapes where several operands have it: an ellipsis axis may be 1)."""
    parts = []
    for c in output:
        axes = [f"x{k}_shape[{i}:{i + 1}]" for k, spelled in enumerate(labels)
                for i, d in enumerate(spelled) if d == c]
        parts.append(axes[0] if len(axes) == 1 else f"np.broadcast_shapes({', '.join(axes)})")
    return " + ".join(parts) if parts else "()"


def einsum(ranks, keywords):
    """np.einsum(subscripts, *operands) (`optimize=` changes only the order of the work)."""
    subscripts = keywords.get("subscripts")
    if not isinstance(subscripts, str):
        raise SrcadError("np.einsum whose subscripts are not a string written in the call",
                         construct="einsum", hint='write them in the call: np.einsum("ij,j", a, '
                         "b) (the interleaved form of operands and axis lists is not read)")
    return contraction("einsum", subscripts, ranks)


def _letters(count, start=0) -> str:
    return string.ascii_lowercase[start:start + count]


def tensordot(ranks, keywords):
    """np.tensordot(x, y, axes=2): axes an int (the last axes of x with the first of y) or a
    pair of axis lists."""
    axes = keywords.get("axes", 2)
    try:
        subscripts = tensordot_subscripts(*ranks, axes)
    except ValueError:
        raise SrcadError(f"np.tensordot axes={axes!r} for operands of ranks {tuple(ranks)}",
                         construct="tensordot", hint="axes is an int or two lists of axes "
                         "of the same length, literals") from None
    return contraction("tensordot", subscripts, ranks)


def inner(ranks, keywords):
    """np.inner(x, y): the product over the last axes (a number times an array: the
    product)."""
    if 0 in ranks:
        return MUL
    rx, ry = ranks
    x, y = _letters(rx - 1) + "z", _letters(ry - 1, rx - 1) + "z"
    return contraction("inner", f"{x},{y}->{x[:-1]}{y[:-1]}", ranks)


def dot(ranks) -> Rule:
    """np.dot(x, y) of an operand of rank > 2: the last axis of x with the second-to-last of
    y (its only one for a vector), the other axes of x then of y, as NumPy's dot (not
    matmul's broadcasting of stacks)."""
    rx, ry = ranks
    x = _letters(rx - 1) + "z"
    if ry == 1:
        y = "z"
    else:
        rest = _letters(ry - 1, rx - 1)
        y = rest[:-1] + "z" + rest[-1]
    return contraction("dot", f"{x},{y}->{x[:-1]}{y.replace('z', '')}", ranks)


def stacked_matmul(name, ranks) -> Rule:
    """`x @ y` where an operand is a stack of matrices (rank > 2): NumPy's broadcasting of the
    leading axes, the vectors of rank 1 as NumPy reads them."""
    rx, ry = ranks
    x = "j" if rx == 1 else "...ij"
    y = "j" if ry == 1 else "...jk"
    output = "..." + ("i" if rx > 1 else "") + ("k" if ry > 1 else "")
    return contraction(name, f"{x},{y}->{output}", ranks)
