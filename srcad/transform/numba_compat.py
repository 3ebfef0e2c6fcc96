"""Rewrites that keep generated code inside what numba compiles.

* `while True:` (a constant test, left only by `break`): numba cannot type variables updated
  in such a loop ("Type of variable ... cannot be determined"); a test through a variable is
  the same loop and compiles.
* `e ** 2` and `e ** 3` (a literal integer exponent): numba computes an integer power with a
  loop (square and multiply), and a loop inside a loop stops LLVM from vectorizing the outer
  one. They become `e * e` and `e * (e * e)`, the very products numba's loop forms (so the
  same bits), when `e` is plain arithmetic on names, constants and elements: written twice,
  it is computed once (LLVM merges identical pure arithmetic).
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


def _plain(e) -> bool:
    return all(isinstance(n, (gast.Name, gast.Constant, gast.Attribute, gast.Subscript,
                              gast.BinOp, gast.UnaryOp, gast.Tuple, gast.Load,
                              gast.operator, gast.unaryop, gast.expr_context))
               for n in gast.walk(e))


def numba_friendly(tree, namer):
    """`tree` with the rewrites above applied (in place)."""
    return _SmallPowers().visit(_ConstantLoops(namer).visit(tree))
