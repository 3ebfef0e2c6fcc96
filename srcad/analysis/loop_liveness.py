"""Which names are live after each statement of a structured body and at each loop's head:
the liveness half of the array-sharing analysis (srcad/analysis/array_sharing.py), over the
normalized body (no `continue`, a `break` last in its block, one `return` at the end). A name
is live after a statement when some path reads it before rebinding it.
"""

from __future__ import annotations

import gast

from srcad.frontend import syntax as S

MAX_ROUNDS = 40


class NotModelled(Exception):
    """A construct or a loop the sharing analyses do not model: nothing is claimed."""


def target_names(target) -> list:
    return [n.id for n in S.walk(target) if isinstance(n, gast.Name)
            and isinstance(n.ctx, gast.Store)]


class Liveness:
    """Names live after each statement (`after`) and at each loop's head (`head`), walking
    the structured body backwards; a loop runs to its fixpoint (NotModelled past
    MAX_ROUNDS)."""

    def __init__(self):
        self.after: dict = {}  # id(statement) -> names live after it
        self.head: dict = {}  # id(loop) -> names live at its head (carried to an iteration)
        self.exits: list = []  # what is live after each enclosing loop

    def block(self, stmts, live: set) -> set:
        for stmt in reversed(stmts):
            live = self.statement(stmt, live)
        return live

    def statement(self, stmt, live: set) -> set:
        self.after[id(stmt)] = self.after.get(id(stmt), set()) | live
        if isinstance(stmt, gast.If):
            return S.loaded_names(stmt.test) | self.block(stmt.body, live) | \
                self.block(stmt.orelse, live)
        if isinstance(stmt, (gast.For, gast.While)):
            return self._loop(stmt, live)
        if isinstance(stmt, gast.Break):
            return set(self.exits[-1])
        if isinstance(stmt, gast.Assign):
            rebound = {n for t in stmt.targets if isinstance(t, gast.Name) for n in [t.id]}
            return (live - rebound) | S.loaded_names(stmt)
        return live | S.loaded_names(stmt)

    def _loop(self, stmt, live: set) -> set:
        header = S.loaded_names(stmt.iter if isinstance(stmt, gast.For) else stmt.test)
        rebound = set(target_names(stmt.target)) if isinstance(stmt, gast.For) else set()
        self.exits.append(live)
        head = header | self.block(stmt.orelse, live)
        for _ in range(MAX_ROUNDS):
            joined = head | (self.block(stmt.body, head) - rebound)
            if joined == head:
                break
            head = joined
        else:
            raise NotModelled
        self.exits.pop()
        self.head[id(stmt)] = self.head.get(id(stmt), set()) | head
        return head
