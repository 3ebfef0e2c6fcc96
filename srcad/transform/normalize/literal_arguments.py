"""Tuple and list literals passed to a NumPy function: the arrays NumPy makes of them.

NumPy reads a tuple or list argument as `np.asarray` of it, so `np.mean((x, x + 2))` is
`np.mean(np.array([x, x + 2]))`; srcad writes it so, and the array rules see an array (a
literal left as it is would reach them as a value they cannot see into: a derivative of 0).
Two steps:

* before the syntax check (`lists_as_tuples`): a list literal passed to a NumPy function
  (`np.mean([x, y])`) is the tuple NumPy reads the same way, marked as written as a list; so
  is one passed to a `math` or `statistics` function with no rule (`math.fsum([x, y])`);
* once types are known (`arrays_of_literals`): a tuple literal of numbers and arrays, one
  of them a float or a float array (or ints, as the first argument of a NumPy function with
  an array rule: `np.sum((1, n))`), passed to a NumPy function is `np.array([...])`; a
  shape or axes (`np.zeros((n, 2))`, `np.reshape(x, (n, 1))`: ints) stays a tuple, and a
  list literal that is not made an array is refused as the list it is.

The arguments NumPy joins itself (`np.array((a, b))`, `np.stack([a, b])`) are left as they
are. A call of another library (`math.fsum((x, y))`, `statistics.fmean`) is not rewritten:
with no rule it is refused when a literal it receives holds a value that carries a derivative
(srcad/analysis/type_refusals.py).

    m = np.mean([x, x + 2.0])    ->    m = np.mean(np.array([x, x + 2.0]))
    v = np.mean((x, y), axis=0)  ->    v = np.mean(np.stack([x, y]), axis=0)   (arrays x, y)
"""

from __future__ import annotations

import types as pytypes

import gast
import numpy as np

from srcad.analysis.types import Types
from srcad.analysis.value_types import NUMERIC, Array, is_float_like
from srcad.errors import UnsupportedSyntaxError
from srcad.frontend import syntax as S
from srcad.frontend.parse import resolve_callee
from srcad.frontend.refused_code import set_aside_node
from srcad.rules import lookup_call, lookup_method
from srcad.runtime.index_tricks import c_columns

_NOT_VALUES = ("axis", "keepdims", "dtype", "out")  # keywords whose literal is not data


def lists_as_tuples(parsed, body: list) -> list:
    """`body` (changed in place) with each list literal argument of a NumPy function a
    tuple marked `written_as_list`."""
    joins, quantiles = _RowJoins(parsed), _QuantileLists(parsed)
    body[:] = [quantiles.visit(joins.visit(stmt)) for stmt in body]
    for stmt in body:
        for product in [n for n in S.walk(stmt) if isinstance(n, gast.BinOp)
                        and isinstance(n.op, gast.MatMult)]:
            for side in ("left", "right"):  # `A @ [a, b]`: `@` reads a list as NumPy does
                literal = getattr(product, side)
                if isinstance(literal, gast.List):
                    _rows_as_arrays(literal)
                    made = S.relocated(S.call("np.array", gast.List(elts=[], ctx=gast.Load())),
                                       literal)
                    made.args[0].elts = literal.elts
                    setattr(product, side, made)
        for call in [n for n in S.walk(stmt) if isinstance(n, gast.Call)]:
            joined = _joined_rows(parsed, call)
            if joined is not None:  # np.array's and np.asarray's tuples in a tuple are rows
                _rows_as_arrays(joined, tuples=joined is call.args[0] and _is_array_call(
                    parsed, call))
                if resolve_callee(parsed, call.func, {}) is np.asarray:
                    # of a list written out: a new array, np.array's
                    call.func = S.relocated(S.call("np.array").func, call.func)
            parameters = _parameters(parsed, call)
            for literal in parameters:  # np.tile(x, [2, 1]): the literal the rule reads
                _replace(call, literal, _as_tuples(literal))
            for literal in _literal_arguments(parsed, call, {}) + _read_once(parsed, call):
                if isinstance(literal, gast.List):
                    _rows_as_arrays(literal)
                    _replace(call, literal, _as_tuple(literal))
                elif any(isinstance(e, (gast.List, gast.Tuple)) for e in literal.elts):
                    _rows_as_arrays(literal, tuples=True)  # `((a, b), (c, d))`: rows
    return body


