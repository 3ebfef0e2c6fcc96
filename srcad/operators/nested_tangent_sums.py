"""One second-order pass for the tangent of a nested gradient in numba code.

The forward sweep through `gx = srcad.grad(g)(x, p)` adds the tangents the directions of its
operands give, one kernel call each:

    gx_dot = srcad_nested_tangent_1_0(x, p, x_dot) + srcad_nested_tangent_1_1(x, p, p_dot)

The tangent is linear in the directions, and one reverse-over-forward pass of g with every
direction set at once gives the sum:

    gx_dot = srcad_nested_tangents_1_0_1(x, p, x_dot, p_dot)

Guarantees: a sum is merged only when every term is a tangent call of one token with the
same operands (the same source text), each for a different operand; the calls only read
their arguments, so evaluating them in one call changes nothing else. Other sums are left
as they were (a sum with other terms keeps them, its run of tangent calls merged).

>>> import gast
>>> from srcad.build.codegen import to_source
>>> tree = gast.parse("t = -(srcad_nested_tangent_1_0(x, p, x_dot)"
...                   " + srcad_nested_tangent_1_1(x, p, p_dot))")
>>> merged_tangent_sums(tree)
[(1, (0, 1))]
>>> print(to_source(tree).strip())
t = -srcad_nested_tangents_1_0_1(x, p, x_dot, p_dot)
"""

from __future__ import annotations

import re

import gast

from srcad.frontend import syntax as S

_TANGENT = re.compile(r"srcad_nested_tangent_(\d+)_(\d+)$")


def kernel_name(token: int, operands) -> str:
    """The name of the kernel of the tangent for directions on operands `operands`."""
    return f"srcad_nested_tangents_{token}_{'_'.join(map(str, operands))}"


def merged_tangent_sums(tree) -> list:
    """Merge every such sum in `tree` (in place); the (token, operand numbers) of each, for
    the kernels to write."""
    merger = _Merger()
    merger.visit(tree)
    return merger.sums


class _Merger(gast.NodeTransformer):
    def __init__(self):
        self.sums: list = []

    def visit_BinOp(self, node):
        terms = _terms(node)
        calls = [_tangent_call(t) for t in terms]
        if len(terms) > 1 and all(calls) and _mergeable(calls):
            token = calls[0][1]
            operands = tuple(k for _, _, k in calls)
            head = calls[0][0]
            args = [S.clone(a) for a in head.args[:-1]] + [S.clone(c.args[-1]) for c, _, _ in calls]
            self.sums.append((token, operands))
            return gast.Call(S.name(kernel_name(token, operands)), args, [])
        return self.generic_visit(node)


def _terms(node) -> list:
    """The terms of a sum (`a + b + c`), or [node]."""
    if isinstance(node, gast.BinOp) and isinstance(node.op, gast.Add):
        return _terms(node.left) + _terms(node.right)
    return [node]


def _tangent_call(node):
    """(call, token, operand number) of a tangent kernel call, else None."""
    if isinstance(node, gast.Call) and isinstance(node.func, gast.Name) and not node.keywords:
        match = _TANGENT.match(node.func.id)
        if match:
            return node, int(match.group(1)), int(match.group(2))
    return None


def _mergeable(calls) -> bool:
    head, token, _ = calls[0]
    operands = [k for _, _, k in calls]
    return len(set(operands)) == len(operands) and all(
        t == token and len(c.args) == len(head.args)
        and all(map(S.same, c.args[:-1], head.args[:-1])) for c, t, _ in calls)
