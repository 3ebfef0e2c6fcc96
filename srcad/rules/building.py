"""Building arrays from arrays and numbers: np.concatenate, np.stack, np.hstack, np.vstack,
np.column_stack of a list or tuple literal (`np.stack([a, b * c])`), np.array of a list of numbers
(`np.array([a, b * c])`: np.stack along a new first axis) and np.atleast_1d/2d/3d.

The operands are the listed values `x0, x1, ...`. Each adjoint is the seed's slice that
operand filled; each tangent places the operand's tangent among zeros (the tangents of the
inactive operands are zero).

| primitive                     | tangent of x1                      | adjoint of x1           |
|-------------------------------|------------------------------------|-------------------------|
| np.concatenate([x0, x1], 0)   | np.concatenate((zeros, g), axis=0) | g[x0_shape[0]:]         |
| np.stack([x0, x1], axis=1)    | np.stack((zeros, g), axis=1)       | g[:, 1]                 |
| np.hstack / np.vstack         | concatenate or stack, by rank      | the same                |
| np.column_stack               | stack or concatenate along axis 1  | the same                |
| np.c_[x0, x1] (ranks 1 or 2)  | as np.column_stack                 | the same                |
| np.atleast_2d(x) (x: 1-D)     | np.atleast_2d(g)                   | g[0]                    |
"""

from __future__ import annotations

from srcad.errors import SrcadError
from srcad.rules.rule_type import Rule


def _axis(keywords, rank, name) -> int:
    axis = keywords.get("axis", 0)
    if not isinstance(axis, int) or not -rank <= axis < rank:
        raise SrcadError(f"axis={axis!r} of {name} for a result of rank {rank}",
                         construct=name, hint="axis must be a literal int within the rank")
    return axis % rank


def _same_rank(ranks, name) -> int:
    if not ranks:
        raise SrcadError(f"{name} of an empty list", construct=name)
    if len(set(ranks)) != 1:
        raise SrcadError(f"{name} of arrays of different ranks {tuple(ranks)}", construct=name,
                         hint="give every listed value the same number of axes "
                         "(np.atleast_2d, reshape)")
    return ranks[0]


def _zeros(k, rank) -> str:
    return "0.0" if rank == 0 else f"np.zeros(x{k}_shape)"


def _placed(fn, k, n, rank, axis) -> str:
    """`fn((zeros, ..., g, ..., zeros), axis=axis)`: operand k's tangent in its place."""
    parts = ["g" if j == k else _zeros(j, rank) for j in range(n)]
    return f"np.{fn}(({', '.join(parts)},), axis={axis})"


def _rule(name, n, tangents, adjoints, shape, rank) -> Rule:
    return Rule(name, tuple(f"x{k}" for k in range(n)), tuple(adjoints), "float",
                tuple(tangents), False, shape, rank)


def concatenation(ranks, axis, name="concatenate") -> Rule:
    n, rank = len(ranks), ranks[0]
    if rank == 0:
        raise SrcadError(f"{name} of numbers", construct=name,
                         hint="np.stack (or np.array) builds an array from numbers")
    lead = ":, " * axis
    offsets, adjoints = ["0"], []
    for k in range(n):
        offsets.append(f"x{k}_shape[{axis}]" if k == 0 else
                       f"{offsets[-1]} + x{k}_shape[{axis}]")
    for k in range(n):
        lower = "" if k == 0 else offsets[k]
        upper = "" if k == n - 1 else offsets[k + 1]
        adjoints.append(f"g[{lead}{lower}:{upper}]")
    shape = f"x0_shape[:{axis}] + ({offsets[n]},) + x0_shape[{axis + 1}:]"
    tangents = [_placed("concatenate", k, n, rank, axis) for k in range(n)]
    return _rule(name, n, tangents, adjoints, shape, rank)


