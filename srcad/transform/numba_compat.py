"""Rewrites that keep generated code inside what numba compiles.

* `while True:` (a constant test, left only by `break`): numba cannot type variables updated
  in such a loop ("Type of variable ... cannot be determined"); a test through a variable is
  the same loop and compiles.
* `e ** 2` and `e ** 3` (a literal integer exponent): numba computes an integer power with a
  loop (square and multiply), and a loop inside a loop stops LLVM from vectorizing the outer
  one. They become `e * e` and `e * (e * e)`, the very products numba's loop forms (so the
  same bits), when `e` is plain arithmetic on names, constants and elements: written twice,
  it is computed once (LLVM merges identical pure arithmetic).
* `a @ b`, `np.dot(a, b)`, `np.matmul(a, b)`, `a.dot(b)`: `array_matmul(a, b)`
  (srcad/numba_arrays.py): numba's own product needs SciPy's BLAS and contiguous operands;
  srcad's calls it where it can, else loops.
"""

from __future__ import annotations

import gast

from srcad import syntax as S


class _ConstantLoops(gast.NodeTransformer):
    def __init__(self, namer):
        self.namer = namer

    def generic_visit(self, node):
        super().generic_visit(node)
        for field in ("body", "orelse"):
            block = getattr(node, field, None)
            if isinstance(block, list):
                setattr(node, field, self._block(block))
        return node

    def _block(self, block):
        out = []
        for stmt in block:
            if isinstance(stmt, gast.While) and isinstance(stmt.test, gast.Constant) \
                    and stmt.test.value:
                flag = self.namer.fresh("forever")
                out.append(S.assign(S.name(flag), S.const(True)))
                stmt.test = S.name(flag)
            out.append(stmt)
        return out


class _SmallPowers(gast.NodeTransformer):
    def visit_BinOp(self, node):
        self.generic_visit(node)
        exponent = node.right
        if isinstance(node.op, gast.Pow) and isinstance(exponent, gast.Constant) \
                and type(exponent.value) is int and exponent.value in (2, 3) \
                and _plain(node.left):
            square = gast.BinOp(left=node.left, op=gast.Mult(), right=S.clone(node.left))
            if exponent.value == 2:
                return gast.copy_location(square, node)
            return gast.copy_location(gast.BinOp(left=S.clone(node.left), op=gast.Mult(),
                                                 right=square), node)
        return node


class _Products(gast.NodeTransformer):
    def visit_BinOp(self, node):
        self.generic_visit(node)
        if isinstance(node.op, gast.MatMult):
            return gast.copy_location(S.call("array_matmul", node.left, node.right), node)
        return node

    def visit_Call(self, node):
        self.generic_visit(node)
        f = node.func
        if not isinstance(f, gast.Attribute) or node.keywords:
            return node
        module = isinstance(f.value, gast.Name) and f.value.id == "np"
        if module and f.attr in ("dot", "matmul") and len(node.args) == 2:
            return gast.copy_location(S.call("array_matmul", *node.args), node)
        if not module and f.attr == "dot" and len(node.args) == 1:  # x.dot(y)
            return gast.copy_location(S.call("array_matmul", f.value, node.args[0]), node)
        return node


def _plain(e) -> bool:
    return all(isinstance(n, (gast.Name, gast.Constant, gast.Attribute, gast.Subscript,
                              gast.BinOp, gast.UnaryOp, gast.Tuple, gast.Load,
                              gast.operator, gast.unaryop, gast.expr_context))
               for n in gast.walk(e))


def numba_friendly(tree, namer):
    """`tree` with the rewrites above applied (in place)."""
    return _Products().visit(_SmallPowers().visit(_ConstantLoops(namer).visit(tree)))
