"""Algebraic clean-up of rule instances, so generated code reads like hand-written code:
constant folding, `1.0 * g` -> `g`, `x ** 1` -> `x`, `-(-g)` -> `g`, and the tangents of
the listed arrays of a join merged into one join:
`np.stack((a_dot, np.zeros(b.shape)), axis=0) + np.stack((np.zeros(a.shape), b_dot), axis=0)`
-> `np.stack((a_dot, b_dot), axis=0)`.
"""

from __future__ import annotations

import gast

from srcad.frontend import syntax as S
from srcad.frontend.transformer import Transformer

_FOLD = {gast.Add: lambda a, b: a + b, gast.Sub: lambda a, b: a - b,
         gast.Mult: lambda a, b: a * b, gast.Pow: lambda a, b: a ** b}


def _num(node):
    if isinstance(node, gast.Constant) and isinstance(node.value, (int, float)) \
            and not isinstance(node.value, bool):
        return node.value
    return None


class _Simplify(Transformer):
    def __init__(self, integers: bool):
        self.integers = integers

    def visit_BinOp(self, node):
        self.generic_visit(node)
        a, b = _num(node.left), _num(node.right)
        op = type(node.op)
        if a is not None and b is not None and op in _FOLD:
            try:
                return S.const(_FOLD[op](a, b))
            except (OverflowError, ZeroDivisionError):
                return node
        if op is gast.Mult:
            if a == 1:
                return node.right
            if b == 1:
                return node.left
            if a == -1:
                return gast.UnaryOp(op=gast.USub(), operand=node.right)
            if b == -1:
                return gast.UnaryOp(op=gast.USub(), operand=node.left)
        if op is gast.Div and b == 1:
            return node.left
        if op is gast.Pow and b == 1:
            return node.left
        if op in (gast.Add, gast.Sub) and b == 0:
            return node.left
        if op is gast.Add and _same_product(node.left, node.right) \
                and not _shape_like(node.left):  # g*s + s*g -> 2.0 * g*s (not of shapes)
            two = S.const(2 if self.integers else 2.0)
            return gast.BinOp(left=two, op=gast.Mult(), right=node.left)
        if op is gast.Add and all(_literal_tuple(n) for n in (node.left, node.right)):
            # `() + (2,)`: the shape of a number's rule result, written out
            return gast.Tuple(elts=node.left.elts + node.right.elts, ctx=gast.Load())
        if op is gast.Add:
            merged = _merged_join(node.left, node.right)
            if merged is not None:
                return merged
        if op in (gast.Add, gast.Sub) and isinstance(node.right, gast.UnaryOp) \
                and isinstance(node.right.op, gast.USub):  # a + -b -> a - b
            flipped = gast.Sub() if op is gast.Add else gast.Add()
            return gast.BinOp(left=node.left, op=flipped, right=node.right.operand)
        return node

    def visit_Subscript(self, node):
        """`()[:0]`, `(2, 3)[1:]`: a constant slice of a tuple written out, written out (the
        shape of a number is `()` in a rule's shape template `x_shape[:1] + ...`)."""
        self.generic_visit(node)
        bounds = [_int_or_none(b) for b in (node.slice.lower, node.slice.upper,
                                             node.slice.step)] \
            if isinstance(node.slice, gast.Slice) else [False]
        if not _literal_tuple(node.value) or any(b is False for b in bounds):
            return node
        return gast.Tuple(elts=node.value.elts[slice(*bounds)], ctx=gast.Load())

    def visit_UnaryOp(self, node):
        self.generic_visit(node)
        if isinstance(node.op, gast.USub):
            inner = node.operand
            if isinstance(inner, gast.UnaryOp) and isinstance(inner.op, gast.USub):
                return inner.operand
            stripped = _strip_negation(inner)  # -(-a * b) -> a * b
            if stripped is not None:
                return stripped
            v = _num(inner)
            if v is not None:
                return S.const(-v)
        return node


def _strip_negation(node):
    """`a * b` for `-a * b` (the leftmost factor negated), else None."""
    if isinstance(node, gast.UnaryOp) and isinstance(node.op, gast.USub):
        return node.operand
    if isinstance(node, gast.BinOp) and isinstance(node.op, (gast.Mult, gast.Div)):
        left = _strip_negation(node.left)
        if left is not None:
            return gast.BinOp(left=left, op=node.op, right=node.right)
    return None


