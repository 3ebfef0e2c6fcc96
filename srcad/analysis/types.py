"""What kind of value each variable holds: int, float, bool, or a float array of some rank.

Flow-insensitive: a variable's type is the join over all its assignments. Integers, booleans
and shapes never carry derivatives. Calls srcad has no rule for are refused here.
"""

from __future__ import annotations

import types as pytypes
from dataclasses import dataclass

import gast
import numpy as np

from srcad import syntax as S
from srcad.errors import UnsupportedCallError
from srcad.rules import lookup_call
from srcad.transform.inline import resolve_callee


@dataclass(frozen=True)
class Array:
    ndim: int
    is_float: bool = True


@dataclass(frozen=True)
class Stack:
    """A list used as a stack (`tape = []`, `.append`, `.pop()`), as in srcad's own
    generated reverse code, which can thus be differentiated again."""

    element: object = None


INT, FLOAT, BOOL, NONE = "int", "float", "bool", "none"
SHAPE, RANGE, OTHER = "shape", "range", "other"
NUMERIC = {BOOL: 0, INT: 1, FLOAT: 2}


def type_of_value(value):
    """The srcad type of a runtime argument value."""
    if isinstance(value, (bool, np.bool_)):
        return BOOL
    if isinstance(value, (int, np.integer)):
        return INT
    if isinstance(value, (float, np.floating)):
        return FLOAT
    if isinstance(value, np.ndarray):
        return Array(value.ndim, value.dtype.kind == "f")
    if value is None:
        return NONE
    return OTHER


def join(a, b):
    if a is None:
        return b
    if b is None or a == b:
        return a
    if a in NUMERIC and b in NUMERIC:
        return a if NUMERIC[a] >= NUMERIC[b] else b
    if isinstance(a, Stack) and isinstance(b, Stack):
        return Stack(join(a.element, b.element))
    if a == NONE:
        return b
    if b == NONE:
        return a
    return OTHER


def is_float_like(t) -> bool:
    return t == FLOAT or (isinstance(t, Array) and t.is_float) or \
        (isinstance(t, Stack) and t.element == FLOAT)


def stack_call(node):
    """(stack name, method) for `name.append(v)`, `name.pop()` and `float(name.pop())`, else
    None."""
    if isinstance(node, gast.Call) and isinstance(node.func, gast.Name) \
            and node.func.id == "float" and len(node.args) == 1:
        node = node.args[0]
    if isinstance(node, gast.Call) and isinstance(node.func, gast.Attribute) \
            and node.func.attr in ("append", "pop") and isinstance(node.func.value, gast.Name):
        return node.func.value.id, node.func.attr
    return None


