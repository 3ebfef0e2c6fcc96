"""The length of a shape value, where the code shows it: the rank of the arrays of that shape.

srcad's generated array code names shapes (`X.shape[:1]`, `np.broadcast_shapes(y.shape,
z.shape)`, `x_shape[:1] + (1,) + x_shape[1:]`) and calls `unbroadcast(g, shape)` and
`np.broadcast_to(g, shape)`; differentiating that code again (hessian, hvp) needs the rank of
their results, which is the length of the shape. Shapes stay run-time values: only their
length is read here, from `x.shape` of an array of known rank, constant slices of it, tuples
written out, `+` of shapes, `np.broadcast_shapes` (the longest), `np.shape(e)` and names
bound to one of these (every binding the same length). Anything else has no known length (None).

>>> import numpy as np
>>> len(np.broadcast_shapes((3,), (2, 1))) == max(1, 2)
True
"""

from __future__ import annotations

import gast
import numpy as np

from srcad.frontend.parse import resolve_callee
from srcad.rules.rule_type import ShapeLength

SHAPE = "shape"  # the type analysis's name for a shape value (analysis/types.py)


def operand_ranks(norm, type_of, operands) -> list:
    """The ranks `select` picks a rule with: an array's rank, 0 for a number, and for a
    shape value (`unbroadcast(g, x.shape)`) its length, the rank of the arrays of that
    shape (None when the code does not show it)."""
    ranks = []
    for o in operands:
        t = type_of(o)
        held = [type_of(e) for e in o.elts] if isinstance(o, (gast.Tuple, gast.List)) else []
        if any(k == "float" or getattr(k, "is_float", False) for k in held):
            # a literal of floats or arrays is no shape: the array NumPy makes of it
            # (srcad/transform/normalize/literal_arguments.py)
            ranks.append(1 + max(getattr(k, "ndim", 0) for k in held))
        elif t == SHAPE or isinstance(o, gast.Tuple):
            length = shape_length(norm, type_of, o)
            ranks.append(None if length is None else ShapeLength(length))
        else:
            ranks.append(getattr(t, "ndim", 0))
    return ranks


def shape_length(norm, type_of, node, _seen=None) -> int | None:
    """The number of entries of the shape `node` evaluates to, or None when unknown."""
    seen = _seen or set()
    if isinstance(node, gast.Tuple):
        if any(isinstance(e, gast.Starred) for e in node.elts):
            return None
        return len(node.elts)
    if isinstance(node, gast.Attribute) and node.attr == "shape":
        return getattr(type_of(node.value), "ndim", None)
    if isinstance(node, gast.Subscript) and isinstance(node.slice, gast.Slice):
        base = shape_length(norm, type_of, node.value, seen)
        bounds = [_constant(b) for b in (node.slice.lower, node.slice.upper, node.slice.step)]
        if base is None or any(b is False for b in bounds):
            return None
        return len(range(base)[slice(*bounds)])
    if isinstance(node, gast.BinOp) and isinstance(node.op, gast.Add):
        left = shape_length(norm, type_of, node.left, seen)
        right = shape_length(norm, type_of, node.right, seen)
        return None if left is None or right is None else left + right
    if isinstance(node, gast.Call) and resolve_callee(norm.parsed, node.func,
                                                      norm.extra_names) is np.broadcast_shapes:
        lengths = [shape_length(norm, type_of, a, seen) for a in node.args]
        return None if not lengths or None in lengths else max(lengths)
    if isinstance(node, gast.Call) and len(node.args) == 1 and not node.keywords \
            and resolve_callee(norm.parsed, node.func, norm.extra_names) is np.shape:
        # np.shape(c), the shape of an expression (np.where's condition): its rank
        rank = getattr(type_of(node.args[0]), "ndim", None)
        return 0 if type_of(node.args[0]) in ("float", "int", "bool") else rank
    if isinstance(node, gast.Call) and isinstance(node.func, gast.Attribute) \
            and node.func.attr == "pop" and isinstance(node.func.value, gast.Name) \
            and not node.args and node.func.value.id not in seen:
        # a shape popped from a tape (srcad's reverse code: `s = int_tape.pop()`): the
        # length every shape pushed on that tape has
        return _pushed_length(norm, type_of, node.func.value.id, seen | {node.func.value.id})
    if isinstance(node, gast.Name) and node.id not in seen and node.id not in norm.params:
        seen = seen | {node.id}
        values = [n.value for stmt in norm.body for n in gast.walk(stmt)
                  if isinstance(n, gast.Assign) and len(n.targets) == 1
                  and isinstance(n.targets[0], gast.Name) and n.targets[0].id == node.id]
        lengths = {shape_length(norm, type_of, v, seen) for v in values}
        return lengths.pop() if len(lengths) == 1 else None
    return None


def _pushed_length(norm, type_of, tape, seen) -> int | None:
    """The length of the shapes appended to the list `tape`, when they all have the same
    known length (the other entries, branch flags and trip counts, are ints)."""
    pushed = [n.args[0] for stmt in norm.body for n in gast.walk(stmt)
              if isinstance(n, gast.Call) and isinstance(n.func, gast.Attribute)
              and n.func.attr == "append" and isinstance(n.func.value, gast.Name)
              and n.func.value.id == tape and len(n.args) == 1]
    lengths = {shape_length(norm, type_of, v, seen) for v in pushed if type_of(v) == SHAPE}
    return lengths.pop() if len(lengths) == 1 else None


def _constant(bound):
    """A slice bound as an int (None when absent), or False when it is not a literal."""
    if bound is None:
        return None
    if isinstance(bound, gast.Constant) and isinstance(bound.value, int):
        return bound.value
    if isinstance(bound, gast.UnaryOp) and isinstance(bound.op, gast.USub) \
            and isinstance(bound.operand, gast.Constant) and isinstance(bound.operand.value, int):
        return -bound.operand.value
    return False
