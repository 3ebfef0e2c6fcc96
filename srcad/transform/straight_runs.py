"""Rewrites confined to straight-line code (python backend's reverse-code rewrites).

`rewrite_runs` hands a rewrite each maximal run of simple statements of a block, in every
nested block too: a compound statement (if, for, while, with, try) ends a run, and its own
blocks are runs of their own, so a rewrite never sees a value cross a branch or a loop.
`with_inserts` puts bindings a rewrite made before the statements that first need them.
"""

from __future__ import annotations

import gast

_COMPOUND = (gast.If, gast.For, gast.While, gast.With, gast.Try)


def rewrite_runs(stmts: list, rewrite) -> list:
    """`stmts` with each straight-line run replaced by `rewrite(run)` (nested blocks first)."""
    for stmt in stmts:
        for field in ("body", "orelse", "finalbody"):
            if isinstance(getattr(stmt, field, None), list):
                setattr(stmt, field, rewrite_runs(getattr(stmt, field), rewrite))
        if isinstance(stmt, gast.Try):
            for handler in stmt.handlers:
                handler.body = rewrite_runs(handler.body, rewrite)
    out, run = [], []
    for stmt in stmts:
        if isinstance(stmt, _COMPOUND):
            out += rewrite(run) + [stmt]
            run = []
        else:
            run.append(stmt)
    return out + rewrite(run)


def with_inserts(stmts: list, inserts: dict) -> list:
    """`stmts` with `inserts[k]` (a list of statements) put before statement k."""
    if not inserts:
        return stmts
    out = []
    for k, stmt in enumerate(stmts):
        out += inserts.get(k, []) + [stmt]
    return out
