"""Scans and differences along an axis: np.cumsum, np.cumprod (axis=), np.diff (n=, axis=),
np.trapezoid (dx=, axis=), np.gradient of a vector. All but cumprod are linear: the tangent
is the same call on the tangent, the adjoint its transpose in vectorized NumPy.

| primitive               | tangent                 | adjoint                                  |
|-------------------------|-------------------------|------------------------------------------|
| np.cumsum(x, axis=a)    | np.cumsum(g, axis=a)    | the reversed cumsum of the reversed g     |
| np.cumsum(x) (rank > 1) | np.cumsum(g)            | that, reshaped to x's shape              |
| np.diff(x, n, axis=a)   | np.diff(g, n, axis=a)   | n times -np.diff(g, prepend=0, append=0) |
| np.trapezoid(x, dx=h)   | np.trapezoid(g, dx=h)   | g * h * (1, ..., 1) halved at both ends  |
| np.gradient(x)          | np.gradient(g)          | its transpose (central differences)      |
| np.cumprod(x) (rank > 1)| the scan of np.ravel(x) |                                          |
| np.cumprod(x, axis=a)   | sum over i <= k of g_i times the product of the others, lane |
|                         | by lane along a, exact at zeros (srcad/runtime/cumprod_runtime.py) |
"""

from __future__ import annotations

from srcad.errors import SrcadError
from srcad.rules.reductions import cumsum as first_cumsum
from srcad.rules.rule_type import linear
from srcad.rules.statistics import refuse_unfollowed


def _axis(name, axis, rank):
    if not isinstance(axis, int) or isinstance(axis, bool) or not -rank <= axis < rank:
        raise SrcadError(f"axis={axis!r} of np.{name} of an array of rank {rank}",
                         construct=name, hint="axis is one int literal within the rank")
    return axis % rank


def _flat_shape(rank):
    """The shape of np.ravel(x) of an array of rank `rank`, in x_shape."""
    return "(" + " * ".join(f"x_shape[{k}]" for k in range(rank)) + ",)"


def _flip_cumsum(g, a):
    return f"np.flip(np.cumsum(np.flip({g}, {a}), axis={a}), {a})"


def cumulative(name):
    def select(ranks, keywords):
        refuse_unfollowed(name, keywords, dtype=None, out=None)
        rank, axis = ranks[0], keywords.get("axis")
        if name == "cumprod":
            return _cumprod(rank, axis)
        if rank == 0:
            return linear(name, "x", ("np.cumsum(g)", "np.sum(g)"), shape="(1,)", rank=1)
        if axis is None and rank > 1:  # flattened: the scan of np.ravel(x)
            return linear(name, "x", ("np.cumsum(g)", f"np.reshape({_flip_cumsum('g', 0)}, "
                                      "x_shape)"), shape=_flat_shape(rank), rank=1)
        a = _axis(name, 0 if axis is None else axis, rank)
        if rank == 1:  # the first rule: numba compiles it
            return first_cumsum(ranks, {})
        return linear(name, "x", (f"np.cumsum(g, axis={a})", _flip_cumsum("g", a)),
                      shape="x_shape", rank=rank)
    return select


def _cumprod(rank, axis):
    if rank > 1 and axis is None:  # flattened: the scan of np.ravel(x)
        return linear("cumprod", "x", ("cumprod_tangent(np.ravel(x), np.ravel(g), 0)",
                                       "np.reshape(cumprod_adjoint(np.ravel(x), g, 0), x_shape)"),
                      shape=_flat_shape(rank), rank=1)
    if rank == 0:
        raise SrcadError("np.cumprod of a number", construct="cumprod",
                         hint="cumprod takes an array")
    # lane by lane along the axis: srcad/runtime/cumprod_runtime.py (numba: numba_scans.py)
    a = _axis("cumprod", 0 if axis is None else axis, rank)
    return linear("cumprod", "x", (f"cumprod_tangent(x, g, {a})",
                                   f"cumprod_adjoint(x, g, {a})"), shape="x_shape", rank=rank)


