"""Selecting elements: np.take, np.take_along_axis (the indices are an int array without
derivative), np.diag (k=), np.diagonal (offset=, axis1=, axis2=), np.diagflat (k=),
np.tril / np.triu (k=), np.trace (offset=, axis1=, axis2=). Each is linear in its operand's
values: the tangent selects the same elements of the tangent; the adjoint adds each seed
element into the element it was read from (srcad/runtime/movement_runtime.py, np.add.at:
an index read twice gets both seeds).

| primitive                      | tangent                      | adjoint                        |
|--------------------------------|------------------------------|--------------------------------|
| np.take(x, i, axis, mode)      | np.take(g, i, axis, mode)    | untake(g, i, axis, mode, ...)  |
| np.take_along_axis(x, i, axis) | np.take_along_axis(g, i, axis) | untake_along_axis(...)       |
| np.diag(v, k) (v: 1-D)         | np.diag(g, k)                | np.diag(g, k)                  |
| np.diag(A, k), np.diagonal     | np.diagonal(g, k, ...)       | undiagonal(g, x.shape, k, ...) |
| np.diagflat(x, k)              | np.diagflat(g, k)            | np.diag(g, k) in x's shape     |
| np.tril(x, k), np.triu(x, k)   | np.tril(g, k)                | np.tril(g, k)                  |
| np.trace(x, offset, ...)       | np.trace(g, offset, ...)     | untrace(g, x.shape, offset, ...) |
"""

from __future__ import annotations

import numpy as np

from srcad.errors import SrcadError
from srcad.rules.rule_type import linear


def _int(value, name, keyword) -> int:
    if not isinstance(value, int) or isinstance(value, bool):
        raise SrcadError(f"`{keyword}={value!r}` of np.{name}", construct=name,
                         hint=f"{keyword} must be a literal int")
    return value


def _axis(value, rank, name, keyword="axis") -> int:
    if not -rank <= _int(value, name, keyword) < rank:
        raise SrcadError(f"`{keyword}={value!r}` of np.{name} for an array of rank {rank}",
                         construct=name, hint=f"{keyword} must be within the rank")
    return value % rank


def take(ranks, keywords):
    """np.take(x, indices, axis=None, mode='raise'), x.take(indices, axis)."""
    if keywords.get("out") is not None:
        raise SrcadError("np.take with out=", construct="take", hint="use the returned array")
    if len(ranks) < 2:
        raise SrcadError("np.take without indices", construct="take")
    mode = keywords.get("mode", "raise")
    if mode not in ("raise", "wrap", "clip"):
        raise SrcadError(f"np.take with mode={mode!r}", construct="take",
                         hint="mode is 'raise', 'wrap' or 'clip'")
    axis = keywords.get("axis")
    if axis is not None:
        axis = _axis(axis, ranks[0], "take")
    spelled = f"axis={axis!r}" + ("" if mode == "raise" else f", mode={mode!r}")
    rank = ranks[1] if axis is None else ranks[0] - 1 + ranks[1]
    return linear("take", "x indices", (f"np.take(g, indices, {spelled})",
                                        f"untake(g, indices, {axis!r}, {mode!r}, x_shape)"),
                  (None, None), shape=f"taken_shape(x_shape, indices_shape, {axis!r})",
                  rank=rank)


def take_along_axis(ranks, keywords):
    """np.take_along_axis(x, indices, axis)."""
    if len(ranks) < 2 or "axis" not in keywords:
        raise SrcadError("np.take_along_axis without indices and axis", construct="call",
                         hint="write np.take_along_axis(x, indices, axis=0)")
    axis = keywords["axis"]
    if axis is None:
        if ranks[1] != 1:
            raise SrcadError("np.take_along_axis with axis=None of indices of rank "
                             f"{ranks[1]}", construct="take_along_axis")
        rank = 1
    else:
        axis = _axis(axis, ranks[0], "take_along_axis")
        if ranks[1] != ranks[0]:
            raise SrcadError("np.take_along_axis of indices of another rank than the array",
                             construct="take_along_axis")
        rank = ranks[0]
    return linear("take_along_axis", "x indices",
                  (f"np.take_along_axis(g, indices, axis={axis!r})",
                   f"untake_along_axis(g, indices, {axis!r}, x_shape)"), (None, None),
                  shape=f"along_shape(x_shape, indices_shape, {axis!r})", rank=rank)


def _diagonal(name, rank, offset, axis1, axis2):
    return linear(name, "x", (f"np.diagonal(g, {offset}, {axis1}, {axis2})",
                              f"undiagonal(g, x_shape, {offset}, {axis1}, {axis2})"),
                  shape=f"diagonal_shape(x_shape, {offset}, {axis1}, {axis2})", rank=rank - 1)


