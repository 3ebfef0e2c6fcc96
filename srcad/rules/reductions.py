"""Reductions: np.sum and np.mean (and the methods x.sum(), x.mean()) with `axis=` (None, an
int or a tuple of ints, literals) and `keepdims=`. The tangent reduces the operand's tangent
the same way; the adjoint broadcasts the seed back over the reduced axes (a view, no copy).

| primitive                    | tangent                   | adjoint                        |
|------------------------------|---------------------------|--------------------------------|
| np.sum(x)                    | np.sum(g)                 | np.broadcast_to(g, x.shape)    |
| np.sum(x, axis=1)            | np.sum(g, axis=1)         | broadcast_to(expand_dims(g, 1)) |
| np.mean(x, axis=0)           | np.mean(g, axis=0)        | the same / x.shape[0]          |
| np.max(x)                    | mean of g over the maxima | g shared among the maxima      |
| np.linalg.norm(x)            | np.sum(x * g) / ans       | g * x / ans                    |
| np.cumsum(x) (rank 1)        | np.cumsum(g)              | np.cumsum(g[::-1])[::-1]       |

np.max and np.min split the seed equally among tied extrema (as JAX and autograd do); over all
axes the mask of the extrema is scaled once, by the seed over their count (`np.count_nonzero`).
"""

from __future__ import annotations

from srcad.errors import SrcadError
from srcad.rules.rule_type import linear


def _axes(axis, rank):
    """The reduced axes as non-negative ints (all of them for None)."""
    if axis is None:
        return tuple(range(rank))
    axes = axis if isinstance(axis, tuple) else (axis,)
    if not all(isinstance(a, int) and -rank <= a < rank for a in axes):
        raise SrcadError(f"axis={axis!r} of an array of rank {rank}", construct="reduction",
                         hint="axis must be a literal int or tuple of ints within the rank")
    return tuple(sorted(a % rank for a in axes))


def _spelled(axis, keepdims) -> str:
    return ("" if axis is None else f", axis={axis!r}") + (", keepdims=True" if keepdims else "")


def _expanded(value, axes, axis, keepdims) -> str:
    """`value`, a result of the reduction, with the reduced axes back (length 1)."""
    if keepdims or axis is None:
        return value
    return f"np.expand_dims({value}, {axes if len(axes) > 1 else axes[0]!r})"


def _result_shape(rank, axes, keepdims) -> tuple[str, int]:
    if keepdims:
        shape = "(" + "".join("1, " if a in axes else f"x_shape[{a}], "
                              for a in range(rank)) + ")"
    else:
        shape = "(" + "".join(f"x_shape[{a}], " for a in range(rank) if a not in axes) + ")"
    return shape.replace(", )", ",)"), rank if keepdims else rank - len(axes)


def extremum(name):
    """A `select` for np.max / np.min (np.amax, np.amin): the seed goes to the elements equal
    to the result, split equally among ties."""
    def select(ranks, keywords):
        rank = ranks[0]
        axis, keepdims = keywords.get("axis"), bool(keywords.get("keepdims", False))
        if rank == 0:
            return linear(name, "x", ("g", "g"), shape="x_shape", rank=0)
        axes = _axes(axis, rank)
        spelled = _spelled(axis, keepdims)
        hits = f"(x == {_expanded('ans', axes, axis, keepdims)})"
        count = f"np.sum({hits}, axis={axes!r}, keepdims=True)"
        shape, result_rank = _result_shape(rank, axes, keepdims)
        adjoint = f"{_expanded('g', axes, axis, keepdims)} * {hits} / {count}"
        if axis is None:  # one share for all: the seed divided once, the mask scaled once
            adjoint = f"{hits} * (g / np.count_nonzero({hits}))"
        return linear(name, "x", (
            f"np.sum(g * {hits}{spelled}) / np.sum({hits}{spelled})", adjoint),
            shape=shape, rank=result_rank)
    return select


def norm(ranks, keywords):
    """np.linalg.norm(x): the 2-norm of a vector, the Frobenius norm of a matrix."""
    if ranks[0] > 2:
        raise SrcadError("np.linalg.norm of an array of rank above 2", construct="norm",
                         hint="srcad differentiates the vector 2-norm and the Frobenius norm")
    return linear("norm", "x", ("np.sum(x * g) / ans", "g * x / ans"), shape="()", rank=0)


def cumsum(ranks, keywords):
    """np.cumsum(x) of a vector."""
    if ranks[0] != 1:
        raise SrcadError("np.cumsum of an array of rank other than 1", construct="cumsum",
                         hint="srcad differentiates np.cumsum of a vector")
    return linear("cumsum", "x", ("np.cumsum(g)", "np.cumsum(g[::-1])[::-1]"),
                  shape="x_shape", rank=1)


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
