"""Linear algebra: np.dot, `@` / np.matmul (operands of rank 1 or 2), the transpose `x.T` /
np.transpose(x). Bilinear or linear, so the tangent of each operand is the product with the
other operand's value, and the adjoint is its transpose; one rule per pair of ranks.

| x @ y, ranks | tangent (x, y)      | adjoint (x, y)             | result shape           |
|--------------|---------------------|----------------------------|------------------------|
| 1, 1         | g @ y, x @ g        | g * y, x * g               | ()                     |
| 2, 1         | g @ y, x @ g        | np.outer(g, y), x.T @ g    | x.shape[:1]            |
| 1, 2         | g @ y, x @ g        | y @ g, np.outer(x, g)      | y.shape[1:]            |
| 2, 2         | g @ y, x @ g        | g @ y.T, x.T @ g           | x.shape[:1] + y.shape[1:] |

Stacks of matrices (a rank above 2) are einsum contractions (srcad/rules/einsum.py).
np.outer(x, y) of vectors: adjoints g @ y, x @ g; np.inner of vectors is np.dot (np.trace:
srcad/rules/selection.py).
"""

from __future__ import annotations

import numpy as np

from srcad.errors import SrcadError
from srcad.rules import einsum
from srcad.rules.rule_type import MUL, linear

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
        if tuple(ranks) not in _MATMUL and 0 not in ranks and name == "dot":
            return einsum.dot(ranks)  # not matmul's stacks: dot's axes
        if tuple(ranks) not in _MATMUL and 0 not in ranks:  # a stack of matrices
            return einsum.stacked_matmul(name, ranks)
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
    """x.T and np.transpose(x) (all axes reversed); np.transpose(x, axes) (a literal
    permutation, by position or by name): the adjoint applies the inverse permutation."""
    axes = keywords.get("axes")
    if axes is None:
        return linear("transpose", "x", ("np.transpose(g)", "np.transpose(g)"),
                      shape="x_shape[::-1]", rank=ranks[0])
    rank = ranks[0]
    if not isinstance(axes, tuple) or sorted(a % rank if isinstance(a, int) and -rank <= a
                                             < rank else None for a in axes) \
            != list(range(rank)):
        raise SrcadError(f"np.transpose with axes={axes!r} for an array of rank {rank}",
                         construct="transpose", hint="axes is a literal permutation of the "
                         "array's axes")
    order = tuple(a % rank for a in axes)
    back = tuple(order.index(k) for k in range(rank))
    shape = "(" + "".join(f"x_shape[{a}], " for a in order) + ")"
    return linear("transpose", "x", (f"np.transpose(g, {order!r})",
                                     f"np.transpose(g, {back!r})"), shape=shape, rank=rank)


def outer(ranks, keywords):
    """np.outer(x, y): of the arrays flattened."""
    if tuple(ranks) == (1, 1):
        return linear("outer", "x y", ("np.outer(g, y)", "g @ y"), ("np.outer(x, g)", "x @ g"),
                      shape="x_shape + y_shape", rank=2)
    return linear("outer", "x y", ("np.outer(g, y)", "np.reshape(g @ np.ravel(y), x_shape)"),
                  ("np.outer(x, g)", "np.reshape(np.ravel(x) @ g, y_shape)"),
                  shape="(math.prod(x_shape), math.prod(y_shape))", rank=2)


def inner(ranks, keywords):
    """np.inner(x, y): of two vectors np.dot, of arrays a contraction of the last axes."""
    if tuple(ranks) != (1, 1):
        return einsum.inner(ranks, keywords)
    return matmul("inner")(ranks, keywords)


def vdot(ranks, keywords):
    """np.vdot(x, y): the sum of the products of the arrays flattened (real arrays)."""
    return linear("vdot", "x y", ("np.vdot(g, y)", "np.reshape(g * np.ravel(y), x_shape)"),
                  ("np.vdot(x, g)", "np.reshape(g * np.ravel(x), y_shape)"), shape="()", rank=0)


def cross(ranks, keywords):
    """np.cross(x, y) of 3-vectors along the last axis (stacks broadcast): <g, x × y> is
    <x, y × g> and <y, g × x>."""
    if 0 in ranks:
        raise SrcadError("np.cross of a number", construct="cross",
                         hint="np.cross takes vectors of length 3")
    a, b, c = _cross_axes(ranks, keywords)

    def crossed(u, v, p, q, r):  # refusing two 2-vectors (srcad/runtime/cross_runtime.py)
        return f"cross_of({u}, {v}, {p}, {q}, {r})"

    # the adjoints: the same products with the vector axes moved where each operand has its
    # own (counted from the end, so that broadcast leading axes are summed by unbroadcast);
    # a 2-vector's is the first two coordinates (NumPy read its third as 0)
    shape = f"np.cross(np.zeros(x_shape), np.zeros(y_shape), axisa={a}, axisb={b}, " \
        f"axisc={c}).shape"
    if (a, b, c) == (-1, -1, -1):  # numba: without keywords
        shape = "np.broadcast_shapes(x_shape[:-1], y_shape[:-1]) + (3,)"
    x_length = f"cross_length(x_shape, y_shape, {a}, {b})"  # refusing two 2-vectors
    y_length = f"cross_length(y_shape, x_shape, {b}, {a})"
    x_bar = f"np.take({crossed('y', 'g', b, c, a)}, np.arange({x_length}), axis={a})"
    y_bar = f"np.take({crossed('g', 'x', c, a, b)}, np.arange({y_length}), axis={b})"
    return linear("cross", "x y", (crossed("g", "y", a, b, c), f"unbroadcast({x_bar}, x_shape)"),
                  (crossed("x", "g", a, b, c), f"unbroadcast({y_bar}, y_shape)"),
                  shape=shape, rank=max(ranks))


