"""What kind of value each variable holds: int, float, bool, or a float array of some rank.

Flow-insensitive: a variable's type is the join over all its assignments. Integers, booleans
and shapes never carry derivatives. Calls srcad has no rule for are refused here.

An array-valued expression is never typed as a number: NumPy functions, arithmetic and
comparisons follow their operands (np.exp(x) of an array is an array of its rank, x @ x of
vectors a float), and so does partial indexing (a row a[i]); indexing with an array (a gather
or a mask) is refused. A function that takes numbers only (math.exp, float, min) is refused an
array argument.
"""

from __future__ import annotations

import types as pytypes
from dataclasses import dataclass

import gast
import numpy as np

from srcad import syntax as S
from srcad.analysis.primitives import array_call, select_rule
from srcad.analysis.shape_lengths import operand_ranks
from srcad.errors import SrcadError, UnsupportedCallError
from srcad.rules import lookup_call
from srcad.rules.table import ELEMENTWISE, SCALAR
from srcad.transform.inline import resolve_callee


@dataclass(frozen=True)
class Array:
    ndim: int
    is_float: bool = True
    is_bool: bool = False  # a mask (a comparison of arrays), for reads `x[mask]`


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
        return Array(value.ndim, value.dtype.kind == "f", value.dtype.kind == "b")
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
    """A float, a float array, or a stack (a tape of generated reverse code) of either."""
    return t == FLOAT or (isinstance(t, Array) and t.is_float) or \
        (isinstance(t, Stack) and is_differentiable(t.element))


def is_differentiable(t) -> bool:
    """Can a value of type `t` carry a derivative (a float, a float array)? Unlike
    `is_float_like`, not a stack."""
    return t == FLOAT or (isinstance(t, Array) and t.is_float)


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


def no_rule_error(norm, call, why="its argument carries a derivative here (a call on "
                  "constants needs no rule)", hint="use math/numpy scalar functions, builtins "
                  "abs/min/max/pow/float/int, or your own plain Python functions"):
    shown = getattr(resolve_callee(norm.parsed, call.func, norm.extra_names), "__name__",
                    None) or _describe(call.func)
    return norm.parsed.error(call, "call", f"srcad has no derivative rule for `{shown}`, and "
                             f"{why}", hint=hint, kind=UnsupportedCallError)


def refuse_active_opaque_calls(norm, types, varied) -> None:
    """A call with no derivative rule whose argument carries a derivative is refused (its
    derivative would silently be zero); on constants it runs as it is."""
    for call in types.opaque_calls.values():
        for arg in list(call.args) + [k.value for k in call.keywords]:
            names = {n.id for n in gast.walk(arg) if isinstance(n, gast.Name)}
            if names & varied and is_float_like(types.of(arg)):
                raise no_rule_error(norm, call)


