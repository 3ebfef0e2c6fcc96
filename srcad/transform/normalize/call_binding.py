"""Calls bound to variables of their own just before their statement (`v = call(...)`, the
statement reading `v`): the statements that run a call once and read its value by name.
Calls evaluated on one path only (in `a if c else b`, `and`/`or`, a lambda) stay in place.
"""

from __future__ import annotations

import gast

from srcad.frontend import syntax as S


def bind_calls(stmt, namer, base_of) -> list:
    """`stmt` preceded by `name = call` for each call in it (inner calls first) that
    `base_of(call)` gives a name's base for (None: left in place), the call replaced by
    `name`; the new statements at `stmt`'s location."""
    binder = _CallBinder(namer, base_of)
    stmt = binder.visit(stmt)
    return [gast.copy_location(b, stmt) for b in binder.bound] + [stmt]


class _CallBinder(gast.NodeTransformer):
    def __init__(self, namer, base_of):
        self.namer, self.base_of, self.bound = namer, base_of, []

    def visit_IfExp(self, node):
        return node  # evaluated on one branch only: left where it is

    visit_BoolOp = visit_Lambda = visit_IfExp

    def visit_Call(self, node):
        self.generic_visit(node)
        base = self.base_of(node)
        if base is None:
            return node
        name_ = self.namer.fresh(base)
        self.bound.append(S.assign(S.name(name_), node))
        return S.name(name_)
