"""A list's truth value in a test, as its length: `if ys:` is `if len(ys) > 0:`.

For a list the two are the same test; once lists.py or conditional_lists.py makes the list an
array (whose truth value NumPy refuses for more than one element), only the second is. Guarantee:
only `ys` itself in a truth position is rewritten (the test of an `if`, `while` or conditional
expression, the operand of `not`, an operand of `and`/`or` in such a test); any other use of
`ys` is left for the callers' checks of what a grown list may be used for.
"""

from __future__ import annotations

import gast

from srcad.frontend import syntax as S


def truth_as_length(stmts: list, name_: str) -> None:
    """Rewrite, in place, each test of the truth of the list `name_` in `stmts` as its length."""
    for stmt in stmts:
        _TruthAsLength(name_).visit(stmt)


class _TruthAsLength(gast.NodeTransformer):
    """`name_` tested for truth (the test of an `if`, `while` or conditional expression, the
    operand of `not`, an operand of `and`/`or` in such a test) as `len(name_) > 0`."""

    def __init__(self, name_):
        self.name_ = name_

    def _test(self, node):
        if isinstance(node, gast.Name) and node.id == self.name_ \
                and isinstance(node.ctx, gast.Load):
            test = S.substitute("len(xs) > 0", {"xs": S.name(node.id)})
            for part in gast.walk(test):
                gast.copy_location(part, node)
            return test
        if isinstance(node, gast.BoolOp):
            node.values = [self._test(v) for v in node.values]
            return node
        if isinstance(node, gast.UnaryOp) and isinstance(node.op, gast.Not):
            node.operand = self._test(node.operand)
            return node
        return self.visit(node)

    def visit_If(self, node):
        node.test = self._test(node.test)
        node.body = [self.visit(s) for s in node.body]
        node.orelse = [self.visit(s) for s in node.orelse]
        return node

    visit_While = visit_If

    def visit_IfExp(self, node):
        node.test = self._test(node.test)
        node.body, node.orelse = self.visit(node.body), self.visit(node.orelse)
        return node

    def visit_UnaryOp(self, node):
        if isinstance(node.op, gast.Not):
            node.operand = self._test(node.operand)
            return node
        return self.generic_visit(node)
