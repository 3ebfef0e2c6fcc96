"""Linear algebra: np.dot, `@` / np.matmul (operands of rank 1 or 2), the transpose `x.T` /
np.transpose(x). Bilinear or linear, so the tangent of each operand is the product with the
other operand's value, and the adjoint is its transpose; one rule per pair of ranks.

| x @ y, ranks | tangent (x, y)      | adjoint (x, y)             | result shape           |
|--------------|---------------------|----------------------------|------------------------|
| 1, 1         | g @ y, x @ g        | g * y, x * g               | ()                     |
| 2, 1         | g @ y, x @ g        | np.outer(g, y), x.T @ g    | x.shape[:1]            |
| 1, 2         | g @ y, x @ g        | y @ g, np.outer(x, g)      | y.shape[1:]            |
| 2, 2         | g @ y, x @ g        | g @ y.T, x.T @ g           | x.shape[:1] + y.shape[1:] |

np.outer(x, y) of vectors: adjoints g @ y, x @ g; np.inner of vectors is np.dot (np.trace:
srcad/rules/selection.py).
"""

from __future__ import annotations

from srcad.errors import SrcadError
from srcad.rules import MUL, linear

_MATMUL = {
    (1, 1): (("g * y", "x * g"), "()", 0),
    (2, 1): (("np.outer(g, y)", "x.T @ g"), "x_shape[:1]", 1),
    (1, 2): (("y @ g", "np.outer(x, g)"), "y_shape[1:]", 1),
    (2, 2): (("g @ y.T", "x.T @ g"), "x_shape[:1] + y_shape[1:]", 2),
}


def matmul(name):
    """A `select` for `@`, np.matmul and np.dot by the operands' ranks (np.dot with a
    float operand is a product)."""
    def select(ranks, keywords):
        if name == "dot" and 0 in ranks:
            return MUL
        if tuple(ranks) not in _MATMUL:
            raise SrcadError(f"{name} of operands of ranks {tuple(ranks)}", construct=name,
                             hint="srcad differentiates products of vectors and matrices "
                             "(rank 1 or 2)")
        (x_bar, y_bar), shape, rank = _MATMUL[tuple(ranks)]
        tangents = ("np.dot(g, y)", "np.dot(x, g)") if rank == 0 else ("g @ y", "x @ g")
        return linear(name, "x y", (tangents[0], x_bar), (tangents[1], y_bar), shape=shape,
                      rank=rank)
    return select


def transpose(ranks, keywords):
    """x.T and np.transpose(x) (all axes reversed)."""
    return linear("transpose", "x", ("np.transpose(g)", "np.transpose(g)"),
                  shape="x_shape[::-1]", rank=ranks[0])


def outer(ranks, keywords):
    """np.outer(x, y) of two vectors."""
    if tuple(ranks) != (1, 1):
        raise SrcadError(f"np.outer of operands of ranks {tuple(ranks)}", construct="outer",
                         hint="srcad differentiates np.outer of two vectors")
    return linear("outer", "x y", ("np.outer(g, y)", "g @ y"), ("np.outer(x, g)", "x @ g"),
                  shape="x_shape + y_shape", rank=2)


def inner(ranks, keywords):
    """np.inner(x, y) of two vectors (np.dot)."""
    if tuple(ranks) != (1, 1):
        raise SrcadError(f"np.inner of operands of ranks {tuple(ranks)}", construct="inner",
                         hint="srcad differentiates np.inner of two vectors")
    return matmul("inner")(ranks, keywords)

