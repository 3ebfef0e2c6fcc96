"""NumPy's movement functions, compiled: what numba-compiled derivative code calls for
np.flip / fliplr / flipud, np.roll, np.rot90, np.tile and np.repeat (numba has np.flip of a
whole array, np.roll and np.repeat without `axis=`, and no np.tile), np.atleast_1d/2d/3d of
a number (numba's take arrays), and the adjoints srcad/runtime/movement_runtime.py gives the
python backend (`untile`, `unrepeat` and the result shapes), under the same names and
signatures; np.pad: numba_padding.py.

srcad/transform/numba_movement.py spells each call `np.<name>(...)` as `moved_<name>(...)`
with the same arguments; each `moved_<name>` here is a function with NumPy's signature and a
numba `overload` that picks the implementation for the argument types (an int or a tuple of
axes, an omitted keyword). Every one reads its operand along one axis at a time through an
index (`take_rows`: `np.take(x, index, axis)` of a 1-D index) and its adjoint adds the seed's
rows back (`add_rows`), so each function is a list of indices per axis, checked against
NumPy's own results (tests/runtime/test_numba_movement.py). Types they do not cover fail to
type, which srcad reports as a refusal naming the call.

Imported by generated numba modules only (it imports numba).
"""

from __future__ import annotations

import numpy as np
from numba import types
from numba.core.errors import TypingError
from numba.cpython.unsafe.tuple import tuple_setitem
from numba.extending import overload, register_jitable


@register_jitable
def take_rows(x, axis, index):
    """np.take(x, index, axis) of a 1-D int index (no negative entries), C-contiguous."""
    rows = np.swapaxes(x, 0, axis)
    out = np.empty((index.shape[0],) + rows.shape[1:], x.dtype)
    for k in range(index.shape[0]):
        out[k] = rows[index[k]]
    return np.ascontiguousarray(np.swapaxes(out, 0, axis))


@register_jitable
def add_rows(g, axis, index, length):
    """The adjoint of take_rows (and of numba_padding.py's filled_rows): zeros of `length`
    along `axis`, each of g's rows added at its index (negative: dropped)."""
    rows = np.swapaxes(g, 0, axis)
    out = np.zeros((length,) + rows.shape[1:])
    for k in range(index.shape[0]):
        if index[k] >= 0:
            out[index[k]] += rows[k]
    return np.ascontiguousarray(np.swapaxes(out, 0, axis))


@register_jitable
def size_of(shape):
    """The number of elements of an array of `shape`."""
    size = 1
    for n in shape:
        size *= n
    return size


@register_jitable
def _reversed(n):
    return np.arange(n - 1, -1, -1)


@register_jitable
def _rolled(n, shift):
    return (np.arange(n) - shift) % max(n, 1)


@register_jitable
def _cycled(n, reps):
    return np.arange(n * reps) % max(n, 1)


def omitted_argument(t) -> bool:
    """An argument left out (its default, a Python value, or numba's Omitted) or None."""
    return not isinstance(t, types.Type) or isinstance(t, (types.Omitted, types.NoneType))


def int_type(t) -> bool:
    return isinstance(t, (types.Integer, types.IntegerLiteral))


def ints_type(t) -> bool:
    return isinstance(t, types.UniTuple) and int_type(t.dtype)


# -- np.flip, np.fliplr, np.flipud ---------------------------------------------------------------

def moved_flip(m, axis=None):
    return np.flip(m, axis)


def moved_fliplr(m):
    return np.fliplr(m)


def moved_flipud(m):
    return np.flipud(m)


@overload(moved_flip)
def _flip(m, axis=None):
    if omitted_argument(axis):
        def every(m, axis=None):
            out = np.ascontiguousarray(m)
            for a in range(m.ndim):
                out = take_rows(out, a, _reversed(out.shape[a]))
            return out
        return every
    if int_type(axis):
        return lambda m, axis=None: take_rows(m, axis % m.ndim, _reversed(m.shape[axis]))
    if ints_type(axis):
        def some(m, axis=None):
            out = np.ascontiguousarray(m)
            for a in axis:
                out = take_rows(out, a % m.ndim, _reversed(out.shape[a]))
            return out
        return some
    raise TypingError("np.flip: srcad compiles an int or a tuple of ints as axis")


@overload(moved_fliplr)
def _fliplr(m):
    return lambda m: take_rows(m, 1, _reversed(m.shape[1]))


