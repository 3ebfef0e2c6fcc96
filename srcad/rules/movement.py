"""Moving elements: np.tile, np.repeat, np.roll, np.flip / fliplr / flipud, np.rot90, np.pad,
np.swapaxes, np.moveaxis, np.sort. Each is linear in its operand's values (a sort is, for a
fixed order), so its tangent applies the same movement to the tangent, and its adjoint takes
each seed element back to the element it came from, adding where one element went to several
places. Keywords are literals (by position or by name, as NumPy defines them) and are written
into the formulas; helpers are in srcad/runtime/movement_runtime.py.

| primitive                   | tangent                      | adjoint                          |
|-----------------------------|------------------------------|----------------------------------|
| np.tile(x, reps)            | np.tile(g, reps)             | untile(g, reps, x.shape)         |
| np.repeat(x, r, axis)       | np.repeat(g, r, axis)        | unrepeat(g, r, axis, x.shape)    |
| np.roll(x, s, axis)         | np.roll(g, s, axis)          | np.roll(g, -s, axis)             |
| np.flip(x, axis), fliplr, flipud | the same flip of g      | the same flip of g               |
| np.rot90(x, k, axes)        | np.rot90(g, k, axes)         | np.rot90(g, -k, axes)            |
| np.pad(x, w, mode)          | np.pad(g, w, mode) (constant: 0) | unpad(g, x.shape, w, mode) |
| np.swapaxes(x, a, b)        | np.swapaxes(g, a, b)         | np.swapaxes(g, a, b)             |
| np.moveaxis(x, s, d)        | np.moveaxis(g, s, d)         | np.moveaxis(g, d, s)             |
| np.sort(x, axis)            | g in the sorted order        | g back in x's order              |

np.sort's derivative follows the stable order (tied elements keep their order), as JAX's does;
at ties the values agree, so any order gives the same result and this one is JAX's derivative.
"""

from __future__ import annotations

import numpy as np

from srcad.errors import SrcadError
from srcad.rules.rule_type import linear


def _axis(value, rank, name, keyword="axis") -> int:
    if not isinstance(value, int) or isinstance(value, bool) or not -rank <= value < rank:
        raise SrcadError(f"`{keyword}={value!r}` of np.{name} for an array of rank {rank}",
                         construct=name, hint=f"{keyword} must be a literal int within the rank")
    return value % rank


def _axes(value, rank, name, keyword="axis") -> tuple:
    values = value if isinstance(value, tuple) else (value,)
    return tuple(_axis(v, rank, name, keyword) for v in values)


def _ints(value, name, keyword):
    """A literal int or tuple of ints (`reps`, `shift`, `repeats`)."""
    flat = value if isinstance(value, tuple) else (value,)
    if not flat or not all(isinstance(v, int) and not isinstance(v, bool) for v in flat):
        raise SrcadError(f"`{keyword}={value!r}` of np.{name}", construct=name,
                         hint=f"{keyword} must be a literal int or tuple of ints")
    return value


def _needs_rank(ranks, least, name):
    if ranks[0] < least:
        raise SrcadError(f"np.{name} of an array of rank {ranks[0]}", construct=name,
                         hint=f"np.{name} takes an array of rank {least} or more")


def _same(name, rank, formula, adjoint=None):
    """A rule whose result has its operand's shape."""
    return linear(name, "x", (formula, adjoint or formula), shape="x_shape", rank=rank)


def _permuted(rank, order) -> str:
    """The shape `x_shape` permuted to `order`, as a tuple expression."""
    return "(" + "".join(f"x_shape[{a}], " for a in order) + ")" if rank else "()"


def tile(ranks, keywords):
    """np.tile(x, reps)."""
    reps = _ints(keywords.get("reps"), "tile", "reps")
    length = len(reps) if isinstance(reps, tuple) else 1
    return linear("tile", "x", (f"np.tile(g, {reps!r})", f"untile(g, {reps!r}, x_shape)"),
                  shape=f"tiled_shape(x_shape, {reps!r})", rank=max(ranks[0], length))