class _RowJoins(gast.NodeTransformer):
    """`np.r_[a, b]` of numbers and arrays (no slices, no directive strings) as
    `np.concatenate((np.atleast_1d(a), np.atleast_1d(b)))`: what NumPy's np.r_ does;
    `np.c_[a, b]` as `c_columns((a, b))` (srcad/runtime/index_tricks.py)."""

    def __init__(self, parsed):
        self.parsed = parsed

    def visit_Subscript(self, node):
        self.generic_visit(node)
        # `x[[0, 2, 1]]`, `A[[i, j], 0]`: NumPy reads a flat list in an index as the array of
        # it (a list is no key of a list or a dict)
        items = node.slice.elts if isinstance(node.slice, gast.Tuple) else [node.slice]
        for k, item in enumerate(items):
            if isinstance(item, gast.List) and item.elts and not any(
                    isinstance(e, (gast.List, gast.Tuple, gast.Starred, gast.Slice)) or (
                        isinstance(e, gast.Constant) and isinstance(e.value, bool))
                    for e in item.elts):
                made = _call_at("np.array", item, item)
                if isinstance(node.slice, gast.Tuple):
                    node.slice.elts[k] = made
                else:
                    node.slice = made
        joins = (np.r_, np.c_)
        if not isinstance(node.value, gast.Attribute) \
                or resolve_callee(self.parsed, node.value, {}) not in joins:
            return node
        items = node.slice.elts if isinstance(node.slice, gast.Tuple) else [node.slice]
        if any(isinstance(e, (gast.Slice, gast.Starred)) or (
                isinstance(e, gast.Constant) and isinstance(e.value, str)) for e in items):
            return node
        if resolve_callee(self.parsed, node.value, {}) is np.c_:  # columns: index_tricks.py
            self.parsed.namespace.setdefault("c_columns", c_columns)
            self.parsed.spellings.setdefault("c_columns", "np.c_")
            listed = gast.copy_location(gast.Tuple(elts=items, ctx=gast.Load()), node)
            return _call_at("c_columns", listed, node)
        parts = [_call_at("np.atleast_1d", e, e) for e in items]
        joined = gast.copy_location(gast.Tuple(elts=parts, ctx=gast.Load()), node)
        return _call_at("np.concatenate", joined, node)


class _QuantileLists(gast.NodeTransformer):
    """`np.percentile(x, [25.0, 75.0], ...)` (np.quantile too): NumPy's array of one call per
    q, `np.array([np.percentile(x, 25.0, ...), np.percentile(x, 75.0, ...)])`, whose rule
    takes one number q."""

    def __init__(self, parsed):
        self.parsed = parsed

    def visit_Call(self, node):
        self.generic_visit(node)
        if resolve_callee(self.parsed, node.func, {}) not in (np.percentile, np.quantile):
            return node
        keyword = next((k for k in node.keywords if k.arg == "q"), None)
        q = keyword.value if keyword is not None else (
            node.args[1] if len(node.args) > 1 else None)
        if not isinstance(q, (gast.List, gast.Tuple)) or not q.elts or not all(
                isinstance(e, gast.Constant) and isinstance(e.value, (int, float))
                and not isinstance(e.value, bool) for e in q.elts):
            return node
        calls = []
        for value in q.elts:
            call = S.clone(node)
            if keyword is not None:
                next(k for k in call.keywords if k.arg == "q").value = S.clone(value)
            else:
                call.args[1] = S.clone(value)
            calls.append(call)
        listed = gast.copy_location(gast.List(elts=calls, ctx=gast.Load()), node)
        return _call_at("np.array", listed, node)