def _cross_on_numba(count) -> str:
    """numba's np.cross takes two arrays and no keyword."""
    return "" if count <= 2 else ("numba's `np.cross` takes no axisa=, axisb=, axisc= or "
                                  "axis=: srcad differentiates them on the python backend")


def _cross_axes(ranks, keywords):
    """np.cross's (axisa, axisb, axisc) as negative ints (axis= sets all three)."""
    axis = keywords.get("axis")
    given = [keywords.get(k, -1) for k in ("axisa", "axisb", "axisc")] if axis is None \
        else [axis] * 3
    out_rank = max(ranks)
    out = []
    for value, rank, name in zip(given, (ranks[0], ranks[1], out_rank), ("a", "b", "c")):
        if not isinstance(value, int) or isinstance(value, bool) or not -rank <= value < rank:
            raise SrcadError(f"axis{name}={value!r} of np.cross for an array of rank {rank}",
                             construct="cross", hint="a literal int within the rank")
        out.append(value % rank - rank)
    return tuple(out)


def kron(ranks, keywords):
    """np.kron(x, y) of arrays of any ranks (the lower rank padded with leading axes of length
    1, as NumPy does; of a number, the product): the seed split into (x axis, y axis) pairs,
    contracted with y onto x's axes and with x onto y's."""
    if 0 in ranks:  # of a number: the product
        return MUL
    rank = max(ranks)
    padded = [f"((1,) * {rank - r} + tuple({name}_shape))" for r, name in zip(ranks, "xy")]
    split = "(" + "".join(f"{padded[0]}[{k}], {padded[1]}[{k}], " for k in range(rank)) + ")"
    split = f"np.reshape(g, {split})"
    x_axes, y_axes = "abcdefghijkl"[:rank], "mnopqrstuvwz"[:rank]
    pairs = "".join(a + b for a, b in zip(x_axes, y_axes))
    to_x = f"np.reshape(np.einsum('{pairs},{y_axes}->{x_axes}', {split}, " \
        f"np.reshape(y, {padded[1]})), x_shape)"
    to_y = f"np.reshape(np.einsum('{pairs},{x_axes}->{y_axes}', {split}, " \
        f"np.reshape(x, {padded[0]})), y_shape)"
    shape = " + ".join(f"({padded[0]}[{k}] * {padded[1]}[{k}],)" for k in range(rank)) or "()"
    return linear("kron", "x y", ("np.kron(g, y)", to_x), ("np.kron(x, g)", to_y),
                  shape=shape, rank=rank)


def matrix_power(ranks, keywords):
    """np.linalg.matrix_power(A, n), n a literal int (negative: powers of the inverse);
    stacks of matrices too."""
    n = keywords.get("n")
    if not isinstance(n, int) or isinstance(n, bool):
        raise SrcadError("np.linalg.matrix_power with a power that is not an int written in "
                         "the call", construct="matrix_power", hint="write n as a literal int")
    if ranks[0] < 2:
        raise SrcadError(f"np.linalg.matrix_power of an array of rank {ranks[0]}",
                         construct="matrix_power", hint="it takes a square matrix")
    return linear("matrix_power", "x", (f"matrix_power_tangent(x, g, {n})",
                                        f"matrix_power_adjoint(x, g, {n})"),
                  shape="x_shape", rank=ranks[0])


def multi_dot(ranks, keywords):
    """np.linalg.multi_dot([x0, x1, ...]): matrices, the first and last may be vectors."""
    if len(ranks) < 2 or any(r != 2 for r in ranks[1:-1]) or not {ranks[0], ranks[-1]} <= {1, 2}:
        raise SrcadError(f"np.linalg.multi_dot of arrays of ranks {tuple(ranks)}",
                         construct="multi_dot", hint="matrices, the first and last may be "
                         "vectors")
    letters = "abcdefghijklmnopqrstuvwxyz"[:len(ranks) + 1]
    parts = [letters[k:k + 2] for k in range(len(ranks))]
    if ranks[0] == 1:
        parts[0] = parts[0][1]
    if ranks[-1] == 1:
        parts[-1] = parts[-1][0]
    output = (letters[0] if ranks[0] == 2 else "") + (letters[-1] if ranks[-1] == 2 else "")
    return einsum.contraction("multi_dot", f"{','.join(parts)}->{output}", ranks)



_NUMBA = "numba has no `{name}`: srcad differentiates it on the python backend"

# what the rule table adds for this family: (function, select, the CallInfo's other fields)
ENTRIES = [
    # numba: srcad/runtime/numba_einsum.py
    (np.einsum, einsum.einsum, {"leading": ("subscripts",), "keywords": ("optimize",),
                                "operand_count": -1}),
    (np.tensordot, einsum.tensordot, {"keywords": ("axes",), "operand_count": 2}),
    (np.kron, kron, {}),
    (np.cross, cross, {"keywords": ("axisa", "axisb", "axisc", "axis"), "operand_count": 2,
                       "numba_refusal": _cross_on_numba}),
    (np.vdot, vdot, {}),
    (np.linalg.matrix_power, matrix_power, {
        "keywords": ("n",)}),
    (np.linalg.multi_dot, multi_dot, {
        "sequence": True}),
]
