"""Numba backend: a reduction of a chain of elementwise array operations becomes one call of a
loop nest (srcad/runtime/numba_fusion.py), where NumPy's code allocates a temporary array per
operation.

    np.sum(np.exp(a - m))                          ->  fused_sum(a, m)
    reduce_sum_3(lower[None] * x[:, :, None])      ->  fused_sum_3(lower[None], x[:, :, None])
    unbroadcast(-g * z / s, shape)                 ->  fused_unbroadcast(g, z, s, shape)

The reductions fused: `np.sum`, `np.mean`, `np.max`, `np.min` of a whole array, the
`reduce_<kind>_<axes>[_keep]` calls of an axis (srcad/transform/numba_compat.py), and
`unbroadcast(e, shape)` (the adjoint of broadcasting). The chain: `+ - * / **`, unary minus
and NumPy's elementwise functions in `ELEMENTWISE` (and `array_tanh`, `array_exp`,
`array_log`), at least one of them;
any other subexpression (a name, a view `x[:, None]`, `np.broadcast_to(...)`, a matrix
product, a constant that is not a number) is a leaf, computed once before the call and passed
in, so the leaves are evaluated as before, in the same order. Each fused call's statement is
preceded by a comment with the expression it replaces.

What the kernel does with its leaves' types (numba types the call): float64 arrays and
numbers, the loop nest; anything else, the unfused expression (runtime module's docstring).
The python backend's code is not rewritten.
"""

from __future__ import annotations

from dataclasses import dataclass

import gast

from srcad.frontend import syntax as S
from srcad.transform.numba_reductions import reduction_of

ELEMENTWISE = frozenset({"exp", "log", "sqrt", "sin", "cos", "tanh", "abs", "log1p", "expm1"})
_WHOLE = {"sum": "sum", "mean": "mean", "max": "max", "min": "min", "amax": "max",
          "amin": "min"}
_OPERATORS = (gast.Add, gast.Sub, gast.Mult, gast.Div, gast.Pow)
# numba_compat.py's spellings of np.tanh and np.exp of arrays
_ARRAY_SPELLINGS = {"array_tanh": "tanh", "array_exp": "exp", "array_log": "log"}
_SIMPLE = (gast.Assign, gast.AugAssign, gast.AnnAssign, gast.Expr, gast.Return)


@dataclass(frozen=True)
class FusedLoop:
    """What the compiled module binds a fused call's name to: `fused_kernel(...)` of the
    elementwise `expression` of `a0 .. a<arity-1>` and the `reduction` of it."""
    expression: str
    reduction: tuple
    arity: int

    def definition(self) -> str:
        return f"fused_kernel({self.expression!r}, {self.reduction!r}, {self.arity})"

    @staticmethod
    def of(value):
        """The FusedLoop a name is bound to: in the namespace srcad's pipeline gives, or the
        kernel bound in a compiled module (code made from its source again: batched lanes);
        None for any other value."""
        if isinstance(value, FusedLoop):
            return value
        made = getattr(value, "srcad_fused_loop", None)
        return FusedLoop(*made) if isinstance(made, tuple) else None


def fuse_array_chains(tree, namer) -> dict:
    """Rewrite (in place) every fusable reduction in `tree`'s simple statements; return
    {name: FusedLoop} for the names the new calls use."""
    fused = {}
    for node in S.walk(tree):
        for field in ("body", "orelse", "finalbody"):
            block = getattr(node, field, None)
            if isinstance(block, list) and block and isinstance(block[0], gast.stmt):
                setattr(node, field, _fused_block(block, namer, fused))
    return fused


def _fused_block(block, namer, fused):
    out = []
    for stmt in block:
        if isinstance(stmt, _SIMPLE) and not S.is_comment(stmt):
            rewriter = _Reductions(namer, fused)
            rewriter.visit(stmt)
            out += [S.comment(f"one loop nest: {text}") for text in rewriter.replaced]
        out.append(stmt)
    return out