def repeat(ranks, keywords):
    """np.repeat(x, repeats, axis=None) (repeats: an int, or an int per element)."""
    repeats = _ints(keywords.get("repeats"), "repeat", "repeats")
    axis = keywords.get("axis")
    if axis is not None:
        axis = _axis(axis, max(ranks[0], 1), "repeat")
    spelled = f"{repeats!r}, axis={axis!r}"
    return linear("repeat", "x", (f"np.repeat(g, {spelled})",
                                  f"unrepeat(g, {repeats!r}, {axis!r}, x_shape)"),
                  shape=f"repeated_shape(x_shape, {repeats!r}, {axis!r})",
                  rank=1 if axis is None else ranks[0])


def roll(ranks, keywords):
    """np.roll(x, shift, axis=None)."""
    shift = _ints(keywords.get("shift"), "roll", "shift")
    axis = keywords.get("axis")
    if axis is not None:
        axis = _axes(axis, ranks[0], "roll")
        axis = axis if isinstance(keywords["axis"], tuple) else axis[0]
    back = tuple(-s for s in shift) if isinstance(shift, tuple) else -shift
    return _same("roll", ranks[0], f"np.roll(g, {shift!r}, axis={axis!r})",
                 f"np.roll(g, {back!r}, axis={axis!r})")


def flip(ranks, keywords):
    """np.flip(x, axis=None)."""
    axis = keywords.get("axis")
    if axis is not None:
        _axes(axis, ranks[0], "flip")
    return _same("flip", ranks[0], f"np.flip(g, axis={axis!r})")


def fliplr(ranks, keywords):
    """np.fliplr(x): the columns reversed."""
    _needs_rank(ranks, 2, "fliplr")
    return _same("fliplr", ranks[0], "np.fliplr(g)")


def flipud(ranks, keywords):
    """np.flipud(x): the rows reversed."""
    _needs_rank(ranks, 1, "flipud")
    return _same("flipud", ranks[0], "np.flipud(g)")


def rot90(ranks, keywords):
    """np.rot90(x, k=1, axes=(0, 1))."""
    _needs_rank(ranks, 2, "rot90")
    k = _ints(keywords.get("k", 1), "rot90", "k")
    axes = keywords.get("axes", (0, 1))
    if not isinstance(axes, tuple) or len(axes) != 2 or isinstance(k, tuple):
        raise SrcadError(f"np.rot90 with k={k!r}, axes={axes!r}", construct="rot90",
                         hint="k is a literal int and axes a literal pair of axes")
    a, b = _axes(axes, ranks[0], "rot90", "axes")
    if a == b:
        raise SrcadError("np.rot90 with both axes the same", construct="rot90")
    order = list(range(ranks[0]))
    if k % 2:
        order[a], order[b] = b, a
    return linear("rot90", "x", (f"np.rot90(g, {k}, axes={axes!r})",
                                 f"np.rot90(g, {-k}, axes={axes!r})"),
                  shape=_permuted(ranks[0], order), rank=ranks[0])


_PAD_MODES = ("constant", "edge", "reflect", "symmetric", "wrap")


def pad(ranks, keywords):
    """np.pad(x, pad_width, mode="constant", constant_values=0): the constant elements have no
    derivative; edge, reflect, symmetric and wrap copy elements of x."""
    if ranks[0] == 0:
        raise SrcadError("np.pad of a number", construct="pad", hint="pad an array")
    width = keywords.get("pad_width")
    flat = np.ravel(np.asarray(width, dtype=object)) if width is not None else ()
    if width is None or not all(isinstance(w, int) and w >= 0 for w in flat):
        raise SrcadError(f"`pad_width={width!r}` of np.pad", construct="pad",
                         hint="pad_width is a literal int, pair or tuple of pairs")
    mode = keywords.get("mode", "constant")
    if mode not in _PAD_MODES:
        raise SrcadError(f"np.pad with mode={mode!r}", construct="pad",
                         hint="srcad differentiates the modes " + ", ".join(_PAD_MODES))
    if keywords.get("reflect_type", "even") != "even":
        raise SrcadError("np.pad with reflect_type='odd'", construct="pad",
                         hint="srcad differentiates the default reflect_type='even'")
    spelled = "" if mode == "constant" else f", mode={mode!r}"
    return linear("pad", "x", (f"np.pad(g, {width!r}{spelled})",
                               f"unpad(g, x_shape, {width!r}, {mode!r})"),
                  shape=f"padded_shape(x_shape, {width!r})", rank=ranks[0])