class Types:
    """Types of all variables of a normalized function, given the argument types."""

    def __init__(self, norm, arg_types: dict, check: bool = True):
        """`check=False` infers without refusing, as far as it gets (a pass that renames
        names of two kinds asks which names those are first: a read of such a name may not
        type until it is renamed)."""
        self.norm = norm
        self.env = dict(arg_types)
        self.mixed: set[str] = set()  # names bound to an array and to a number
        # calls with no derivative rule (a library function): fine on constants; one given
        # a value that carries a derivative is refused after the activity analysis
        self.opaque_calls: dict = {}
        try:
            self._infer()
        except SrcadError:
            if check:
                raise
            return
        if check:
            self._refuse_unknown()

    def _infer(self):
        for _ in range(20):
            before = dict(self.env)
            for stmt in self.norm.body:
                self._stmt(stmt)
            if before == self.env:
                break

    def _refuse_unknown(self):
        """Refuse values srcad cannot see into (attributes of objects, tuples, Fractions...)
        wherever they reach arithmetic: treating them as constants could silently drop a
        derivative."""
        for stmt in self.norm.body:  # first: the cause of a name's mixed kinds below
            for node in gast.walk(stmt):
                if isinstance(node, gast.Assign):
                    self._refuse_array_into_element(node, node.targets[0])
        for stmt in self.norm.body:
            for node in gast.walk(stmt):
                if isinstance(node, (gast.BinOp, gast.UnaryOp, gast.Call)) \
                        or (isinstance(node, gast.Return) and node.value is not None
                            and not isinstance(node.value, gast.Tuple)):
                    self._refuse_opaque(node if not isinstance(node, gast.Return)
                                        else node.value)
                targets = node.targets if isinstance(node, gast.Assign) else \
                    [node.target] if isinstance(node, gast.AugAssign) else []
                for target in targets:
                    if isinstance(target, gast.Subscript) and \
                            isinstance(self.of(target.value), Array) and index_kind(self, target):
                        raise self.norm.parsed.error(
                            node, "array index", f"a write through an index array "
                            f"(`{S.unparse_expr(target)} = ...`)", hint="index arrays and "
                            "masks are supported in reads; write the elements in a loop")
                if isinstance(node, gast.Assign) and isinstance(node.targets[0], gast.Name):
                    name = node.targets[0].id
                    if name in self.mixed:
                        raise self.norm.parsed.error(
                            node, "assignment", f"`{name}` is bound to an array in one place "
                            "and to a number in another", hint="use two names, one for the "
                            "array and one for the number")
                    if self.env.get(name) in (OTHER, None):
                        node = self._culprit(name)  # a later `s += v` may be the cause
                        what = "a tuple" if isinstance(node.value, gast.Tuple) else \
                            "a value of a kind srcad does not handle"
                        raise self.norm.parsed.error(
                            node, "assignment", f"`{name}` holds {what}",
                            hint="srcad handles floats, ints, bools and NumPy arrays; unpack "
                            "tuples directly: a, b = f(x)")

    def _refuse_array_into_element(self, node, target):
        """`y[i] = v` with v an array and y[i] one element (NumPy raises "setting an array
        element with a sequence"): also what appending arrays to a list grown by append
        becomes (such a list is an array of floats)."""
        if not (isinstance(node, gast.Assign) and isinstance(target, gast.Subscript)):
            return
        array, value = self.of(target.value), self.of(node.value)
        if not (isinstance(array, Array) and isinstance(value, Array) and value.ndim >= 1):
            return
        index = target.slice.elts if isinstance(target.slice, gast.Tuple) else [target.slice]
        if len(index) == array.ndim and all(self.of(i) in (INT, BOOL) for i in index):
            name = S.target_name(target) or "the array"
            raise self.norm.parsed.error(
                node, "element write", f"an array is written into one element of `{name}` (a "
                "list grown by append holds floats; an array element holds a number)",
                hint="append floats, or make a 2-D array with np.zeros((n, m)) and write its "
                "rows: a[i] = v")

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
            operands = [e for a in expr.args  # np.stack([a, b]): the listed values
                        for e in (a.elts if isinstance(a, gast.List) else [a])]
        for operand in operands:
            if isinstance(operand, (gast.Constant, gast.Compare, gast.BoolOp, gast.Tuple)):
                continue
            if self.of(operand) == OTHER:
                self._refuse_guessed_type(operand)
                raise self.norm.parsed.error(
                    operand, "opaque value", f"srcad cannot see into `{S.unparse_expr(operand)}` "
                    "(an attribute of an object, a tuple or list element, or a number of an "
                    "unsupported type), so it could not know whether a derivative flows "
                    "through it", hint="pass the value as a float or NumPy array argument")

    def _refuse_guessed_type(self, operand):
        """`lower = np.tri(n)`, then `lower[1, 0]`: the result of a call without a rule was
        taken to be a float, and the code uses it as something else: refused at the call."""
        names = {n.id for n in gast.walk(operand) if isinstance(n, gast.Name)}
        assigns = [n for stmt in self.norm.body for n in gast.walk(stmt)
                   if isinstance(n, gast.Assign) and isinstance(n.targets[0], gast.Name)]
        for _ in range(3):  # through copies: `lower = tri_value` (normalize binds the call)
            names |= {a.value.id for a in assigns if a.targets[0].id in names
                      and isinstance(a.value, gast.Name)}
        for stmt in self.norm.body:
            for node in gast.walk(stmt):
                if isinstance(node, gast.Assign) and isinstance(node.targets[0], gast.Name) \
                        and node.targets[0].id in names and id(node.value) in self.opaque_calls:
                    raise no_rule_error(self.norm, node.value, "srcad runs such a call as it "
                                        "is on constants and takes its result to be a float "
                                        "(or an array of its array arguments' rank), and "
                                        f"`{node.targets[0].id}` is used as something else",
                                        hint="compute it outside the differentiated function "
                                        "and pass it as an argument")

    def __getitem__(self, name):
        return self.env.get(name)

    def _bind(self, target, t):
        if isinstance(target, gast.Name):
            old = self.env.get(target.id)
            if (isinstance(old, Array) and t in NUMERIC) or (old in NUMERIC
                                                             and isinstance(t, Array)):
                self.mixed.add(target.id)
            self.env[target.id] = join(old, t)

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
        if isinstance(op, (gast.BitAnd, gast.BitOr, gast.BitXor)) \
                and all(t == BOOL or (isinstance(t, Array) and t.is_bool) for t in (a, b)) \
                and (isinstance(a, Array) or isinstance(b, Array)):  # masks combined
            return Array(max(t.ndim for t in (a, b) if isinstance(t, Array)), False, True)
        if isinstance(a, Array) or isinstance(b, Array):
            return _array_binop(a, op, b)
        if a in (None, NONE) or b in (None, NONE):  # not known yet (or a None placeholder)
            return b if a in (None, NONE) else a
        if isinstance(op, gast.Div):
            return FLOAT if a in NUMERIC and b in NUMERIC else OTHER
        t = join(a, b)
        return INT if t == BOOL else t

    def _BinOp(self, e):
        if isinstance(e.op, gast.MatMult):
            return self._array_call(e, array_call(self.norm, e))
        return self._binop(self.of(e.left), e.op, self.of(e.right))

    def _UnaryOp(self, e):
        if isinstance(e.op, gast.Not):
            return BOOL
        t = self.of(e.operand)
        return INT if t == BOOL else t

    def _Compare(self, e):
        # comparing arrays compares element by element: a bool array (a mask)
        ranks = [t.ndim for t in map(self.of, [e.left, *e.comparators]) if isinstance(t, Array)]
        return Array(max(ranks), False, True) if ranks and max(ranks) > 0 else BOOL

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
        call = array_call(self.norm, e)  # x.T, np.linalg.slogdet(A).logabsdet
        if call is not None:
            return self._array_call(e, call)
        base = self.of(e.value)
        if isinstance(base, Array):
            return {"shape": SHAPE, "size": INT, "ndim": INT}.get(e.attr, OTHER)
        if base == "module":
            obj = resolve_callee(self.norm.parsed, e, self.norm.extra_names)
            return "module" if isinstance(obj, pytypes.ModuleType) else type_of_value(obj)
        return OTHER

    def _Subscript(self, e):
        base = self.of(e.value)
        if base == SHAPE:  # `x.shape[0]` is an int, `x.shape[:1]` a shape
            return SHAPE if isinstance(e.slice, gast.Slice) else INT
        if base == RANGE:
            return RANGE
        if isinstance(base, Array):
            # an int index drops an axis, a slice keeps it, None (np.newaxis) adds one
            parts = e.slice.elts if isinstance(e.slice, gast.Tuple) else [e.slice]
            new = sum(1 for p in parts if is_new_axis(p))
            kinds = [self.of(p) for p in parts]
            if any(t is None for t in kinds):
                return None  # not yet known in this fixpoint round
            if any(isinstance(p, gast.Constant) and p.value is Ellipsis for p in parts):
                raise self.norm.parsed.error(
                    e, "array index", f"`{S.unparse_expr(e)}` indexes with an ellipsis",
                    hint="write the slices out: x[:, 0] for x[..., 0]")
            if getattr(e.slice, "chained", False) and isinstance(kinds[0], Array):
                raise self.norm.parsed.error(
                    e, "array index", f"`{S.unparse_expr(e.value)}[{S.unparse_expr(parts[0])}]"
                    f"[{S.unparse_expr(parts[1])}]` indexes the result of an index array",
                    hint="bind the gathered array to a name first: y = x[idx]; y[j]")
            if any(isinstance(t, Array) for t in kinds):
                return gathered_type(self, e, base, parts, kinds)
            k = sum(1 for p in parts if not isinstance(p, gast.Slice)) - new
            if k >= base.ndim + new:
                return FLOAT if base.is_float else INT
            return Array(base.ndim + new - k, base.is_float)
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
        call = array_call(self.norm, e)
        if call is not None:
            return self._array_call(e, call)
        obj = resolve_callee(self.norm.parsed, func, self.norm.extra_names)
        info = lookup_call(obj) if obj is not None else None
        if info is None:
            if obj is None or not callable(obj):
                raise no_rule_error(self.norm, e)
            # a library call with no rule runs as it is on constants; it is taken to return
            # a float, or a float array of the rank of its array arguments
            self.opaque_calls[id(e)] = e
            kinds = [self.of(a) for a in e.args]
            if any(k is None for k in kinds):
                return None
            ranks = [k.ndim for k in kinds if isinstance(k, Array)]
            return Array(max(ranks), True) if ranks else FLOAT
        if info.name == "slogdet":  # a pair: only its parts `.sign`, `.logabsdet` are values
            return OTHER
        arrays = [t for t in map(self.of, e.args) if isinstance(t, Array)]
        if arrays and info.arrays == ELEMENTWISE:
            return self._mapped(info, e, arrays)
        if arrays and info.arrays == SCALAR and max(a.ndim for a in arrays) > 0:
            shown = getattr(obj, "__name__", None) or _describe(func)
            raise self.norm.parsed.error(
                e, "call", f"`{shown}` takes numbers, and `{S.unparse_expr(e)}` passes it an "
                "array", hint="apply it to one element at a time in a loop (x[i])")
        if info.result == "same" or (info.name == "round" and len(e.args) == 2):
            t = None  # round(x, 2) is a float for a float x, like abs, min, max and pow
            for a in e.args[:1] if info.name == "round" else e.args:
                t = join(t, self.of(a))
            return INT if t == BOOL else t
        if info.result == "array":
            return self._constructed(info, e)
        return {"float": FLOAT, "int": INT, "bool": BOOL, "range": RANGE, "shape": SHAPE,
                "other": OTHER}[info.result]

    def _array_call(self, e, call):
        """The type of an array primitive's result: the broadcast rank of an elementwise
        rule's operands, the rank a reduction or product rule states; rank 0 is a float."""
        operands = [self.of(o) for o in call.operands]
        if any(t is None for t in operands):
            return None  # not yet known in this fixpoint round
        ranks = operand_ranks(self.norm, self.of, call.operands)  # a shape: its length
        rule = select_rule(self.norm, e, call, ranks)  # refuses what has no rule, by name
        if any(t not in NUMERIC and not isinstance(t, Array) and not (
                p is None and (t == SHAPE or isinstance(o, gast.Tuple)))  # a shape operand
               for t, p, o in zip(operands, rule.partials, call.operands)):
            return OTHER
        rank = max(ranks) if rule.elementwise else rule.rank
        return Array(rank, True) if rank > 0 else FLOAT

    def _mapped(self, info, e, arrays):
        """The type of an elementwise call with array arguments (np.exp(x), abs(x)): an
        array of the broadcast rank; a float array unless every operand is an int."""
        ndim = max(a.ndim for a in arrays)
        if info.result == "float" or any(a.is_float for a in arrays):
            is_float = True
        else:
            is_float = any(self.of(a) == FLOAT for a in e.args)
        return Array(ndim, is_float) if ndim > 0 else (FLOAT if is_float else INT)

    def _constructed(self, info, e):
        is_float = not any(k.arg == "dtype" and _is_int_dtype(k.value) for k in e.keywords)
        if info.name in ("eye", "identity"):
            return Array(2, is_float)
        if info.name.endswith("_like") or info.name == "copy":
            base = self.of(e.args[0]) if e.args else None
            ndim = base.ndim if isinstance(base, Array) else 1
            if isinstance(base, Array) and not any(k.arg == "dtype" for k in e.keywords):
                return Array(ndim, base.is_float)  # np.zeros_like(idx) is an int array too
            return Array(ndim, is_float)
        if info.name in ("full", "full_like") and len(e.args) > 1 \
                and self.of(e.args[1]) in (INT, BOOL) and not e.keywords:
            is_float = False  # np.full(n, 3) holds ints
        if info.name in ("eye", "identity"):
            return Array(2, is_float)
        if info.name in ("arange", "linspace"):  # np.arange(n) of ints holds ints
            return Array(1, is_float and (info.name == "linspace" or _has_float(self, e)))
        shape = e.args[0] if e.args else None
        if isinstance(shape, gast.Tuple):
            return Array(len(shape.elts), is_float)
        if isinstance(shape, gast.Name) and self.of(shape) == SHAPE:
            # `shp = x.shape; np.zeros(shp)`: the rank of the arrays shp was taken from
            shape = self._shape_sources(shape.id)
        if isinstance(shape, gast.Attribute) and shape.attr == "shape":
            base = self.of(shape.value)
            return Array(base.ndim if isinstance(base, Array) else 1, is_float)
        if shape is None or self.of(shape) in (INT, BOOL, None):
            return Array(1, is_float)
        return OTHER  # a shape srcad cannot see (a tuple variable): refused where used

    def _shape_sources(self, name):
        """The `x.shape` a shape variable is bound to, when every binding is one of the same
        rank; else None."""
        sources = [n.value for stmt in self.norm.body for n in gast.walk(stmt)
                   if isinstance(n, gast.Assign) and isinstance(n.targets[0], gast.Name)
                   and n.targets[0].id == name]
        ranks = {getattr(self.of(v.value), "ndim", None) if isinstance(v, gast.Attribute)
                 and v.attr == "shape" else None for v in sources}
        return sources[0] if sources and len(ranks) == 1 and None not in ranks else None


