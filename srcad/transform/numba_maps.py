"""Numba backend: a chain of two or more elementwise operations on arrays becomes one call of a
loop nest writing the result (srcad/runtime/numba_fusion.py's `("map",)` kernel), where NumPy's
code allocates a temporary array and makes a pass over memory per operation.

    add_bar = hidden_bar * (1.0 - tanh * tanh)   ->  add_bar = fused_map(hidden_bar, tanh)
    h = array_tanh(array_matmul(W, h) + b)       ->  h = fused_map(array_matmul(W, h), b)

A chain is fused where one of its leaves is known to be an array: a name the primal's types
say is an array (or its adjoint), a name bound before to such an expression, a view with a
slice or `None` in its index, `np.expand_dims` or `broadcast_view` of anything, a matrix
product of a matrix by an array. Chains of
numbers stay as they are (a call per scalar expression in a loop would cost a kernel each to
compile); a chain whose leaves turn out not to be float64 arrays when numba types the call is
the unfused expression (the kernel's own fallback). Runs after the reductions are fused
(srcad/transform/numba_fusion.py), so a chain a fused reduction takes whole is not made a map
first. The python backend's code is not rewritten.
"""

from __future__ import annotations

import gast

from srcad.frontend import syntax as S
from srcad.transform.numba_fusion import _SIMPLE, FusedLoop, _Chain, _elementwise, kernel_name

_ARRAY_CALLS = frozenset({"broadcast_view", "expand_dims", "broadcast_to"})


def fuse_array_maps(tree, namer, arrays: dict, fused: dict) -> None:
    """Rewrite (in place) the elementwise chains of arrays in `tree`'s simple statements;
    `arrays`: {name: rank} of the names known to be arrays (grown with the names bound to
    array chains, rank None); the kernels made are added to `fused` ({name: FusedLoop})."""
    known = dict(arrays)
    for fn in (n for n in S.walk(tree) if isinstance(n, gast.FunctionDef)):
        fn.body = _block(fn.body, namer, known, fused)


def _block(block, namer, arrays, fused):
    out = []
    for stmt in block:
        for field in ("body", "orelse", "finalbody"):
            inner = getattr(stmt, field, None)
            if isinstance(inner, list) and inner and isinstance(inner[0], gast.stmt):
                setattr(stmt, field, _block(inner, namer, arrays, fused))
        if isinstance(stmt, _SIMPLE) and not S.is_comment(stmt):
            rewriter = _Maps(namer, fused, arrays)
            rewriter.visit(stmt)
            out += [S.comment(f"one loop: {text}") for text in rewriter.replaced]
            if isinstance(stmt, gast.Assign) and len(stmt.targets) == 1 \
                    and isinstance(stmt.targets[0], gast.Name) \
                    and (_is_array(stmt.value, arrays)
                         or _fused_map(stmt.value, fused)):
                arrays.setdefault(stmt.targets[0].id, None)
        out.append(stmt)
    return out


class _Maps(gast.NodeTransformer):
    def __init__(self, namer, fused, arrays):
        self.namer, self.fused, self.arrays, self.replaced = namer, fused, arrays, []

    def visit_FunctionDef(self, node):  # nested functions: their own blocks
        return node

    def visit_Lambda(self, node):
        return node

    def visit_BinOp(self, node):
        return self._chain(node)

    def visit_UnaryOp(self, node):
        return self._chain(node)

    def visit_Call(self, node):
        return self._chain(node)

    def _chain(self, node):
        if not _elementwise(node) or _operations(node) < 2:
            return self.generic_visit(node)
        chain = _Chain()
        expression = chain.template(node)
        if not any(_is_array(leaf, self.arrays) for leaf in chain.leaves):
            return self.generic_visit(node)
        original = S.unparse_expr(node)
        leaves = [self.visit(leaf) for leaf in chain.leaves]  # chains inside the leaves
        name = kernel_name(self.fused, FusedLoop(expression, ("map",), len(leaves)),
                           self.namer, "fused_map")
        self.replaced.append(original)
        return gast.copy_location(S.call(name, *leaves), node)


def _operations(node) -> int:
    """How many elementwise operations the chain rooted at `node` computes."""
    if not _elementwise(node):
        return 0
    if isinstance(node, gast.BinOp):
        return 1 + _operations(node.left) + _operations(node.right)
    if isinstance(node, gast.UnaryOp):
        return 1 + _operations(node.operand)
    return 1 + _operations(node.args[0])


def _is_array(node, arrays) -> bool:
    """Is `node` surely an array (never a number)?"""
    if isinstance(node, gast.Name):
        return node.id in arrays
    if isinstance(node, gast.Subscript):
        index = node.slice.elts if isinstance(node.slice, gast.Tuple) else [node.slice]
        return _is_array(node.value, arrays) and any(
            isinstance(i, gast.Slice) or (isinstance(i, gast.Constant) and i.value is None)
            for i in index)
    if isinstance(node, (gast.BinOp, gast.UnaryOp)) or (
            isinstance(node, gast.Call) and _elementwise(node)):
        parts = [node.left, node.right] if isinstance(node, gast.BinOp) else \
            [node.operand] if isinstance(node, gast.UnaryOp) else node.args
        return any(_is_array(part, arrays) for part in parts)
    if isinstance(node, gast.Call):
        f = node.func
        called = f.id if isinstance(f, gast.Name) else f.attr if isinstance(
            f, gast.Attribute) else None
        if called == "array_matmul" and len(node.args) == 2:  # not two vectors
            ranks = [arrays.get(a.id) if isinstance(a, gast.Name) else None
                     for a in node.args]
            return 2 in ranks and None not in ranks
        return called in _ARRAY_CALLS
    return False


def _fused_map(node, fused) -> bool:
    return isinstance(node, gast.Call) and isinstance(node.func, gast.Name) \
        and node.func.id in fused and fused[node.func.id].reduction == ("map",)