def swapaxes(ranks, keywords):
    """np.swapaxes(x, axis1, axis2), x.swapaxes(axis1, axis2)."""
    a = _axis(keywords.get("axis1"), ranks[0], "swapaxes", "axis1")
    b = _axis(keywords.get("axis2"), ranks[0], "swapaxes", "axis2")
    order = list(range(ranks[0]))
    order[a], order[b] = b, a
    return linear("swapaxes", "x", (f"np.swapaxes(g, {a}, {b})",) * 2,
                  shape=_permuted(ranks[0], order), rank=ranks[0])


def moveaxis(ranks, keywords):
    """np.moveaxis(x, source, destination) (ints or tuples of ints)."""
    rank = ranks[0]
    source = _axes(keywords.get("source"), rank, "moveaxis", "source")
    destination = _axes(keywords.get("destination"), rank, "moveaxis", "destination")
    if len(source) != len(destination) or len(set(source)) != len(source):
        raise SrcadError("np.moveaxis with source and destination of different lengths",
                         construct="moveaxis")
    order = [a for a in range(rank) if a not in source]
    for d, s in sorted(zip(destination, source)):
        order.insert(d, s)
    return linear("moveaxis", "x", (f"np.moveaxis(g, {source!r}, {destination!r})",
                                    f"np.moveaxis(g, {destination!r}, {source!r})"),
                  shape=_permuted(rank, order), rank=rank)


def _permuted_by(name, ranks, keywords, order, back):
    """A permutation of x along an axis (np.sort, np.partition), which the derivative
    follows: `order(axis)` its indices for np.take_along_axis, `back(axis)` the adjoint."""
    if ranks[0] == 0:
        raise SrcadError(f"np.{name} of a number", construct=name, hint=f"{name} an array")
    if keywords.get("order") is not None:
        raise SrcadError(f"np.{name} with order=", construct=name, hint=f"order= {name}s "
                         "structured arrays, which carry no derivative")
    axis = keywords.get("axis", -1)
    if axis is None:
        return linear(name, "x", (f"np.take(g, {order(None)})", back(None)),
                      shape="(int(np.prod(x_shape)),)", rank=1)
    axis = _axis(axis, ranks[0], name)
    return _same(name, ranks[0], f"np.take_along_axis(g, {order(axis)}, axis={axis})",
                 back(axis))


def sort(ranks, keywords):
    """np.sort(x, axis=-1, kind=...): the derivative follows the stable order."""
    return _permuted_by("sort", ranks, keywords, lambda a: f"sort_order(x, {a})",
                        lambda a: f"unsort(g, x, {a})")


def partition(ranks, keywords):
    """np.partition(x, kth, axis=-1): a permutation of x along the axis, which the derivative
    follows: the one that puts x's elements where the result has them (`partition_order`)."""
    _ints(keywords.get("kth"), "partition", "kth")
    return _permuted_by("partition", ranks, keywords,
                        lambda a: f"partition_order(x, ans, {a})",
                        lambda a: f"unpartition(g, x, ans, {a})")


def rollaxis(ranks, keywords):
    """np.rollaxis(x, axis, start=0): the axis moved to before `start`, a transpose."""
    rank = ranks[0]
    axis = _axis(keywords.get("axis"), rank, "rollaxis")
    start = keywords.get("start", 0)
    if not isinstance(start, int) or isinstance(start, bool) or not -rank <= start <= rank:
        raise SrcadError(f"`start={start!r}` of np.rollaxis for an array of rank {rank}",
                         construct="rollaxis", hint="start must be a literal int within the "
                         "rank (or the rank)")
    start = start + rank if start < 0 else start  # NumPy: a negative start counts from rank
    order = [a for a in range(rank) if a != axis]
    order.insert(start - 1 if axis < start else start, axis)
    back = tuple(order.index(k) for k in range(rank))
    return linear("rollaxis", "x", (f"np.transpose(g, {tuple(order)!r})",
                                    f"np.transpose(g, {back!r})"),
                  shape=_permuted(rank, order), rank=rank)


