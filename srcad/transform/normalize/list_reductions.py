"""Reductions of lists: which call is a `len`/`sum`/`max`/`min` (builtin or NumPy) or an
`np.array` of a list, and the sums, maxima and minima of list and tuple literals written out
(`np.sum([1.0, a * a, 2.0])` is `1.0 + a * a + 2.0`), before the fence sees any list.
"""

from __future__ import annotations

import builtins
import contextlib

import gast
import numpy as np

from srcad.frontend import syntax as S

_REDUCTIONS = {"len": builtins.len, "sum": builtins.sum, "max": builtins.max,
               "min": builtins.min}
# NumPy's reductions of a list are the builtins' (np.array of a list: its elements; so is
# np.stack of a list of floats or of arrays of one shape)
_NUMPY_REDUCTIONS = {id(np.sum): "sum", id(np.max): "max", id(np.amax): "max",
                     id(np.min): "min", id(np.amin): "min", id(np.array): "array",
                     id(np.asarray): "array", id(np.stack): "array"}


def _callee(parsed, func):
    """The object a call's function expression names (`sum`, `np.sum`), else None."""
    try:
        if isinstance(func, gast.Name):
            return parsed.resolve(func.id)
        if isinstance(func, gast.Attribute) and isinstance(func.value, gast.Name):
            return getattr(parsed.resolve(func.value.id), func.attr, None)
    except KeyError:
        return None
    return None


_BUILDERS = {id(np.concatenate): "concatenate", id(np.stack): "stack", id(np.hstack): "hstack",
             id(np.vstack): "vstack", id(np.column_stack): "column_stack"}


def building_call(parsed, node, of_name=True):
    """The NumPy function's name when `node` is np.concatenate/stack/hstack/vstack/
    column_stack of one name (`np.vstack(hs)`, `np.stack(hs, axis=1)`; without `of_name`, of
    any value but a list or tuple written out), else None: of a grown list, the array of its
    rows (srcad/transform/normalize/list_building.py)."""
    if not (isinstance(node, gast.Call) and len(node.args) == 1
            and isinstance(node.args[0], gast.Name if of_name else gast.expr)
            and not isinstance(node.args[0], (gast.List, gast.Tuple, gast.Starred))
            and all(k.arg == "axis" for k in node.keywords)):
        return None
    obj = _callee(parsed, node.func)
    return None if obj is None else _BUILDERS.get(id(obj))


@contextlib.contextmanager
def joins_as_arrays(norm):
    """Within it, each building call of a value not written out (`np.vstack(hs_buffer[0:n])`)
    in `norm.body` is `np.asarray` of that value, so that a type inference run then goes past
    it (typed as its array: the rank the join gives is not known before the rows are); the
    calls are restored on exit. A rank guessed so is checked once the joins are typed
    (srcad/transform/normalize/list_building.py)."""
    calls = [n for stmt in norm.body for n in gast.walk(stmt)
             if building_call(norm.parsed, n, of_name=False)]
    saved = [(c.func, c.keywords) for c in calls]
    for call in calls:
        call.func, call.keywords = S.substitute("np.asarray", {}), []
    try:
        yield
    finally:
        for call, (func, keywords) in zip(calls, saved):
            call.func, call.keywords = func, keywords


def reduction_kind(parsed, func):
    obj = _callee(parsed, func)
    if obj is None:
        return None
    kind = next((k for k, fn in _REDUCTIONS.items() if obj is fn), None)
    if kind is None and _NUMPY_REDUCTIONS.get(id(obj)) is not None:
        kind = _NUMPY_REDUCTIONS[id(obj)]
    return kind


def numpy_reduction(parsed, func) -> bool:
    """Is `func` np.sum or np.mean, which read a list as the array `np.array` makes of it
    (`np.mean(hs, axis=0)` of a list of arrays: the mean row)?"""
    obj = _callee(parsed, func)
    return obj is not None and any(obj is fn for fn in (np.sum, np.mean))


def builtin_name(parsed, name_):
    """The name of a builtin as the module sees it (None when the module rebinds it)."""
    try:
        return S.name(name_) if parsed.resolve(name_) is getattr(builtins, name_) else None
    except KeyError:
        return None


def fold_literal_reductions(parsed, body):
    """`sum((a, b))`, `max([a, b])`: the builtin sum, max or min of a list or tuple literal,
    written out (`0 + a + b`; max and min as Python's builtins pick: the first of equal
    values; of one value, that value). NumPy's (`np.sum((x, y))`) read the literal as the
    array NumPy makes of it, arrays too (srcad/transform/normalize/literal_arguments.py): the
    sum of all their elements, not their sum."""
    return [_LiteralReductions(parsed).visit(s) for s in body]


class _LiteralReductions(gast.NodeTransformer):
    def __init__(self, parsed):
        self.parsed = parsed

    def visit_Call(self, node):
        self.generic_visit(node)
        if not (len(node.args) == 1 and not node.keywords
                and isinstance(node.args[0], (gast.List, gast.Tuple)) and node.args[0].elts
                and not any(isinstance(e, gast.Starred) for e in node.args[0].elts)):
            return node
        kind = reduction_kind(self.parsed, node.func)
        if _callee(self.parsed, node.func) is not _REDUCTIONS.get(kind, False):
            return node  # np.sum, np.max: of the array
        elements = node.args[0].elts
        if kind in ("max", "min") and len(elements) == 1:
            return elements[0]
        if kind == "sum":
            out = elements[0]
            for e in elements[1:]:
                out = gast.BinOp(left=out, op=gast.Add(), right=e)
            if _callee(self.parsed, node.func) is builtins.sum:  # Python's sum starts at 0
                out = gast.BinOp(left=S.const(0), op=gast.Add(), right=out)
            return gast.copy_location(out, node)
        if kind in ("max", "min") and builtin_name(self.parsed, kind) is not None:
            return gast.copy_location(gast.Call(func=builtin_name(self.parsed, kind),
                                                args=elements, keywords=[]), node)
        return node