@overload(moved_flipud)
def _flipud(m):
    return lambda m: take_rows(m, 0, _reversed(m.shape[0]))


# -- np.roll -------------------------------------------------------------------------------------

def moved_roll(a, shift, axis=None):
    return np.roll(a, shift, axis)


@overload(moved_roll)
def _roll(a, shift, axis=None):
    if omitted_argument(axis) and int_type(shift):
        def flat(a, shift, axis=None):
            values = np.ascontiguousarray(a).reshape(-1)
            return take_rows(values, 0, _rolled(values.size, shift)).reshape(a.shape)
        return flat
    if int_type(shift) and int_type(axis):
        return lambda a, shift, axis=None: take_rows(a, axis % a.ndim,
                                                     _rolled(a.shape[axis], shift))
    if int_type(shift) and ints_type(axis):
        def each_axis(a, shift, axis=None):
            out = np.ascontiguousarray(a)
            for k in axis:
                out = take_rows(out, k % a.ndim, _rolled(out.shape[k], shift))
            return out
        return each_axis
    if ints_type(shift) and int_type(axis):  # NumPy rolls the one axis by each shift
        def one_axis(a, shift, axis=None):
            out = np.ascontiguousarray(a)
            for s in shift:
                out = take_rows(out, axis % a.ndim, _rolled(out.shape[axis], s))
            return out
        return one_axis
    if ints_type(shift) and ints_type(axis) and shift.count == axis.count:
        def pairs(a, shift, axis=None):
            out = np.ascontiguousarray(a)
            for j in range(len(shift)):
                k = axis[j] % a.ndim
                out = take_rows(out, k, _rolled(out.shape[k], shift[j]))
            return out
        return pairs
    raise TypingError("np.roll: srcad compiles int shifts along named axes, or an int shift "
                      "of the flat array")


# -- np.rot90 ------------------------------------------------------------------------------------

def moved_rot90(m, k=1, axes=(0, 1)):
    return np.rot90(m, k, axes)


@overload(moved_rot90)
def _rot90(m, k=1, axes=(0, 1)):
    def impl(m, k=1, axes=(0, 1)):
        # NumPy's: flips of axes[1] (and axes[0]), and the two axes swapped for odd k
        first, second = axes[0] % m.ndim, axes[1] % m.ndim
        turns = k % 4
        out = np.ascontiguousarray(m)
        if turns == 2:
            out = take_rows(out, first, _reversed(out.shape[first]))
            return take_rows(out, second, _reversed(out.shape[second]))
        if turns == 1:
            out = take_rows(out, second, _reversed(out.shape[second]))
            return np.ascontiguousarray(np.swapaxes(out, first, second))
        if turns == 3:
            out = np.ascontiguousarray(np.swapaxes(out, first, second))
            return take_rows(out, second, _reversed(out.shape[second]))
        return out
    return impl


# -- np.tile -------------------------------------------------------------------------------------

def moved_tile(A, reps):
    return np.tile(A, reps)


def _rank_of(reps) -> int:
    return 1 if int_type(reps) else reps.count


@register_jitable
def _lined_up(reps, rank):
    """np.tile's reps as `rank` counts (ones in front)."""
    counts = np.ones(rank, np.int64)
    if isinstance(reps, int):
        counts[rank - 1] = reps
    else:
        for j in range(len(reps)):
            counts[rank - len(reps) + j] = reps[j]
    return counts


def _compile(source: str):
    namespace = {"np": np, "take_rows": take_rows, "add_rows": add_rows, "_cycled": _cycled,
                 "_lined_up": _lined_up}
    exec(source, namespace)
    return namespace["impl"]


@overload(moved_tile)
def _tile(A, reps):
    if not (int_type(reps) or ints_type(reps)):
        raise TypingError("np.tile: srcad compiles an int or a tuple of ints as reps")
    rank = getattr(A, "ndim", 0)
    full = max(rank, _rank_of(reps))
    lines = ["def impl(A, reps):", f"    counts = _lined_up(reps, {full})",
             f"    out = np.ascontiguousarray(np.asarray(A)).reshape("
             f"{'(1,) * ' + str(full - rank) + ' + ' if full > rank else ''}np.shape(A))"]
    lines += [f"    out = take_rows(out, {a}, _cycled(out.shape[{a}], counts[{a}]))"
              for a in range(full)]
    return _compile("\n".join(lines + ["    return out"]))


def untile(g, reps, shape):
    """The adjoint of np.tile (srcad/runtime/movement_runtime.py's)."""