def diag(ranks, keywords):
    """np.diag(v, k=0) of a vector (a matrix with v on its k-th diagonal) or np.diag(A, k=0)
    of a matrix (its k-th diagonal)."""
    k = _int(keywords.get("k", 0), "diag", "k")
    if ranks[0] == 1:
        size = f"x_shape[0] + {abs(k)}"
        return linear("diag", "x", (f"np.diag(g, {k})",) * 2, shape=f"({size}, {size})",
                      rank=2)
    if ranks[0] == 2:
        return _diagonal("diagonal", 2, k, 0, 1)
    raise SrcadError(f"np.diag of an array of rank {ranks[0]}", construct="diag",
                     hint="np.diag takes a vector or a matrix")


def diagonal(ranks, keywords):
    """np.diagonal(x, offset=0, axis1=0, axis2=1), x.diagonal(...)."""
    rank = ranks[0]
    if rank < 2:
        raise SrcadError(f"np.diagonal of an array of rank {rank}", construct="diagonal",
                         hint="np.diagonal takes an array of rank 2 or more")
    offset = _int(keywords.get("offset", 0), "diagonal", "offset")
    axis1 = _axis(keywords.get("axis1", 0), rank, "diagonal", "axis1")
    axis2 = _axis(keywords.get("axis2", 1), rank, "diagonal", "axis2")
    if axis1 == axis2:
        raise SrcadError("np.diagonal with axis1 equal to axis2", construct="diagonal")
    return _diagonal("diagonal", rank, offset, axis1, axis2)


def diagflat(ranks, keywords):
    """np.diagflat(x, k=0): the flattened x on the k-th diagonal of a matrix."""
    k = _int(keywords.get("k", 0), "diagflat", "k")
    size = f"int(np.prod(x_shape)) + {abs(k)}"
    return linear("diagflat", "x", (f"np.diagflat(g, {k})",
                                    f"np.reshape(np.diag(g, {k}), x_shape)"),
                  shape=f"({size}, {size})", rank=2)


def triangle(name):
    """A `select` for np.tril / np.triu (k=0): the lower (upper) triangle of the last two
    axes, the rest zero."""
    def select(ranks, keywords):
        if ranks[0] < 2:
            raise SrcadError(f"np.{name} of an array of rank {ranks[0]}", construct=name,
                             hint=f"np.{name} takes an array of rank 2 or more")
        k = _int(keywords.get("k", 0), name, "k")
        return linear(name, "x", (f"np.{name}(g, {k})",) * 2, shape="x_shape", rank=ranks[0])
    return select


def trace(ranks, keywords):
    """np.trace(x, offset=0, axis1=0, axis2=1), x.trace(...)."""
    rank = ranks[0]
    if rank < 2:
        raise SrcadError(f"np.trace of an array of rank {rank}", construct="trace",
                         hint="np.trace takes an array of rank 2 or more")
    for keyword in ("dtype", "out"):
        if keywords.get(keyword) is not None:
            raise SrcadError(f"np.trace with {keyword}=", construct="trace",
                             hint=f"leave {keyword}= out")
    offset = _int(keywords.get("offset", 0), "trace", "offset")
    axis1 = _axis(keywords.get("axis1", 0), rank, "trace", "axis1")
    axis2 = _axis(keywords.get("axis2", 1), rank, "trace", "axis2")
    if axis1 == axis2:
        raise SrcadError("np.trace with axis1 equal to axis2", construct="trace")
    rest = "(" + "".join(f"x_shape[{a}], " for a in range(rank) if a not in (axis1, axis2)) + ")"
    return linear("trace", "x", (f"np.trace(g, {offset}, {axis1}, {axis2})",
                                 f"untrace(g, x_shape, {offset}, {axis1}, {axis2})"),
                  shape=rest if rank > 2 else "()", rank=rank - 2)


# (function, select, keywords by position after the operand, keywords that are operands)
ENTRIES = [
    (np.take, take, ("indices", "axis", "out", "mode"), ("indices",)),
    (np.take_along_axis, take_along_axis, ("indices", "axis"), ("indices",)),
    (np.diag, diag, ("k",), ()),
    (np.diagonal, diagonal, ("offset", "axis1", "axis2"), ()),
    (np.diagflat, diagflat, ("k",), ()),
    (np.tril, triangle("tril"), ("k",), ()),
    (np.triu, triangle("triu"), ("k",), ()),
    (np.trace, trace, ("offset", "axis1", "axis2", "dtype", "out"), ()),
]
