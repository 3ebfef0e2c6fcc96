"""Batched values and expressions: what one expression of the per-example body is once the
batch is axis 0 of every mapped value.

Each expression becomes a `Value` (srcad/transform/batching/core.py); calls are lifted by
srcad/transform/batching/calls.py.

>>> import gast
>>> names = {"x": Value("x", True, 1), "w": Value("w", False, 1)}
>>> Expressions(names, {"np": np}).lift(gast.parse("np.sum(x * w)").body[0].value).text
'np.sum(x * w, axis=1)'
"""

from __future__ import annotations

import builtins
import types

import gast
import numpy as np

from srcad.transform.batching.calls import CallLifter
from srcad.transform.batching.core import (
    NotLiftable,
    ShapeOf,
    Value,
    aligned,
    common_rank,
    matmul,
    operand,
)

_BINARY = {gast.Add: "+", gast.Sub: "-", gast.Mult: "*", gast.Div: "/", gast.FloorDiv: "//",
           gast.Mod: "%", gast.Pow: "**", gast.BitAnd: "&", gast.BitOr: "|", gast.BitXor: "^"}
_COMPARE = {gast.Lt: "<", gast.LtE: "<=", gast.Gt: ">", gast.GtE: ">=", gast.Eq: "==",
            gast.NotEq: "!="}


