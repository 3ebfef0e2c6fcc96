"""The user's own words in srcad's messages: names srcad made put back as the user spelled
them, or as the expressions they hold.

>>> respelled("a_v1 is a list", {"a_v1": "a"})
'a is a list'
"""

from __future__ import annotations

import re

import gast

from srcad.frontend import syntax as S


def words(message: str) -> set:
    """The identifiers in `message`."""
    return set(re.findall(r"\b[A-Za-z_]\w*\b", message))


def respelled(message: str, spellings: dict) -> str:
    """`message` with each name srcad made replaced by the user's spelling (a word after a
    dot is an attribute, `np.average`, never one of srcad's names)."""
    pattern = re.compile(r"(?<!\.)\b(" + "|".join(map(re.escape, spellings)) + r")\b")
    return pattern.sub(lambda m: spellings[m.group(1)], message)


class Respell(gast.NodeTransformer):
    """Names srcad made put back as the expressions they hold (theirs too, in turn)."""

    def __init__(self, expressions: dict, depth: int = 0):
        self.expressions, self.depth = expressions, depth

    def visit_Name(self, node):
        held = self.expressions.get(node.id)
        if held is None or not isinstance(node.ctx, gast.Load) or self.depth > 8:
            return node
        held = Respell(self.expressions, self.depth + 1).visit(S.clone(held))
        if isinstance(held, gast.Call) and len(held.args) == 1 and not held.keywords \
                and isinstance(held.args[0], gast.GeneratorExp):  # sum(v for v in x), as
            text = S.unparse_expr(held.args[0])  # written: unparse doubles the parentheses
            return gast.Name(id=f"{S.unparse_expr(held.func)}{text}", ctx=gast.Load(),
                             annotation=None, type_comment=None)
        return held

    def visit_Call(self, node):
        """A call srcad made of a user's function by token (`srcad_recursive_call(1, x, n)`,
        recorded as `srcad_recursive_call#1`) is the call of that function (`det(x, n)`)."""
        self.generic_visit(node)
        if isinstance(node.func, gast.Name) and node.args \
                and isinstance(node.args[0], gast.Constant):
            held = self.expressions.get(f"{node.func.id}#{node.args[0].value}")
            if held is not None:
                return gast.Call(func=S.clone(held), args=node.args[1:], keywords=[])
        return node
