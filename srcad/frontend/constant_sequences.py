"""Constant tuples and lists of numbers a function reads, as NumPy arrays.

A default argument `coeffs=(1.0, 2.0, 3.0)`, a constant argument given such a tuple or list, a
module-level `COEFFS = [0.5, 0.25]` or a closure cell holding one is read as the 1-D array of
its numbers (floats when any element is a float, ints when all are: an int array indexes) -
when every read of the name in the function is one where that array behaves as the tuple
does: an index by a number (`coeffs[k]`), `len`, a loop over it (`for c in coeffs`, a
comprehension), `enumerate`, `zip`, `sum`, a NumPy function that reads it as numbers
(`np.asarray`, `np.sum`, `np.dot`, a ufunc...). A whole-tuple
operation (`coeffs + (4.0,)`, `coeffs * 2`, `coeffs == (1, 2)`, a slice, a call of another
function) means something else for an array: the value stays as it is, and srcad refuses what
it cannot see into as before.

Where the array is only what the analysis sees (globals, closure cells), the generated code
still reads the tuple or list itself, at run time: the same numbers.
"""

from __future__ import annotations

import builtins
import functools
import types

import gast
import numpy as np

from srcad.frontend import syntax as S

_ONE_ARGUMENT = {builtins.len, builtins.sum, builtins.enumerate}
# NumPy functions that read a tuple as the array of its numbers (not as a shape or axes)
_NUMPY_READS = (np.asarray, np.array, np.sum, np.prod, np.dot, np.max, np.min, np.mean,
                np.cumsum)
# A callee passing a parameter on is parsed to see how it reads it: parse.py (which calls
# `free_names_as_arrays` on every function it parses) registers its parser here at import.
PARSER: dict = {}


def number_array(value):
    """The 1-D array of a non-empty tuple or list of ints and floats (no bools), or None."""
    if type(value) not in (tuple, list) or not value:
        return None
    kinds = {type(v) for v in value}
    if not kinds <= {int, float}:
        return None
    return np.array(value, dtype=float if float in kinds else np.int64)


def read_as_array(parsed, name: str) -> bool:
    """Whether every read of `name` in the parsed function is one where a 1-D array of numbers
    behaves as a tuple of them (and the function never binds `name` itself)."""
    parents = {}
    for node in S.walk(parsed.tree):
        for child in gast.iter_child_nodes(node):
            parents[id(child)] = node
    for node in S.walk(parsed.tree):
        if isinstance(node, gast.Name) and node.id == name \
                and not isinstance(node.ctx, gast.Param):
            if not isinstance(node.ctx, gast.Load) \
                    or not _array_like_use(parsed, node, parents.get(id(node))):
                return False
    return True


def _array_like_use(parsed, node, parent) -> bool:
    if isinstance(parent, gast.Subscript) and parent.value is node:
        return not isinstance(parent.slice, (gast.Slice, gast.Tuple))
    if isinstance(parent, (gast.For, gast.comprehension)) and parent.iter is node:
        return True
    if isinstance(parent, gast.Call) and node in parent.args and not parent.keywords:
        try:
            callee = _callee(parsed, parent.func)
        except (KeyError, AttributeError):
            return False
        if callee in _ONE_ARGUMENT:
            return len(parent.args) == 1
        if callee is builtins.zip:
            return True
        if isinstance(callee, types.FunctionType):  # a helper srcad inlines: as it reads it
            names = callee.__code__.co_varnames[:callee.__code__.co_argcount]
            k = parent.args.index(node)
            return k < len(names) and _parameter_read_as_array(callee, names[k])
        return isinstance(callee, np.ufunc) or any(callee is f for f in _NUMPY_READS)
    return False


def _callee(parsed, func):
    if isinstance(func, gast.Name):
        return parsed.resolve(func.id)
    if isinstance(func, gast.Attribute):
        return getattr(_callee(parsed, func.value), func.attr)
    raise KeyError(func)


def free_names_as_arrays(parsed) -> None:
    """The number tuples and lists among the globals and closure cells the function reads,
    as arrays in `parsed.arrays` (what `parsed.resolve` answers first)."""
    params = {a.id for a in parsed.tree.args.args if isinstance(a, gast.Name)}
    for node in S.walk(parsed.tree):
        if isinstance(node, gast.Name) and node.id not in params \
                and node.id in parsed.namespace:
            array = number_array(parsed.namespace[node.id])
            if array is not None and read_as_array(parsed, node.id):
                if type(parsed.namespace[node.id]) is list:  # changed in place: rebuild
                    parsed.inlined_reads.append((_Unchanged(parsed.namespace[node.id]),
                                                 node.id, parsed.namespace[node.id]))
                parsed.arrays[node.id] = array


class _Unchanged:
    """A list as the cache checks a global it read (`namespace.get(name) is obj`): itself
    while it holds the numbers it held when the code was built, else nothing."""

    def __init__(self, values: list):
        self.values, self.held = values, list(values)

    def get(self, name, default=None):
        return self.values if self.values == self.held else default


def arguments_as_arrays(f, args, wrappers=(), bare: bool = True, first: int = 0) -> tuple:
    """`args` with each number tuple or list from position `first` on (bare when `bare`, or in
    one of `wrappers`, the constant annotations) as its array where the function reads it as
    one."""
    found = [k for k, a in enumerate(args) if k >= first
             and number_array(_value(a, wrappers, bare)) is not None]
    if not found or not hasattr(f, "__code__"):
        return args
    names = f.__code__.co_varnames[:f.__code__.co_argcount]
    args = list(args)
    for k in found:
        if k < len(names) and _parameter_read_as_array(f, names[k]):
            array = number_array(_value(args[k], wrappers, bare))
            args[k] = type(args[k])(array) if isinstance(args[k], wrappers) else array
    return tuple(args)


def default_as_array(f, name: str, value):
    """A helper's default `value` of its parameter `name` (`cs=(1.0, 2.0)`) as its array where
    the helper reads it as one, else `value` itself: the inliner binds the default by value."""
    array = number_array(value)
    if array is None or not hasattr(f, "__code__") or not _parameter_read_as_array(f, name):
        return value
    return array


def _value(arg, wrappers, bare):
    if isinstance(arg, wrappers):
        return arg.value
    return arg if bare else None


_CHECKING: list = []  # the (function, parameter) pairs being checked, innermost last


def _parameter_read_as_array(f, name) -> bool:
    """Does `f` read its parameter `name` as an array reads (see `read_as_array`)? A
    recursive call passing the parameter on to itself (`horner(x, cs, k + 1)` in horner)
    reads it as the rest of the body does; any other cycle reads it not. Not cached here:
    only the answer of the outermost check is (`_checked`)."""
    if _CHECKING and _CHECKING[-1] == (f, name):
        return True
    if (f, name) in _CHECKING:
        return False
    return _checked(f, name)


@functools.lru_cache(maxsize=256)
def _checked(f, name) -> bool:
    _CHECKING.append((f, name))
    try:
        return read_as_array(PARSER["parse_function"](f), name)
    except Exception:  # noqa: BLE001 - no source: the call is refused where it always was
        return False
    finally:
        _CHECKING.pop()
