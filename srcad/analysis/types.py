"""What kind of value each variable holds: int, float, bool, or a float array of some rank.

Flow-insensitive: a variable's type is the join over all its assignments. Integers, booleans
and shapes never carry derivatives. Calls srcad has no rule for are refused (the refusals:
srcad/analysis/type_refusals.py; the kinds of value: srcad/analysis/value_types.py).

An array-valued expression is never typed as a number: NumPy functions, arithmetic and
comparisons follow their operands (np.exp(x) of an array is an array of its rank, x @ x of
vectors a float), and so does partial indexing (a row a[i]); indexing with an array (a gather
or a mask) is refused. A function that takes numbers only (math.exp, float, min) is refused an
array argument.
"""

from __future__ import annotations

import types as pytypes

import gast

from srcad.analysis.index_types import gathered_type, holds_ints, index_kind, refuse_scalar_index
from srcad.analysis.integer_calls import integer_call_type
from srcad.analysis.primitives import array_call, effect_call, effect_operands, select_rule
from srcad.analysis.shape_lengths import operand_ranks
from srcad.analysis.type_refusals import (
    TypeRefusals,
    _describe,
    no_rule_error,
    refuse_active_opaque_calls,
)
from srcad.analysis.value_types import (
    BOOL,
    FLOAT,
    INT,
    NONE,
    NUMERIC,
    OTHER,
    RANGE,
    SHAPE,
    Array,
    Stack,
    array_binop,
    is_differentiable,
    is_float_like,
    is_new_axis,
    join,
    stack_call,
    type_of_value,
)
from srcad.errors import SrcadError
from srcad.frontend import syntax as S
from srcad.frontend.parse import resolve_callee
from srcad.rules import lookup_call
from srcad.rules.call_info import ELEMENTWISE, SCALAR


class Types(TypeRefusals):
    """Types of all variables of a normalized function, given the argument types."""

    def __init__(self, norm, arg_types: dict, check: bool = True):
        """`check=False` infers without refusing, as far as it gets (a pass that renames
        names of two kinds asks which names those are first: a read of such a name may not
        type until it is renamed)."""
        self.norm = norm
        self.check = check
        self.env = dict(arg_types)
        self.mixed: set[str] = set()  # names bound to an array and to a number
        # calls with no derivative rule (a library function): fine on constants; one given
        # a value that carries a derivative is refused after the activity analysis
        self.opaque_calls: dict = {}
        self.effect_calls: dict = {}  # other calls made for their effect (`z.fill(c)`)
        self.refused_calls: set = set()  # ids of opaque calls refused already (`check`)
        self.refusal: SrcadError | None = None  # `check=False`: where the inference stopped
        try:
            self._infer()
        except SrcadError as err:
            if check:
                raise
            self.refusal = err
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
        for node in S.statements_in_order(stmt):
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
            elif isinstance(node, gast.Expr) and (effect := effect_call(self.norm, node.value)):
                # a call made for its effect (`np.copyto(z, x)`, `z.fill(c)`) may write into
                # what it receives: kept, and refused after the activity analysis when any of
                # that carries a derivative (`np.add.at` has a rule; print writes nothing)
                for operand in effect_operands(node.value):
                    self.of(operand)
                if effect == "call":
                    self.effect_calls[id(node.value)] = node.value

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
            return array_binop(a, op, b)
        if a in (None, NONE) or b in (None, NONE):  # not known yet (or a None placeholder)
            return b if a in (None, NONE) else a
        if isinstance(op, gast.Div):
            return FLOAT if a in NUMERIC and b in NUMERIC else OTHER
        t = join(a, b)
        return INT if t == BOOL else t

    def _BinOp(self, e):
        if isinstance(e.op, gast.MatMult):
            return self._array_call(e, array_call(self.norm, e))
        left, right = self.of(e.left), self.of(e.right)  # once each: chains of + nest deep
        if isinstance(e.op, gast.Add) and SHAPE in (left, right) \
                and all(self._shape_part(side, kind)
                        for side, kind in ((e.left, left), (e.right, right))):
            return SHAPE  # `x.shape[:1] + (n,)`, in srcad's own broadcasting code
        return self._binop(left, e.op, right)

    def _shape_part(self, e, kind) -> bool:
        """A shape (`kind`: e's type), or a tuple written out of ints (`(x.shape[1],)`)."""
        return kind == SHAPE or (isinstance(e, gast.Tuple) and all(
            self.of(v) in (INT, BOOL) for v in e.elts))

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
            refuse_scalar_index(self, e, base, parts, kinds)
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
        if call is not None and call.info.name not in ("full", "full_like"):
            return self._array_call(e, call)  # np.full's type: its shape and dtype=, below
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
            if obj in (sum, max, min) and len(kinds) == 1 and ranks == [1]:
                return FLOAT  # sum(w) of a 1-D array (a constant: else refused) is a number
            return Array(max(ranks), True) if ranks else FLOAT
        if info.result == "other":  # a tuple (slogdet, eigh, svd): only its parts are values
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
        if info.result == "integers":  # np.argmax(x), np.isclose(a, b): constants
            return integer_call_type(self.of, e)
        if info.result == "first":  # grown(buffer, count): the buffer's type
            return self.of(e.args[0])
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
        for o, p in zip(call.operands, rule.partials):
            if self.check and p is not None and isinstance(o, (gast.Tuple, gast.List)) \
                    and any(is_float_like(self.of(v)) for v in _literal_leaves(o)):
                raise self.norm.parsed.error(  # its derivative would silently be 0
                    o, "tuple", f"`{S.unparse_expr(o)}` passed to `{call.info.name}` holds "
                    "values srcad does not make an array of", hint="pass np.array([...]) "
                    "of floats or of arrays of one shape")
        if any(t not in NUMERIC and not isinstance(t, Array) and not (
                p is None and (t == SHAPE or isinstance(o, gast.Tuple)))  # a shape operand
               for t, p, o in zip(operands, rule.partials, call.operands)):
            return OTHER
        rank = max(ranks) if rule.elementwise else rule.rank
        if rank > 0 and call.info.sequence and call.info.name == "array" \
                and holds_ints(self.of, call.operands):
            return Array(rank, False)  # np.array([0, 2, 2]): an index array, as NumPy makes
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


def _has_float(types, call) -> bool:
    """Does a call have a float argument or a float dtype (np.arange(0.0, 1.0, 0.1))?"""
    return any(types.of(a) == FLOAT for a in call.args) or \
        any(k.arg == "dtype" and "float" in gast.dump(k.value) for k in call.keywords)


def _is_int_dtype(node) -> bool:
    text = gast.dump(node)
    return "int" in text or "bool" in text


# what other modules import from here: the value types (srcad/analysis/value_types.py) and the
# refusals (srcad/analysis/type_refusals.py) beside the inference
__all__ = ["BOOL", "FLOAT", "INT", "NONE", "OTHER", "RANGE", "SHAPE", "Array", "Stack", "Types",
           "index_kind", "is_differentiable", "is_float_like", "is_new_axis", "join",
           "refuse_active_opaque_calls", "stack_call", "type_of_value"]


def _literal_leaves(literal) -> list:
    """The values of a tuple or list literal, nested literals opened (`((x, 1.0), (2.0, y))`:
    x, 1.0, 2.0, y)."""
    leaves = []
    for e in literal.elts:
        leaves += _literal_leaves(e) if isinstance(e, (gast.Tuple, gast.List)) else [e]
    return leaves