class Types:
    """Types of all variables of a normalized function, given the argument types."""

    def __init__(self, norm, arg_types: dict):
        self.norm = norm
        self.env = dict(arg_types)
        for _ in range(20):
            before = dict(self.env)
            for stmt in norm.body:
                self._stmt(stmt)
            if before == self.env:
                break
        self._refuse_unknown()

    def _refuse_unknown(self):
        """Refuse values srcad cannot see into (attributes of objects, tuples, Fractions...)
        wherever they reach arithmetic: treating them as constants could silently drop a
        derivative."""
        for stmt in self.norm.body:
            for node in gast.walk(stmt):
                if isinstance(node, (gast.BinOp, gast.UnaryOp, gast.Call)) \
                        or (isinstance(node, gast.Return) and node.value is not None
                            and not isinstance(node.value, gast.Tuple)):
                    self._refuse_opaque(node if not isinstance(node, gast.Return)
                                        else node.value)
                if isinstance(node, gast.Assign) and isinstance(node.targets[0], gast.Name):
                    name = node.targets[0].id
                    if self.env.get(name) in (OTHER, None):
                        node = self._culprit(name)  # a later `s += v` may be the cause
                        what = "a tuple" if isinstance(node.value, gast.Tuple) else \
                            "a value of a kind srcad does not handle"
                        raise self.norm.parsed.error(
                            node, "assignment", f"`{name}` holds {what}",
                            hint="srcad handles floats, ints, bools and NumPy arrays; unpack "
                            "tuples directly: a, b = f(x)")

    def _culprit(self, name):
        """The assignment to `name` to blame: the first whose own value is opaque (not the
        first assignment, `s = 0.0`, when a later one makes `s` opaque)."""
        assigns = [n for stmt in self.norm.body for n in gast.walk(stmt)
                   if isinstance(n, (gast.Assign, gast.AugAssign))
                   and isinstance(n.targets[0] if isinstance(n, gast.Assign) else n.target,
                                  gast.Name)
                   and S.target_name(n.targets[0] if isinstance(n, gast.Assign)
                                     else n.target) == name]
        return next((n for n in assigns if self.of(n.value) in (OTHER, None)), assigns[0])

    def _refuse_opaque(self, expr):
        operands = [expr]
        if isinstance(expr, gast.BinOp):
            operands = [expr.left, expr.right]
        elif isinstance(expr, gast.UnaryOp):
            operands = [expr.operand]
        elif isinstance(expr, gast.Call):
            if stack_call(expr) or (isinstance(expr.func, gast.Attribute)
                                    and expr.func.attr == "copy"):
                return
            operands = list(expr.args)
        for operand in operands:
            if isinstance(operand, (gast.Constant, gast.Compare, gast.BoolOp, gast.Tuple)):
                continue
            if self.of(operand) == OTHER:
                raise self.norm.parsed.error(
                    operand, "opaque value", f"srcad cannot see into `{S.unparse_expr(operand)}` "
                    "(an attribute of an object, a tuple or list element, or a number of an "
                    "unsupported type), so it could not know whether a derivative flows "
                    "through it", hint="pass the value as a float or NumPy array argument")

    def __getitem__(self, name):
        return self.env.get(name)

    def _bind(self, target, t):
        if isinstance(target, gast.Name):
            self.env[target.id] = join(self.env.get(target.id), t)

    def _stmt(self, stmt):
        for node in gast.walk(stmt):
            if isinstance(node, gast.Assign):
                t = self.of(node.value)
                for target in node.targets:
                    self._bind(target, t)
            elif isinstance(node, gast.AugAssign):
                if isinstance(node.target, gast.Name):
                    t = self._binop(self.of(node.target), node.op, self.of(node.value))
                    self._bind(node.target, t)
            elif isinstance(node, gast.For):
                self._bind(node.target, INT)
            elif isinstance(node, gast.Expr) and stack_call(node.value) and node.value.args:
                stack = stack_call(node.value)[0]
                self._bind(S.name(stack, store=True), Stack(self.of(node.value.args[0])))

    # -- expressions ---------------------------------------------------------------------------
    def of(self, e):
        method = getattr(self, "_" + type(e).__name__, None)
        return method(e) if method else OTHER

    def _Constant(self, e):
        v = e.value
        return type_of_value(v) if not isinstance(v, str) else OTHER

    def _Name(self, e):
        if e.id in self.env:
            return self.env[e.id]
        try:
            obj = self.norm.resolve(e.id)
        except KeyError:
            return None  # not yet bound in this fixpoint round
        return "module" if isinstance(obj, pytypes.ModuleType) else type_of_value(obj)

    def _binop(self, a, op, b):
        if isinstance(a, Array) or isinstance(b, Array):
            arr = a if isinstance(a, Array) else b
            return Array(arr.ndim, True)
        if a in (None, NONE) or b in (None, NONE):  # not known yet (or a None placeholder)
            return b if a in (None, NONE) else a
        if isinstance(op, gast.Div):
            return FLOAT if a in NUMERIC and b in NUMERIC else OTHER
        t = join(a, b)
        return INT if t == BOOL else t

    def _BinOp(self, e):
        return self._binop(self.of(e.left), e.op, self.of(e.right))

    def _UnaryOp(self, e):
        if isinstance(e.op, gast.Not):
            return BOOL
        t = self.of(e.operand)
        return INT if t == BOOL else t

    def _Compare(self, e):
        return BOOL

    def _BoolOp(self, e):
        t = None
        for v in e.values:
            t = join(t, self.of(v))
        return t

    def _IfExp(self, e):
        return join(self.of(e.body), self.of(e.orelse))

    def _Tuple(self, e):
        return OTHER

    def _Attribute(self, e):
        base = self.of(e.value)
        if isinstance(base, Array):
            return {"shape": SHAPE, "size": INT, "ndim": INT}.get(e.attr, OTHER)
        if base == "module":
            obj = resolve_callee(self.norm.parsed, e, self.norm.extra_names)
            return "module" if isinstance(obj, pytypes.ModuleType) else type_of_value(obj)
        return OTHER

    def _Subscript(self, e):
        base = self.of(e.value)
        if base == SHAPE:
            return INT
        if base == RANGE:
            return RANGE
        if isinstance(base, Array):
            k = len(e.slice.elts) if isinstance(e.slice, gast.Tuple) else 1
            if k >= base.ndim:
                return FLOAT if base.is_float else INT
            return Array(base.ndim - k, base.is_float)
        return OTHER if base is not None else None

    def _List(self, e):
        return Stack() if not e.elts else OTHER

    def _Call(self, e):
        func = e.func
        method = stack_call(e)
        if method is not None and isinstance(self.env.get(method[0]), Stack):
            return self.env[method[0]].element if method[1] == "pop" else NONE
        if isinstance(func, gast.Attribute) and func.attr == "copy" and not e.args:
            base = self.of(func.value)
            if isinstance(base, Array):
                return base
        obj = resolve_callee(self.norm.parsed, func, self.norm.extra_names)
        info = lookup_call(obj) if obj is not None else None
        if info is None:
            shown = getattr(obj, "__name__", None) or _describe(func)
            raise self.norm.parsed.error(
                e, "call", f"srcad has no derivative rule for `{shown}`",
                hint="use math/numpy scalar functions, builtins abs/min/max/pow/float/int, or "
                "your own plain Python functions", kind=UnsupportedCallError)
        if info.result == "same":
            t = None
            for a in e.args:
                t = join(t, self.of(a))
            return INT if t == BOOL else t
        if info.result == "array":
            return self._constructed(info, e)
        return {"float": FLOAT, "int": INT, "bool": BOOL, "range": RANGE}[info.result]

    def _constructed(self, info, e):
        is_float = not any(k.arg == "dtype" and _is_int_dtype(k.value) for k in e.keywords)
        if info.name.endswith("_like") or info.name == "copy":
            base = self.of(e.args[0]) if e.args else None
            ndim = base.ndim if isinstance(base, Array) else 1
            return Array(ndim, is_float and (not isinstance(base, Array) or base.is_float
                                             or not info.name == "copy"))
        shape = e.args[0] if e.args else None
        if isinstance(shape, gast.Tuple):
            return Array(len(shape.elts), is_float)
        if isinstance(shape, gast.Attribute) and shape.attr == "shape":
            base = self.of(shape.value)
            return Array(base.ndim if isinstance(base, Array) else 1, is_float)
        return Array(1, is_float)


def _is_int_dtype(node) -> bool:
    text = gast.dump(node)
    return "int" in text or "bool" in text


def _describe(func) -> str:
    if isinstance(func, gast.Name):
        return func.id
    if isinstance(func, gast.Attribute):
        base = func.value
        if isinstance(base, (gast.Name, gast.Attribute)):
            return _describe(base) + "." + func.attr
        return f"({S.unparse_expr(base)}).{func.attr}"  # not the tree's node names (BinOp)
    return S.unparse_expr(func)
