"""`broadcast_shape(*shapes)` and `broadcast_view(x, shape)`: `np.broadcast_shapes` and
`np.broadcast_to` for numba-compiled generated code (srcad/transform/numba_compat.py spells
the calls; the fused loop nests of srcad/runtime/numba_fusion.py call them too; imported by
the generated modules, never by srcad itself).

numba's own are general: `np.broadcast_shapes` walks its arguments with `literal_unroll` into
a list, `np.broadcast_to` checks the shapes in a loop of a jitted helper; each is compiled
again for every combination of argument types, and together they were most of the compile
time of small whole-array programs (a two-line 4-D broadcast: 16 s of `np.broadcast_shapes`
and 12 s of `np.broadcast_to` out of a 30 s reverse sweep). Here the ranks are known when
numba types the call, so each is a few lines of straight-line code made for those ranks:
the same shape, the same view (numba's read-only view with the stretched axes' strides 0)
and the same errors, at a fraction of the compile time.

Each is a plain Python function (the reference, run by the interpreter: NumPy's own) with a
numba `overload`; argument types it does not cover go to numba's own functions.
"""

from __future__ import annotations

import numpy as np
from numba import types
from numba.extending import overload

from srcad.runtime.numba_sum_to import compiled

try:  # numba's read-only broadcast view (what its np.broadcast_to returns), an intrinsic
    from numba.np.arrayobj import _numpy_broadcast_to
except ImportError:  # pragma: no cover - numba releases that moved it: its np.broadcast_to
    _numpy_broadcast_to = None

# the view of an array broadcast to a shape it broadcasts to (checked already)
VIEW = _numpy_broadcast_to or np.broadcast_to
_SHAPE_MISMATCH = "shape mismatch: objects cannot be broadcast to a single shape"
_NOT_BROADCAST = "operands could not be broadcast together with remapped shapes"


def broadcast_shape(*shapes):
    return np.broadcast_shapes(*shapes)


def broadcast_view(x, shape):
    return np.broadcast_to(x, shape)


def _rank(t):
    """The rank of a shape argument (an int is a 1-D shape), or None for anything else."""
    if isinstance(t, types.Integer):
        return 1
    if isinstance(t, types.UniTuple) and isinstance(t.dtype, types.Integer):
        return t.count
    if isinstance(t, types.Tuple) and len(t) == 0:
        return 0
    return None


@overload(broadcast_shape)
def _broadcast_shape(*shapes):
    ranks = [_rank(t) for t in shapes]
    if any(r is None for r in ranks):
        return lambda *shapes: np.broadcast_shapes(*shapes)
    spelled = [f"(shapes[{j}],)" if isinstance(t, types.Integer) else f"shapes[{j}]"
               for j, t in enumerate(shapes)]
    lines = ["def impl(*shapes):"] + shape_lines(spelled, ranks, "full", negative=True)
    return compiled(lines + ["    return full"])


def shape_lines(shapes, ranks, out, negative=False):
    """Lines setting `out` to np.broadcast_shapes of the shapes spelled `shapes` of `ranks`
    (raising numba's ValueError where they do not broadcast; `negative`: also where an entry
    is negative, which an array's shape never is)."""
    rank = max(ranks, default=0)
    lines, entries = [], {}  # shape j's entries for output axis k (counted from the left)
    for j, (shape, r) in enumerate(zip(shapes, ranks)):
        for i in range(r):
            name = f"{out}_{j}_{i}"
            lines.append(f"    {name} = {shape}[{i}]")
            if negative:
                lines += [f"    if {name} < 0:",
                          "        raise ValueError('negative dimensions are not allowed')"]
            entries.setdefault(rank - r + i, []).append(name)
    for k in range(rank):
        first, *rest = entries[k]
        lines.append(f"    {out}{k} = {first}")
        for name in rest:
            lines += [f"    if {name} != 1:",
                      f"        if {out}{k} != 1 and {out}{k} != {name}:",
                      f"            raise ValueError('{_SHAPE_MISMATCH}')",
                      f"        {out}{k} = {name}"]
    return lines + [f"    {out} = ({''.join(f'{out}{k}, ' for k in range(rank))})"]


@overload(broadcast_view)
def _broadcast_view(x, shape):
    if isinstance(shape, types.Integer):
        return lambda x, shape: broadcast_view(x, (shape,))
    target = _rank(shape)
    number = isinstance(x, (types.Number, types.Boolean))
    if not (isinstance(x, types.Array) or number) or target is None or target == 0 \
            or _numpy_broadcast_to is None:
        return lambda x, shape: np.broadcast_to(x, shape)
    lines = ["def impl(x, shape):"]
    if number:  # a 0-d array of it, as numba's (a seed `g` spread over a shape)
        lines += check_lines("x", 0, target, "shape") + ["    return view(np.asarray(x), shape)"]
        return compiled(lines, {"view": _numpy_broadcast_to})
    if x.ndim > target:
        lines.append("    raise ValueError('input operand has more dimensions than allowed "
                     "by the axis remapping')")
        return compiled(lines)
    lines += check_lines("x", x.ndim, target, "shape") + ["    return view(x, shape)"]
    return compiled(lines, {"view": _numpy_broadcast_to})


def check_lines(x, rank, target, shape, negative=True):
    """numba's checks that the array `x` of `rank` broadcasts to `shape` of `target`
    entries (`negative`: and that no entry of `shape` is negative)."""
    lines = []
    for k in range(target if negative else 0):
        lines += [f"    if {shape}[{k}] < 0:",
                  "        raise ValueError('all elements of broadcast shape must be "
                  "non-negative')"]
    for i in range(rank):
        k = target - rank + i
        lines += [f"    if {x}.shape[{i}] != {shape}[{k}] and {x}.shape[{i}] != 1:",
                  f"        raise ValueError('{_NOT_BROADCAST}')"]
    return lines
