"""Reductions: np.sum and np.mean (and the methods x.sum(), x.mean()) with `axis=` (None, an
int or a tuple of ints, literals) and `keepdims=`. The tangent reduces the operand's tangent
the same way; the adjoint broadcasts the seed back over the reduced axes (a view, no copy).

| primitive                    | tangent                   | adjoint                        |
|------------------------------|---------------------------|--------------------------------|
| np.sum(x)                    | np.sum(g)                 | np.broadcast_to(g, x.shape)    |
| np.sum(x, axis=1)            | np.sum(g, axis=1)         | broadcast_to(expand_dims(g, 1)) |
| np.mean(x, axis=0)           | np.mean(g, axis=0)        | the same / x.shape[0]          |
"""

from __future__ import annotations

from srcad.errors import SrcadError
from srcad.rules import linear


def _axes(axis, rank):
    """The reduced axes as non-negative ints (all of them for None)."""
    if axis is None:
        return tuple(range(rank))
    axes = axis if isinstance(axis, tuple) else (axis,)
    if not all(isinstance(a, int) and -rank <= a < rank for a in axes):
        raise SrcadError(f"axis={axis!r} of an array of rank {rank}", construct="reduction",
                         hint="axis must be a literal int or tuple of ints within the rank")
    return tuple(sorted(a % rank for a in axes))


def reduction(name):
    """A `select` for np.sum / np.mean: the rule for this rank, axis and keepdims."""
    def select(ranks, keywords):
        rank = ranks[0]
        axis, keepdims = keywords.get("axis"), bool(keywords.get("keepdims", False))
        if rank == 0:
            return linear(name, "x", ("g", "g"), shape="x_shape", rank=0)
        axes = _axes(axis, rank)
        spelled = "" if axis is None else f", axis={axis!r}"
        spelled += ", keepdims=True" if keepdims else ""
        seed = "g"
        if not keepdims and axis is not None:
            seed = f"np.expand_dims(g, {axes if len(axes) > 1 else axes[0]!r})"
        if name == "mean":
            count = " * ".join(f"x_shape[{a}]" for a in axes)
            seed = f"{seed} / ({count})" if len(axes) > 1 else f"{seed} / {count}"
        result_rank = rank if keepdims else rank - len(axes)
        if keepdims:
            shape = "(" + "".join("1, " if a in axes else f"x_shape[{a}], "
                                  for a in range(rank)) + ")"
        else:
            shape = "(" + "".join(f"x_shape[{a}], " for a in range(rank) if a not in axes) + ")"
        return linear(name, "x", (f"np.{name}(g{spelled})", f"np.broadcast_to({seed}, x_shape)"),
                      shape=shape.replace(", )", ",)"), rank=result_rank)
    return select