# (function, select, keywords by position after the operand, keywords that are operands)
ENTRIES = [
    (np.tile, tile, ("reps",), ()),
    (np.repeat, repeat, ("repeats", "axis"), ()),
    (np.roll, roll, ("shift", "axis"), ()),
    (np.flip, flip, ("axis",), ()),
    (np.fliplr, fliplr, (), ()),
    (np.flipud, flipud, (), ()),
    (np.rot90, rot90, ("k", "axes"), ()),
    (np.pad, pad, ("pad_width", "mode", "constant_values", "reflect_type"), ()),
    (np.swapaxes, swapaxes, ("axis1", "axis2"), ()),
    (np.moveaxis, moveaxis, ("source", "destination"), ()),
    (np.sort, sort, ("axis", "kind", "order", "stable"), ()),
    (np.partition, partition, ("kth", "axis", "kind", "order"), ()),
    (np.rollaxis, rollaxis, ("axis", "start"), ()),
]

# array methods that are these functions of their receiver (x.sort() sorts in place: not one)
METHODS = {"repeat": np.repeat, "take": np.take, "diagonal": np.diagonal,
           "swapaxes": np.swapaxes}

# the functions whose derivative numba runs (their formulas call only what numba compiles)
IN_NUMBA = (np.tril, np.triu, np.swapaxes, np.moveaxis,
            # srcad/runtime/numba_movement.py, numba_selection.py
            np.flip, np.fliplr, np.flipud, np.roll, np.rot90, np.tile, np.repeat, np.pad,
            np.take, np.take_along_axis, np.diag, np.diagonal, np.diagflat, np.trace, np.sort,
            np.linspace,  # srcad/runtime/numba_scans.py
            np.partition, np.rollaxis)  # srcad/runtime/numba_reorder.py


def numba_refusal(fn) -> str:
    """Why the numba backend refuses the derivative of `fn` ("": it runs it)."""
    if fn in IN_NUMBA:
        return ""
    return (f"srcad differentiates `np.{fn.__name__}` on the python backend only (its "
            "derivative calls NumPy functions numba does not compile)")


def linspace(ranks, keywords):
    """np.linspace(start, stop, num=50, endpoint=True) of numbers: start + (stop - start) * t
    for the fixed fractions t = np.linspace(0.0, 1.0, num, endpoint)."""
    if "stop" not in keywords:
        raise SrcadError("np.linspace without its end", construct="linspace",
                         hint="write np.linspace(start, stop, num)")
    for keyword in ("retstep", "dtype"):
        if keywords.get(keyword):
            raise SrcadError(f"np.linspace with {keyword}=", construct="linspace",
                             hint=f"leave {keyword}= out")
    endpoint = bool(keywords.get("endpoint", True))
    num = "num" if "num" in keywords else "50"
    fractions = f"np.linspace(0.0, 1.0, {num}, endpoint={endpoint})"
    if any(ranks[:2]):
        return _linspace_of_arrays(ranks, keywords, num, fractions)
    return linear("linspace", "x stop num" if num == "num" else "x stop",
                  (f"g * (1.0 - {fractions})", f"np.sum(g * (1.0 - {fractions}))"),
                  (f"g * {fractions}", f"np.sum(g * {fractions})"),
                  *([(None, None)] if num == "num" else []), shape=f"({num},)", rank=1)


def _linspace_of_arrays(ranks, keywords, num, fractions):
    """np.linspace(start, stop, num) of arrays (axis=0): the steps along a new first axis,
    start and stop broadcast against each other; each adjoint sums that axis and the
    broadcast axes back."""
    if keywords.get("axis", 0) != 0:
        raise SrcadError(f"np.linspace of arrays with axis={keywords['axis']!r}",
                         construct="linspace", hint="leave axis= out and move the new axis "
                         "with np.moveaxis")
    rank = max(ranks[:2])
    t = f"{fractions}.reshape((-1,) + (1,) * {rank})"
    shape = f"({num},) + np.broadcast_shapes(x_shape, stop_shape)"
    return linear("linspace", "x stop num" if num == "num" else "x stop",
                  (f"np.broadcast_to(g * (1.0 - {t}), {shape})",
                   f"unbroadcast(np.sum(g * (1.0 - {t}), axis=0), x_shape)"),
                  (f"np.broadcast_to(g * {t}, {shape})",
                   f"unbroadcast(np.sum(g * {t}, axis=0), stop_shape)"),
                  *([(None, None)] if num == "num" else []), shape=shape, rank=rank + 1)


# np.linspace(start, stop, num, endpoint, retstep, dtype, axis); stop and num are operands
LINSPACE = (np.linspace, linspace, ("stop", "num", "endpoint", "retstep", "dtype", "axis"),
            ("stop", "num"))
