"""Rewrites that keep generated code inside what numba compiles.

* `while True:` (a constant test, left only by `break`): numba cannot type variables updated
  in such a loop ("Type of variable ... cannot be determined"); a test through a variable is
  the same loop and compiles.
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


def numba_friendly(tree, namer):
    """`tree` with the rewrites above applied (in place)."""
    return _ConstantLoops(namer).visit(tree)