class Expressions:
    """Lifts expressions given the values of the names in scope (`names`: name -> Value) and
    the namespace the body reads its globals from."""

    def __init__(self, names: dict, namespace: dict):
        self.names = names
        self.namespace = namespace
        self.calls = CallLifter(self)
        self.unknown_calls = False  # a call of a function that may write its arguments

    def lift(self, node) -> Value:
        method = getattr(self, "_" + type(node).__name__, None)
        if method is None:
            raise NotLiftable(f"a {type(node).__name__} expression", node)
        return method(node)

    def unbatched(self, node) -> Value:
        """`node` where nothing in it is batched: its own text, rank when known."""
        value = self.lift(node)
        if value.batched:
            raise NotLiftable("a batched value where one per call is needed", node)
        return value

    # -- leaves
    def _Constant(self, node):
        if isinstance(node.value, (bool, int, float, complex)) or node.value is None:
            return Value(repr(node.value), False, 0 if node.value is not None else None,
                         obj=node.value)
        if isinstance(node.value, str):
            return Value(repr(node.value), False, None, obj=node.value)
        raise NotLiftable("a constant of this kind", node)

    def _Name(self, node):
        if node.id in self.names:
            return self.names[node.id]
        obj = self.namespace.get(node.id, getattr(builtins, node.id, _MISSING))
        if obj is _MISSING:
            raise NotLiftable(f"the name {node.id!r}", node)
        rank = np.ndim(obj) if isinstance(obj, (int, float, np.ndarray, np.number)) else None
        return Value(node.id, False, rank, obj=obj)

    def _Attribute(self, node):
        base = self.lift(node.value)
        if isinstance(base.obj, types.ModuleType):
            obj = getattr(base.obj, node.attr, _MISSING)
            if obj is _MISSING:
                raise NotLiftable(f"{base.text}.{node.attr}", node)
            rank = np.ndim(obj) if isinstance(obj, (int, float)) else None
            return Value(f"{base.text}.{node.attr}", False, rank, obj=obj)
        shape = ShapeOf(base.rank) if node.attr == "shape" and base.rank is not None else None
        if not base.batched:
            rank = 1 if node.attr == "shape" else 0 if node.attr in ("ndim", "size") else None
            if node.attr == "T" and base.rank is not None:
                rank = base.rank
            return Value(f"{operand(base)}.{node.attr}", False, rank, obj=shape)
        if node.attr == "shape":
            return Value(f"{operand(base)}.shape[1:]", False, 1, obj=shape)
        if node.attr == "ndim" and base.rank is not None:
            return Value(str(base.rank), False, 0)
        if node.attr == "size":
            return Value(f"int(np.prod({operand(base)}.shape[1:]))", False, 0)
        if node.attr == "T" and base.rank is not None and base.rank <= 2:
            text = base.text if base.rank < 2 else f"np.swapaxes({base.text}, 1, 2)"
            return Value(text, True, base.rank, simple=base.rank < 2 and base.simple)
        raise NotLiftable(f"the attribute .{node.attr} of a batched value", node)

    # -- operators
    def _BinOp(self, node):
        left, right = self.lift(node.left), self.lift(node.right)
        if isinstance(node.op, gast.MatMult):
            return matmul(left, right, node)
        symbol = _BINARY.get(type(node.op))
        if symbol is None:
            raise NotLiftable("this operator", node)
        return self.elementwise(lambda a, b: f"{a} {symbol} {b}", [left, right], node)

    def _UnaryOp(self, node):
        value = self.lift(node.operand)
        if isinstance(node.op, gast.Not):
            if value.batched:
                return Value(f"np.logical_not({value.text})", True, value.rank)
            return Value(f"not {operand(value)}", False, value.rank, simple=False)
        symbol = {gast.USub: "-", gast.UAdd: "+"}.get(type(node.op))
        if symbol is None:
            raise NotLiftable("this unary operator", node)
        return Value(f"{symbol}{operand(value)}", value.batched, value.rank, simple=False)

    def _Compare(self, node):
        if len(node.ops) != 1 or type(node.ops[0]) not in _COMPARE:
            values = [self.lift(node.left)] + [self.lift(c) for c in node.comparators]
            if any(v.batched for v in values):
                raise NotLiftable("a chained or identity comparison of batched values", node)
            symbols = [_COMPARE.get(type(op)) for op in node.ops]
            if None in symbols:
                raise NotLiftable("this comparison", node)
            text = operand(values[0]) + "".join(f" {s} {operand(v)}"
                                                for s, v in zip(symbols, values[1:]))
            return Value(text, False, None, simple=False)
        symbol = _COMPARE[type(node.ops[0])]
        values = [self.lift(node.left), self.lift(node.comparators[0])]
        return self.elementwise(lambda a, b: f"{a} {symbol} {b}", values, node)

    def _BoolOp(self, node):
        values = [self.lift(v) for v in node.values]
        if any(v.batched for v in values):
            raise NotLiftable("`and`/`or` of batched values", node)
        word = " and " if isinstance(node.op, gast.And) else " or "
        return Value(word.join(operand(v) for v in values), False, None, simple=False)

    def _IfExp(self, node):
        test, body, orelse = (self.lift(n) for n in (node.test, node.body, node.orelse))
        if not test.batched:
            batched = body.batched or orelse.batched
            if batched and (body.rank != orelse.rank or body.rank is None):
                raise NotLiftable("a conditional expression choosing values of other ranks",
                                  node)
            sides = [v.text if v.batched or not batched else
                     f"np.full((batch_size,) + np.shape({v.text}), {v.text})"
                     for v in (body, orelse)]
            text = f"({sides[0]}) if {operand(test)} else ({sides[1]})"
            return Value(text, batched, body.rank if body.rank == orelse.rank else None,
                         simple=False)
        # both sides are computed for every example, then chosen per example
        rank = common_rank([test, body, orelse], node)
        texts = [aligned(v, rank) for v in (test, body, orelse)]
        return Value(f"np.where({', '.join(texts)})", True, rank)

    def _Call(self, node):
        return self.calls.lift(node)

    def _Tuple(self, node):
        values = [self.lift(e) for e in node.elts]
        if any(v.batched for v in values):
            raise NotLiftable("a tuple holding batched values", node)
        comma = "," if len(values) == 1 else ""
        return Value(f"({', '.join(v.text for v in values)}{comma})", False, None)

    def _List(self, node):
        values = [self.lift(e) for e in node.elts]
        if any(v.batched for v in values):
            raise NotLiftable("a list holding batched values", node)
        return Value(f"[{', '.join(v.text for v in values)}]", False, None)

    def _Subscript(self, node):
        if isinstance(node.value, gast.Attribute) and node.value.attr == "shape" \
                and isinstance(node.slice, gast.Constant) and type(node.slice.value) is int \
                and node.slice.value >= 0:
            array = self.lift(node.value.value)
            if array.batched:  # the example's axis k is the batch's axis k + 1
                return Value(f"{operand(array)}.shape[{node.slice.value + 1}]", False, 0)
        base = self.lift(node.value)
        index = node.slice.elts if isinstance(node.slice, gast.Tuple) else [node.slice]
        parts = [self._index_part(part) for part in index]
        text = ", ".join(p.text for p in parts)
        if any(p.batched for p in parts):
            if base.batched or len(parts) != 1 or parts[0].rank != 0 or base.rank is None:
                raise NotLiftable("indexing with a batched index", node)
            return Value(f"{operand(base)}[{parts[0].text}]", True, base.rank - 1)
        rank = _indexed_rank(base.rank, parts, node) if base.rank is not None else None
        if not base.batched:
            return Value(f"{operand(base)}[{text}]", False, rank)
        if rank is None:
            raise NotLiftable("an index whose kind is not known", node)
        return Value(f"{operand(base)}[:, {text}]", True, rank)

    def _index_part(self, part) -> Value:
        """One part of an index: obj says its kind, "int", "slice", None (np.newaxis, `...`)."""
        if isinstance(part, gast.Slice):
            bounds = [self.unbatched(b).text if b is not None else ""
                      for b in (part.lower, part.upper, part.step)]
            text = f"{bounds[0]}:{bounds[1]}" + (f":{bounds[2]}" if bounds[2] else "")
            return Value(text, False, None, obj="slice")
        if isinstance(part, gast.Constant) and part.value in (None, Ellipsis):
            return Value("None" if part.value is None else "...", False, None,
                         obj=None if part.value is None else "slice")
        value = self.lift(part)
        if value.batched:
            return value
        if value.rank == 0:
            return Value(value.text, False, 0, obj="int")
        if value.rank == 1:  # ints or a mask: one axis taken, one axis given
            return Value(value.text, False, 1, obj="array")
        raise NotLiftable("an index whose kind is not known", part)

    def elementwise(self, text_of, values, node) -> Value:
        """A combination of `values` element by element (NumPy broadcasting)."""
        if not any(v.batched for v in values):
            rank = common_rank(values, node)
            return Value(text_of(*(operand(v) for v in values)), False, rank, simple=False)
        rank = common_rank(values, node)
        return Value(text_of(*(aligned(v, rank) for v in values)), True, rank, simple=False)


_MISSING = object()


def _indexed_rank(rank, parts, node):
    """The per-example rank of `a[parts]`, `a` of rank `rank`: ints and index arrays (the
    advanced parts, which must stand side by side: NumPy moves them to the front otherwise,
    past the batch axis) take an axis each, arrays give one back; `None` adds one."""
    advanced = [k for k, p in enumerate(parts) if p.obj in ("int", "array")]
    arrays = any(parts[k].obj == "array" for k in advanced)
    if arrays and advanced != list(range(advanced[0], advanced[-1] + 1)):
        raise NotLiftable("index arrays apart from each other", node)
    added = sum(1 for p in parts if p.obj is None and p.text == "None")
    return rank - len(advanced) + (1 if arrays else 0) + added