class _Reductions(gast.NodeTransformer):
    def __init__(self, namer, fused):
        self.namer, self.fused, self.replaced = namer, fused, []

    def visit_Call(self, node):
        original = S.unparse_expr(node)
        self.generic_visit(node)
        reduction, operand, rest = _reduction(node)
        if reduction is None or not _elementwise(operand):
            return node
        chain = _Chain()
        expression = chain.template(operand)
        name = kernel_name(self.fused, FusedLoop(expression, reduction, len(chain.leaves)),
                           self.namer, "fused_" + "_".join(
                               str(p).replace("-", "m") for p in _spelled(reduction)))
        self.replaced.append(original)
        return gast.copy_location(S.call(name, *chain.leaves, *rest), node)


def kernel_name(fused: dict, loop: FusedLoop, namer, prefix: str) -> str:
    """The name bound to `loop` in `fused`, or a fresh one bound to it now: one kernel per
    distinct loop in a module (numba compiles each kernel apart)."""
    for name, made in fused.items():
        if made == loop:
            return name
    name = namer.fresh(prefix)
    fused[name] = loop
    return name


def _spelled(reduction):
    if reduction[0] == "unbroadcast":
        return ("unbroadcast",)
    kind, axes, keep = reduction
    axes = ("all",) if axes is None else axes if isinstance(axes, tuple) else (axes,)
    return (kind, *axes) + (("keep",) if keep else ())


def _reduction(node):
    """(reduction, the operand, the extra arguments) of a fusable reduction call, else
    (None, None, None)."""
    f = node.func
    if node.keywords:
        return None, None, None
    if isinstance(f, gast.Name) and f.id == "unbroadcast" and len(node.args) == 2:
        return ("unbroadcast",), node.args[0], [node.args[1]]
    if len(node.args) != 1:
        return None, None, None
    if isinstance(f, gast.Name) and reduction_of(f.id) and reduction_of(f.id)[0] in _WHOLE:
        return reduction_of(f.id), node.args[0], []
    if _np_attribute(f) in _WHOLE:
        return (_WHOLE[f.attr], None, False), node.args[0], []
    return None, None, None


def _np_attribute(f):
    if isinstance(f, gast.Attribute) and isinstance(f.value, gast.Name) and f.value.id == "np":
        return f.attr
    return None


def _elementwise(node) -> bool:
    """An operation the chain computes per element (not a leaf)."""
    if isinstance(node, gast.BinOp):
        return isinstance(node.op, _OPERATORS)
    if isinstance(node, gast.UnaryOp):
        return isinstance(node.op, (gast.USub, gast.UAdd))
    if isinstance(node, gast.Call) and len(node.args) == 1 and not node.keywords:
        return _np_attribute(node.func) in ELEMENTWISE or (
            isinstance(node.func, gast.Name) and node.func.id in _ARRAY_SPELLINGS)
    return False


class _Chain:
    """The template of a chain (its leaves named a0, a1, ...) and the leaves, in the order
    Python evaluates them; a name or a view of names read twice is one leaf."""

    def __init__(self):
        self.leaves, self.seen = [], {}

    def template(self, node) -> str:
        if isinstance(node, gast.BinOp) and _elementwise(node):
            return f"({self.template(node.left)} {_SYMBOL[type(node.op)]} " \
                   f"{self.template(node.right)})"
        if isinstance(node, gast.UnaryOp) and _elementwise(node):
            return f"({'-' if isinstance(node.op, gast.USub) else '+'}" \
                   f"{self.template(node.operand)})"
        if isinstance(node, gast.Call) and _elementwise(node):
            function = _ARRAY_SPELLINGS[node.func.id] if isinstance(node.func, gast.Name) \
                else node.func.attr
            return f"np.{function}({self.template(node.args[0])})"
        if isinstance(node, gast.Constant) and type(node.value) in (int, float):
            return repr(node.value)
        key = S.unparse_expr(node) if _pure(node) else None
        if key is not None and key in self.seen:
            return self.seen[key]
        leaf = f"a{len(self.leaves)}"
        self.leaves.append(node)
        if key is not None:
            self.seen[key] = leaf
        return leaf


def _pure(node) -> bool:
    """Reading it twice gives the same value and has no effect: names, attributes,
    subscripts by constants, names and slices."""
    return all(isinstance(n, (gast.Name, gast.Attribute, gast.Subscript, gast.Slice,
                              gast.Tuple, gast.Constant, gast.expr_context))
               for n in gast.walk(node))


_SYMBOL = {gast.Add: "+", gast.Sub: "-", gast.Mult: "*", gast.Div: "/", gast.Pow: "**"}