def _literal_tuple(node) -> bool:
    return isinstance(node, gast.Tuple) and not any(isinstance(e, gast.Starred)
                                                    for e in node.elts)


def _int_or_none(node):
    """A slice bound: None when absent, its int when a literal int, else False."""
    if node is None:
        return None
    value = _num(node)
    return value if type(value) is int else False


def shape_value(node):
    """`node`, marked as a shape (a rule's `x_shape`): a name that holds one (`z_shape` taped,
    `shape` of np.broadcast_shapes) looks like any other name, and `s + s` of it (np.outer's
    `x_shape + y_shape` of the same operand twice) is a tuple concatenation, never `2.0 * s`."""
    node.holds_shape = True
    return node


def _shape_like(node) -> bool:
    """Does `node` read a shape (`x.shape`, `x.shape[0]`, a tuple, a name `shape_value`
    marked)? `s + s` is then a tuple concatenation or an int: never `2.0 * s`."""
    return any(isinstance(n, gast.Tuple) or (isinstance(n, gast.Attribute) and n.attr == "shape")
               or getattr(n, "holds_shape", False) for n in gast.walk(node))


_JOINS = ("np.concatenate", "np.stack")


def _is_zero(node) -> bool:
    return _num(node) == 0 or (isinstance(node, gast.Call) and not node.keywords
                               and S.unparse_expr(node.func) == "np.zeros")


def _merged_join(a, b):
    """`join((x, 0), axis) + join((0, y), axis)` as `join((x, y), axis)` (same join, same
    axis, a zero on one side at every position), else None."""
    if not all(isinstance(n, gast.Call) and len(n.args) == 1 and isinstance(n.args[0], gast.Tuple)
               and S.unparse_expr(n.func) in _JOINS for n in (a, b)):
        return None
    if S.unparse_expr(a.func) != S.unparse_expr(b.func) \
            or [gast.dump(k) for k in a.keywords] != [gast.dump(k) for k in b.keywords] \
            or len(a.args[0].elts) != len(b.args[0].elts):
        return None
    parts = []
    for x, y in zip(a.args[0].elts, b.args[0].elts):
        if not (_is_zero(x) or _is_zero(y)):
            return None
        parts.append(y if _is_zero(x) else x)
    return gast.Call(func=a.func, args=[gast.Tuple(elts=parts, ctx=gast.Load())],
                     keywords=a.keywords)


def _same_product(a, b) -> bool:
    if S.same(a, b):
        return True
    return (isinstance(a, gast.BinOp) and isinstance(b, gast.BinOp)
            and isinstance(a.op, gast.Mult) and isinstance(b.op, gast.Mult)
            and S.same(a.left, b.right) and S.same(a.right, b.left))


def simplify(expr, integers: bool = False):
    """Simplify an expression tree. With `integers` (tape sizes, loop bounds, trip counts) the
    result stays an int where the expression is one: `n + n` is `2 * n`, not `2.0 * n`.

    >>> S.unparse_expr(simplify(S.parse_expr("g * 2 * x ** (2 - 1)")))
    'g * 2 * x'
    >>> S.unparse_expr(simplify(S.parse_expr("1 * len(r) + 1 * len(r)"), integers=True))
    '2 * len(r)'
    >>> S.unparse_expr(simplify(S.parse_expr("()[:0] + (2,) + ()[0:]")))
    '(2,)'
    """
    return _Simplify(integers).visit(expr)


def scale_first(product):
    """`h * (e / 2.0)` (h a number, e an array) as `h / 2.0 * e`: the two numbers divided
    once, then one pass over the array instead of two.

    >>> S.unparse_expr(scale_first(S.parse_expr("h * (g / 2.0)")))
    'h / 2.0 * g'
    >>> S.unparse_expr(scale_first(S.parse_expr("g / 6.0 * h")))
    'h / 6.0 * g'
    """
    if not (isinstance(product, gast.BinOp) and isinstance(product.op, gast.Mult)):
        return product
    for scale, quotient in ((product.left, product.right), (product.right, product.left)):
        if isinstance(quotient, gast.BinOp) and isinstance(quotient.op, gast.Div) \
                and isinstance(quotient.right, gast.Constant) and S.is_leaf(scale):
            return gast.BinOp(left=gast.BinOp(left=scale, op=gast.Div(), right=quotient.right),
                              op=gast.Mult(), right=quotient.left)
    return product