def diff(ranks, keywords):
    refuse_unfollowed("diff", keywords, prepend=None, append=None)
    rank, n = ranks[0], keywords.get("n", 1)
    if rank == 0:
        raise SrcadError("np.diff of a number", construct="diff", hint="diff takes an array")
    if not isinstance(n, int) or isinstance(n, bool) or n < 0:
        raise SrcadError(f"n={n!r} of np.diff", construct="diff", hint="n is an int literal")
    a = _axis("diff", keywords.get("axis", -1), rank)
    adjoint = "g"
    for _ in range(n):
        adjoint = f"-np.diff({adjoint}, axis={a}, prepend=0.0, append=0.0)"
    shape = "(" + "".join(f"x_shape[{k}] - {n}, " if k == a else f"x_shape[{k}], "
                          for k in range(rank)) + ")"
    return linear("diff", "x", (f"np.diff(g, {n}, axis={a})", adjoint),
                  shape=shape.replace(", )", ",)"), rank=rank)


def trapezoid(ranks, keywords):
    if keywords.get("x") is not None:
        raise SrcadError("`x=` (sample points) of np.trapezoid", construct="trapezoid",
                         hint="pass the spacing as dx= (a number)")
    rank, dx = ranks[0], keywords.get("dx", 1.0)
    if not isinstance(dx, (int, float)) or isinstance(dx, bool):
        raise SrcadError(f"dx={dx!r} of np.trapezoid", construct="trapezoid",
                         hint="dx is a number literal")
    if rank == 0:
        raise SrcadError("np.trapezoid of a number", construct="trapezoid",
                         hint="trapezoid takes an array")
    a = _axis("trapezoid", keywords.get("axis", -1), rank)
    i = f"np.reshape(np.arange(x_shape[{a}]), (-1,{' 1,' * (rank - 1 - a)}))"
    w = f"({dx!r} * (1.0 - 0.5 * ({i} == 0) - 0.5 * ({i} == x_shape[{a}] - 1)))"
    g = "g" if rank == 1 else f"np.expand_dims(g, {a})"
    shape = "(" + "".join(f"x_shape[{k}], " for k in range(rank) if k != a) + ")"
    return linear("trapezoid", "x", (f"np.trapezoid(g, dx={dx!r}, axis={a})", f"{g} * {w}"),
                  shape=shape.replace(", )", ",)"), rank=rank - 1)


def gradient(ranks, keywords):
    """np.gradient(x) of a vector, np.gradient(x, axis=k) of any array (unit spacing,
    edge_order=1): central differences inside, one-sided at the two ends of the axis. The
    adjoint takes each seed back to the two elements it differences, along the axis moved
    first (`m`)."""
    refuse_unfollowed("gradient", keywords, edge_order=1)
    rank, axis = ranks[0], keywords.get("axis")
    if len(ranks) > 1 or rank == 0:
        raise SrcadError("np.gradient with spacings, or of a number", construct="gradient",
                         hint="srcad differentiates np.gradient(x) with unit spacing")
    if axis is None and rank == 1:
        axis = 0
    if not isinstance(axis, int) or isinstance(axis, bool) or not -rank <= axis < rank:
        raise SrcadError(f"np.gradient of an array of rank {rank} with axis={axis!r}: a list "
                         "of arrays, one per axis", construct="gradient",
                         hint="take one axis at a time: np.gradient(x, axis=0)")
    a = axis % rank
    moved = "g" if a == 0 else f"np.moveaxis(g, {a}, 0)"
    n = f"x_shape[{a}]"
    i = f"np.arange({n})" + (f".reshape((-1,) + (1,) * {rank - 1})" if rank > 1 else "")
    c = f"({moved} * (0.5 + 0.5 * (({i} == 0) | ({i} == {n} - 1))))"
    padded = f"np.concatenate((-{c}[:1], {c}, -{c}[-1:]))"
    back = f"({padded}[:-2] - {padded}[2:])"
    spelled = "" if rank == 1 else f", axis={a}"
    return linear("gradient", "x", (f"np.gradient(g{spelled})",
                                    back if a == 0 else f"np.moveaxis({back}, 0, {a})"),
                  shape="x_shape", rank=rank)
