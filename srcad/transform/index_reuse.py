"""python backend: an integer index computed again and again in straight-line code is computed
once (`ix = 3 * n + i`, then `w[ix]`, `b[ix]`, `w_bar[ix]` ...).

The reverse sweep reads the operands of a statement again to form its adjoint, and the
adjoints of `w[3 * n + i] * h + b[3 * n + i]` index four arrays with the same sum; CPython
computes each one (two integer operations, ~25 ns), about as long as the element access.

Guarantees (nothing a caller can observe changes): only arithmetic (+ - * // %) of integer
constants and of names the type analysis types as int, used as an index (or one entry of an
index tuple); the shared value is bound right before the first statement that uses it, and
used up to the first statement that rebinds one of its names (that statement's own uses
included: Python evaluates them before it binds), never across a branch or a loop (a compound
statement ends every run, and its own blocks are runs of their own).
"""

from __future__ import annotations

import gast

from srcad.frontend import syntax as S
from srcad.transform.row_views import _INT_OPS
from srcad.transform.straight_runs import rewrite_runs, with_inserts


def reuse_indices(fn: gast.FunctionDef, ints: set, namer) -> None:
    """Rewrite every block of `fn` in place (see the module docstring)."""
    fn.body = rewrite_runs(fn.body, lambda run: _run(run, ints, namer))


def _run(stmts: list, ints, namer) -> list:
    """A straight-line run with each repeated index bound once per stretch of statements in
    which its names keep their values."""
    if len(stmts) < 2:
        return stmts
    groups, open_groups = [], {}  # [(dump, [statement positions])], dump -> that group
    for k, stmt in enumerate(stmts):
        if S.is_comment(stmt):
            continue
        stored = S.stored_names(stmt)
        for e in _indices(stmt, ints):
            dump = gast.dump(e)
            if S.loaded_names(e) & stored:  # `h, a[3 * h] = ...` indexes with the new h
                open_groups.pop(dump, None)
                continue
            if dump not in open_groups:
                open_groups[dump] = (dump, [], S.loaded_names(e))
                groups.append(open_groups[dump])
            if k not in open_groups[dump][1]:
                open_groups[dump][1].append(k)
        for dump in [d for d, group in open_groups.items() if group[2] & stored]:
            del open_groups[dump]
    inserts: dict = {}  # position -> bindings to put before it
    for dump, positions, _ in groups:
        if sum(_count(stmts[k], dump, ints) for k in positions) < 2:
            continue
        name = namer.fresh("index")
        value = None
        for k in positions:
            stmts[k] = S.clone(stmts[k])  # may share nodes with code elsewhere
            for node in S.nodes(stmts[k]):
                value = _replace_in(node, dump, name, ints) or value
        inserts.setdefault(positions[0], []).append(S.assign(S.name(name, store=True), value))
    return with_inserts(stmts, inserts)


def _indices(stmt, ints) -> list:
    """The integer arithmetic a statement indexes with (whole indices and tuple entries)."""
    found = []
    for node in S.nodes(stmt):
        if isinstance(node, gast.Subscript):
            parts = node.slice.elts if isinstance(node.slice, gast.Tuple) else [node.slice]
            found += [e for e in parts if isinstance(e, gast.BinOp) and _int_expr(e, ints)]
    return found


def _count(stmt, dump, ints) -> int:
    return sum(gast.dump(e) == dump for e in _indices(stmt, ints))


def _replace_in(node, dump, name, ints):
    """Replace the index `dump` in subscript `node` by `name`; the replaced expression (or
    None)."""
    if not isinstance(node, gast.Subscript):
        return None
    if isinstance(node.slice, gast.Tuple):
        for k, e in enumerate(node.slice.elts):
            if isinstance(e, gast.BinOp) and gast.dump(e) == dump:
                node.slice.elts[k] = S.name(name)
                return e
    elif isinstance(node.slice, gast.BinOp) and gast.dump(node.slice) == dump:
        e, node.slice = node.slice, S.name(name)
        return e
    return None


def _int_expr(e, ints) -> bool:
    if isinstance(e, gast.Constant):
        return type(e.value) is int
    if isinstance(e, gast.Name):
        return e.id in ints
    if isinstance(e, gast.BinOp) and isinstance(e.op, _INT_OPS):
        return _int_expr(e.left, ints) and _int_expr(e.right, ints)
    return False