@overload(untile)
def _untile(g, reps, shape):
    rank, full = len(shape), g.ndim
    lines = ["def impl(g, reps, shape):", f"    counts = _lined_up(reps, {full})",
             "    out = np.ascontiguousarray(g)"]
    for a in range(full):
        length = f"shape[{a - full + rank}]" if a >= full - rank else "1"
        lines.append(f"    out = add_rows(out, {a}, _cycled({length}, counts[{a}]), "
                     f"{length})")
    lines.append("    return out.sum()" if rank == 0 else "    return out.reshape(shape)")
    return _compile("\n".join(lines))


def tiled_shape(shape, reps):
    """The shape of np.tile (srcad/runtime/movement_runtime.py's)."""


@overload(tiled_shape)
def _tiled_shape(shape, reps):
    rank, full = len(shape), max(len(shape), _rank_of(reps))
    sizes = ", ".join(f"counts[{a}] * {f'shape[{a - full + rank}]' if a >= full - rank else 1}"
                      for a in range(full))
    return _compile(f"def impl(shape, reps):\n    counts = _lined_up(reps, {full})\n"
                    f"    return ({sizes}{',' if full else ''})")


# -- np.repeat -----------------------------------------------------------------------------------

def moved_repeat(a, repeats, axis=None):
    return np.repeat(a, repeats, axis)


@register_jitable
def _repeated(n, repeats):
    """The index np.repeat reads along an axis of length n."""
    if isinstance(repeats, int):
        return np.repeat(np.arange(n), repeats)
    counts = np.empty(len(repeats), np.int64)
    for j in range(len(repeats)):
        counts[j] = repeats[j]
    if counts.size == 1:
        return np.repeat(np.arange(n), counts[0])
    return np.repeat(np.arange(n), counts)


@overload(moved_repeat)
def _repeat(a, repeats, axis=None):
    if not (int_type(repeats) or ints_type(repeats)):
        raise TypingError("np.repeat: srcad compiles an int or a tuple of ints as repeats")
    if omitted_argument(axis):
        def flat(a, repeats, axis=None):
            values = np.ascontiguousarray(np.asarray(a)).reshape(-1)
            return take_rows(values, 0, _repeated(values.size, repeats))
        return flat
    return lambda a, repeats, axis=None: take_rows(a, axis % a.ndim,
                                                   _repeated(a.shape[axis], repeats))


def unrepeat(g, repeats, axis, shape):
    """The adjoint of np.repeat (srcad/runtime/movement_runtime.py's)."""


@overload(unrepeat)
def _unrepeat(g, repeats, axis, shape):
    if omitted_argument(axis):
        def flat(g, repeats, axis, shape):
            size = size_of(shape)
            out = add_rows(g, 0, _repeated(size, repeats), size)
            return out.sum() if len(shape) == 0 else out.reshape(shape)
        return flat
    return lambda g, repeats, axis, shape: add_rows(g, axis, _repeated(shape[axis], repeats),
                                                    shape[axis])


def repeated_shape(shape, repeats, axis):
    """The shape of np.repeat (srcad/runtime/movement_runtime.py's)."""


@overload(repeated_shape)
def _repeated_shape(shape, repeats, axis):
    if omitted_argument(axis):
        def flat(shape, repeats, axis):
            size = size_of(shape)
            return (_repeated(size, repeats).size,)
        return flat
    return lambda shape, repeats, axis: tuple_setitem(
        shape, axis, _repeated(shape[axis], repeats).size)


# -- np.atleast_1d/2d/3d of a number ------------------------------------------------------------

def moved_atleast_1d(x):
    return np.atleast_1d(x)


def moved_atleast_2d(x):
    return np.atleast_2d(x)


def moved_atleast_3d(x):
    return np.atleast_3d(x)


def _number(x) -> bool:  # numba's np.atleast_1d/2d/3d take arrays only
    return isinstance(x, (types.Number, types.Boolean))


@overload(moved_atleast_1d)
def _atleast_1d(x):
    return (lambda x: np.array([x])) if _number(x) else (lambda x: np.atleast_1d(x))


@overload(moved_atleast_2d)
def _atleast_2d(x):
    return (lambda x: np.array([[x]])) if _number(x) else (lambda x: np.atleast_2d(x))


@overload(moved_atleast_3d)
def _atleast_3d(x):
    return (lambda x: np.array([[[x]]])) if _number(x) else (lambda x: np.atleast_3d(x))