def _call_at(function, argument, at):
    """`function(argument)`, the new nodes at the location of `at` (the argument's keep
    theirs)."""
    made = S.relocated(S.call(function, S.const(0)), at)
    made.args = [argument]
    return made


def _parameters(parsed, call) -> list:
    """The list and tuple literals `call` passes where its rule reads a literal keyword
    (`reps`, `pad_width`, `axis`: not data, not an operand)."""
    if not isinstance(call.func, (gast.Name, gast.Attribute)):
        return []
    info = lookup_call(resolve_callee(parsed, call.func, {}))
    if info is None or not info.keywords or info.sequence:
        return []
    named = list(zip(info.keywords, call.args[1:])) + [(k.arg, k.value) for k in call.keywords]
    return [value for name, value in named if name in info.keywords
            and name not in info.operand_keywords and isinstance(value, (gast.List, gast.Tuple))]


def _as_tuples(literal):
    """`literal` with every list in it a tuple (`[[1, 0], [0, 2]]` -> `((1, 0), (0, 2))`)."""
    if not isinstance(literal, (gast.List, gast.Tuple)):
        return literal
    elements = [_as_tuples(e) for e in literal.elts]
    return gast.copy_location(gast.Tuple(elts=elements, ctx=gast.Load()), literal)


def _joined_rows(parsed, call):
    """The nested literal `np.array` reads (`np.array([[a, b], [c, d]])`), else None."""
    obj = resolve_callee(parsed, call.func, {}) \
        if isinstance(call.func, (gast.Name, gast.Attribute)) else None
    if obj not in (np.array, np.asarray) or not call.args \
            or not isinstance(call.args[0], (gast.List, gast.Tuple)):
        return None
    return call.args[0]


def _is_array_call(parsed, call) -> bool:
    return resolve_callee(parsed, call.func, {}) in (np.array, np.asarray)


def _rows_as_arrays(literal, tuples: bool = False) -> None:
    """Each row of a nested list literal (`[[a, b], [c, d]]`: the lists in a list, and the
    tuples in a list; with `tuples`, np.array's argument, which reads a tuple of tuples as it
    reads a list of lists, the tuples in a tuple too) as `np.array([...])` of that row,
    innermost first, so that NumPy's array of the whole is the array of the rows (np.stack)."""
    for k, row in enumerate(literal.elts):
        if isinstance(row, gast.List) or (isinstance(row, gast.Tuple) and (
                tuples or isinstance(literal, gast.List))):
            _rows_as_arrays(row, tuples)
            made = S.relocated(S.call("np.array", gast.List(elts=[], ctx=gast.Load())), row)
            made.args[0].elts = row.elts
            literal.elts[k] = made


def _read_once(parsed, call) -> list:
    """The list literals a `math` or `statistics` function reads as it reads a tuple
    (`math.fsum([x, y])`): a tuple, so that both forms meet the same check of a call with no
    rule."""
    obj = resolve_callee(parsed, call.func, {}) \
        if isinstance(call.func, (gast.Name, gast.Attribute)) else None
    if getattr(obj, "__module__", None) not in ("math", "statistics") or lookup_call(obj):
        return []
    return [a for a in call.args if isinstance(a, gast.List)
            and not any(isinstance(e, gast.Starred) for e in a.elts)]


