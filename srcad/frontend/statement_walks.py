"""Walks over a function's statements and the name sets built on them: which variables a
statement (with its nested blocks) binds or mutates. Asked for thousands of times per function
on a first call, so they visit statements only, never expressions (an assignment never sits
inside an expression); `statement_expressions` is the converse walk, one statement's own
expressions without its nested statements. `srcad.frontend.syntax` re-exports them for every
stage.
"""

from __future__ import annotations

import collections

import gast

Node = gast.AST


def target_name(target: Node) -> str | None:
    """The variable a store target binds or mutates: `x` for `x`, `x[i]` and `x[i, j]`."""
    while isinstance(target, (gast.Subscript, gast.Attribute)):
        target = target.value
    return target.id if isinstance(target, gast.Name) else None


def stored_names(stmt: Node) -> set[str]:
    """Variables a statement (with its nested blocks) binds or mutates."""
    out = set()
    for t in _store_targets(stmt):
        out |= _targets(t)
    return out


def bound_names(stmt: Node) -> set[str]:
    """Variables a statement (with nested blocks) rebinds: `x = ...`, `x += ...`, `for x in`.
    Element writes `x[i] = ...` mutate `x` but do not rebind it."""
    out = set()
    for t in _store_targets(stmt):
        out |= _rebound(t)
    return out


# the fields of a statement that hold statements (blocks, handlers, match cases)
_BLOCKS = ("body", "orelse", "finalbody", "handlers", "cases")


def statements(stmt: Node):
    """`stmt` (or a list of them) and every statement nested in its blocks, in no particular
    order: an assignment never sits inside an expression, so the name sets below need not walk
    one (the first call's cost: they are asked for thousands of times).

    >>> from srcad.frontend import syntax as S
    >>> [type(s).__name__ for s in statements(S.parse_stmts("if a:\\n    x = 1")[0])]
    ['If', 'Assign']
    """
    todo = list(stmt) if type(stmt) is list else [stmt]
    while todo:
        node = todo.pop()
        yield node
        fields = node.__dict__
        for block in _BLOCKS:
            value = fields.get(block)
            if type(value) is list:
                todo.extend(value)


def statement_expressions(statement):
    """The expression nodes of `statement` itself, not those of the statements nested in it.

    >>> from srcad.frontend import syntax as S
    >>> loop = S.parse_stmts("for i in range(n):\\n    y = i")[0]
    >>> sorted(n.id for n in statement_expressions(loop) if isinstance(n, gast.Name))
    ['i', 'n', 'range']
    """
    stack = [c for c in gast.iter_child_nodes(statement) if not isinstance(c, gast.stmt)]
    while stack:
        node = stack.pop()
        yield node
        stack.extend(c for c in gast.iter_child_nodes(node) if not isinstance(c, gast.stmt))


def statements_in_order(stmt: Node):
    """The statements `gast.walk(stmt)` meets, in its (breadth-first) order, without walking
    an expression: none holds a statement.

    >>> from srcad.frontend import syntax as S
    >>> [type(s).__name__ for s in statements_in_order(S.parse_stmts(
    ...     "for i in r:\\n    if a:\\n        x = 1\\n    y = 2")[0])]
    ['For', 'If', 'Assign', 'Assign']
    """
    todo = collections.deque([stmt])
    while todo:
        node = todo.popleft()
        if isinstance(node, gast.stmt):
            yield node
        fields = node.__dict__
        for field in node._fields:
            if field in _BLOCKS and type(fields.get(field)) is list:
                todo.extend(fields[field])


def _store_targets(stmt: Node):
    for n in statements(stmt):
        if isinstance(n, gast.Assign):
            yield from n.targets
        elif isinstance(n, (gast.AugAssign, gast.For)):
            yield n.target


def _rebound(target: Node) -> set[str]:
    if isinstance(target, gast.Name):
        return {target.id}
    if isinstance(target, (gast.Tuple, gast.List)):
        return set().union(*(_rebound(e) for e in target.elts))
    return set()


def _targets(target: Node) -> set[str]:
    if isinstance(target, (gast.Tuple, gast.List)):
        return set().union(*(_targets(e) for e in target.elts)) if target.elts else set()
    tn = target_name(target)
    return {tn} if tn else set()