def _array_binop(a, op, b) -> Array | str:
    """`a op b` with an array operand: broadcasting gives the larger rank, `@` contracts
    (a vector @ a vector is a number); int arrays stay int under + - * // % **."""
    rank = {t: (t.ndim if isinstance(t, Array) else 0) for t in (a, b)}
    ndim = max(rank.values())
    if isinstance(op, gast.MatMult):
        ndim = rank[b] - 1 if rank[a] == 1 else rank[a] - 1 if rank[b] == 1 else ndim
    is_float = isinstance(op, gast.Div) or any(
        (t.is_float if isinstance(t, Array) else t == FLOAT) for t in (a, b))
    if ndim == 0:
        return FLOAT if is_float else INT
    return Array(ndim, is_float)


def _has_float(types, call) -> bool:
    """Does a call have a float argument or a float dtype (np.arange(0.0, 1.0, 0.1))?"""
    return any(types.of(a) == FLOAT for a in call.args) or \
        any(k.arg == "dtype" and "float" in gast.dump(k.value) for k in call.keywords)


def is_new_axis(node) -> bool:
    return (isinstance(node, gast.Constant) and node.value is None) or \
        (isinstance(node, gast.Attribute) and node.attr == "newaxis")


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


from srcad.analysis.index_types import gathered_type, index_kind  # noqa: E402  (needs Array)

__all__ = ["Array", "Types", "index_kind"]