def arrays_of_literals(norm, arg_types: dict) -> None:
    """Each tuple literal of numbers and arrays passed to a NumPy function in `norm.body`
    (one of them a float or a float array) as `np.array([...])`; a literal written as a list
    that is not one is set aside with its refusal."""

    calls = [n for stmt in norm.body for n in S.walk(stmt) if isinstance(n, gast.Call)]
    found = [(call, literal) for call in calls
             for literal in _literal_arguments(norm.parsed, call, norm.extra_names)]
    if not found:
        return
    types = Types(norm, arg_types, check=False)
    refused = []
    for call, literal in found:
        kinds = [types.of(e) for e in literal.elts]
        if literal.elts and all(k in NUMERIC or isinstance(k, Array) for k in kinds) and (
                any(is_float_like(k) for k in kinds) or _data_operand(norm, call, literal)):
            norm.extra_names.setdefault("np", np)
            # of arrays: np.stack, the same array (NumPy refuses arrays of two shapes in
            # both), which numba compiles (its np.array takes no list of arrays)
            maker = "np.stack" if any(isinstance(k, Array) for k in kinds) else "np.array"
            made = S.relocated(S.call(maker, gast.List(elts=[], ctx=gast.Load())), literal)
            made.args[0].elts = literal.elts
            _replace(call, literal, made)
        elif getattr(literal, "written_as_list", False):
            refused.append((literal, norm.parsed.error(
                literal, "list", f"the list `{S.unparse_expr(_as_list(literal))}` passed to "
                f"`{S.unparse_expr(call.func)}` is not a list of numbers and arrays srcad "
                "makes an array of", hint="pass np.array([...]) of floats or arrays, or a "
                "tuple for a shape or axes", kind=UnsupportedSyntaxError)))
    for literal, error in refused:
        norm.body = set_aside_node(norm.body, literal, error, norm.refusals)


def _literal_arguments(parsed, call, extra) -> list:
    """The tuple and list literals `call` of a NumPy function (or array method) passes as
    values, but not the sequences NumPy joins itself (np.array's, np.stack's first)."""
    func = call.func
    obj = resolve_callee(parsed, func, extra) if isinstance(func, (gast.Name, gast.Attribute)) \
        else None
    if obj is None and isinstance(func, gast.Attribute) and lookup_method(func.attr) is not None \
            and not isinstance(resolve_callee(parsed, func.value, extra), pytypes.ModuleType):
        joins = False  # an array method (`x.dot((1.0, 2.0))`) reads its arguments as NumPy
    elif _is_numpy(obj):
        joins = obj in (np.array, np.asarray) or getattr(lookup_call(obj), "sequence", False)
    else:
        return []
    parameters = _parameters(parsed, call)
    values = [a for k, a in enumerate(call.args) if k or not joins] + \
        [k.value for k in call.keywords if k.arg not in _NOT_VALUES]
    values = [v for v in values if v not in parameters]
    return [v for v in values if isinstance(v, (gast.Tuple, gast.List))
            and not any(isinstance(e, gast.Starred) for e in v.elts)]


def _data_operand(norm, call, literal) -> bool:
    """Is `literal` the first argument of a NumPy function with an array rule (`np.sum((1,
    n))`: the array of those ints, not a shape)?"""
    if not isinstance(call.func, (gast.Name, gast.Attribute)):
        return False
    info = lookup_call(resolve_callee(norm.parsed, call.func, norm.extra_names))
    if info is None or info.select is None or info.shape_arguments or info.name == "full":
        return False  # np.full's first argument is its shape
    if call.args and call.args[0] is literal:
        return True
    # an operand given by keyword or after the first (np.take(x, [0, 2]): its indices)
    named = list(zip(info.keywords, call.args[1:])) + [(k.arg, k.value) for k in call.keywords]
    return any(name in info.operand_keywords and value is literal for name, value in named)


def _is_numpy(obj) -> bool:
    return isinstance(obj, np.ufunc) or (
        callable(obj) and not isinstance(obj, type)
        and (getattr(obj, "__module__", None) or "").split(".")[0] == "numpy")


def _replace(call, old, new) -> None:
    call.args = [new if a is old else a for a in call.args]
    for keyword in call.keywords:
        if keyword.value is old:
            keyword.value = new


def _as_tuple(literal):
    made = gast.copy_location(gast.Tuple(elts=literal.elts, ctx=gast.Load()), literal)
    made.written_as_list = True
    return made


def _as_list(literal):
    return gast.List(elts=literal.elts, ctx=gast.Load())