def stacking(ranks, axis, name="stack") -> Rule:
    n, rank = len(ranks), ranks[0]
    lead = ":, " * axis
    adjoints = [f"g[{lead}{k}]" for k in range(n)]
    shape = f"x0_shape[:{axis}] + ({n},) + x0_shape[{axis}:]"
    tangents = [_placed("stack", k, n, rank, axis) for k in range(n)]
    return _rule(name, n, tangents, adjoints, shape, rank + 1)


def concatenate(ranks, keywords):
    """np.concatenate([x0, x1, ...], axis=0) (axis=None of vectors: the same)."""
    rank = _same_rank(ranks, "np.concatenate")
    if "axis" in keywords and keywords["axis"] is None and rank == 1:
        return concatenation(ranks, 0)
    return concatenation(ranks, _axis(keywords, max(rank, 1), "np.concatenate"))


def stack(ranks, keywords):
    """np.stack([x0, x1, ...], axis=0), and np.array([x0, x1, ...])."""
    rank = _same_rank(ranks, "np.stack")
    return stacking(ranks, _axis(keywords, rank + 1, "np.stack"))


def hstack(ranks, keywords):
    """np.hstack: numbers and vectors end to end, matrices side by side."""
    rank = _same_rank(ranks, "np.hstack")
    if rank == 0:
        return stacking(ranks, 0, "hstack")
    return concatenation(ranks, 0 if rank == 1 else 1, "hstack")


def vstack(ranks, keywords):
    """np.vstack: vectors as rows, matrices one above the other."""
    rank = _same_rank(ranks, "np.vstack")
    if rank == 0:
        raise SrcadError("np.vstack of numbers", construct="vstack",
                         hint="np.array([a, b]) makes a vector of numbers")
    return stacking(ranks, 0, "vstack") if rank == 1 else concatenation(ranks, 0, "vstack")


def column_stack(ranks, keywords):
    """np.column_stack: vectors as columns, matrices side by side."""
    rank = _same_rank(ranks, "np.column_stack")
    if rank == 0:
        raise SrcadError("np.column_stack of numbers", construct="column_stack",
                         hint="np.array([[a, b]]) makes a row of numbers")
    return stacking(ranks, 1, "column_stack") if rank == 1 else \
        concatenation(ranks, 1, "column_stack")


def c_columns(ranks, keywords):
    """np.c_[a, b, ...] (srcad's c_columns) of vectors or of matrices: np.column_stack's rule;
    of numbers or of arrays of rank 3 (joined along their last axis) refused."""
    rank = _same_rank(ranks, "np.c_")
    if rank not in (1, 2):
        raise SrcadError(f"np.c_ of {'numbers' if rank == 0 else f'arrays of rank {rank}'}",
                         construct="c_", hint="join vectors or matrices, or use "
                         "np.concatenate(..., axis=-1)")
    return column_stack(ranks, keywords)


# np.atleast_Nd(x) for an x of rank r < N: (the result's shape, the adjoint: g indexed back)
_ATLEAST = {
    (1, 0): ("(1,)", "g[0]"),
    (2, 0): ("(1, 1)", "g[0, 0]"),
    (2, 1): ("(1,) + x_shape", "g[0]"),
    (3, 0): ("(1, 1, 1)", "g[0, 0, 0]"),
    (3, 1): ("(1,) + x_shape + (1,)", "g[0, :, 0]"),
    (3, 2): ("x_shape + (1,)", "g[:, :, 0]"),
}


def at_least(ndim):
    """A `select` for np.atleast_1d/2d/3d of one operand."""
    def select(ranks, keywords):
        rank = ranks[0]
        name = f"atleast_{ndim}d"
        if rank >= ndim:
            return Rule(name, ("x",), ("g",), "float", ("g",), False, "x_shape", rank)
        shape, adjoint = _ATLEAST[ndim, rank]
        return Rule(name, ("x",), (adjoint,), "float", (f"np.{name}(g)",), False, shape, ndim)
    return select
