"""Which binding of a name runs first: the reverse sweep resets an array's adjoint to zeros
of the replaced value's shape, and a first binding replaces no value. A binding is first when
no binding of the name can run before it: one in the other branch of an `if` that no loop
encloses cannot (`if c: r = a` / `else: r = b`, as a tuple returned on several paths
becomes)."""

from __future__ import annotations

import gast

from srcad.frontend import syntax as S


def first_binding(body, params, stmt, name) -> bool:
    """Does no binding of `name` (an assignment `name = ...`) run before `stmt` in `body`?"""
    if name in params:
        return False
    where = _ancestors_of(body, stmt)
    for node, ancestors in _assignments(body, ()):
        if node is stmt:
            return True
        if name in S.stored_names(node) and isinstance(node.targets[0], gast.Name) \
                and not _exclusive(ancestors, where):
            return False
    return False


def _assignments(stmts, ancestors):
    """(assignment, (enclosing statement, branch) pairs) in program order."""
    for stmt in stmts:
        if isinstance(stmt, gast.Assign):
            yield stmt, ancestors
        for branch in ("body", "orelse"):
            inner = getattr(stmt, branch, None)
            if isinstance(inner, list):
                yield from _assignments(inner, ancestors + ((stmt, branch),))


def _ancestors_of(body, stmt):
    for node, ancestors in _assignments(body, ()):
        if node is stmt:
            return ancestors
    return ()


def _exclusive(first, second) -> bool:
    """Are statements with these ancestors in different branches of one `if` that no loop
    encloses (so at most one of them runs)?"""
    for (a, branch_a), (b, branch_b) in zip(first, second):
        if a is not b:
            return False
        if isinstance(a, (gast.For, gast.While)):
            return False
        if branch_a != branch_b:
            return isinstance(a, gast.If)
    return False
