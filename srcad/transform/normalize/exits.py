"""Make every exit structured, so that the reverse sweep knows exactly which statements ran.

After this pass:
* there is no `continue`; a `break` is always the last statement of its block;
* `return` appears at most once, as the last statement of the function (`return result`),
  or not at all for inlined helpers, whose value lands in a result variable.

Statements after a conditional exit are moved into the branches that fall through (tail
duplication), so no flags are needed, except for a `return` inside a loop: it sets a
`returned` flag and breaks; the code after the loop is guarded by that flag.
"""

from __future__ import annotations

import gast

from srcad.frontend import syntax as S


def _exits_here(stmt, in_nested_loop=False) -> bool:
    """Does `stmt` contain a return, or a break/continue that leaves the current loop?"""
    if isinstance(stmt, gast.Return):
        return True
    if isinstance(stmt, (gast.Break, gast.Continue)):
        return not in_nested_loop
    nested = in_nested_loop or isinstance(stmt, (gast.For, gast.While))
    for field in ("body", "orelse"):
        for child in getattr(stmt, field, []) or []:
            if _exits_here(child, nested):
                return True
    return False


def _has_return(stmt) -> bool:
    return any(isinstance(n, gast.Return) for n in S.nodes(stmt))


class _Exits:
    def __init__(self, result: str | None, flag: str):
        self.result = result
        self.flag = flag
        self.flag_used = False

    def block(self, stmts, depth):
        out = []
        for i, stmt in enumerate(stmts):
            rest = stmts[i + 1:]
            if isinstance(stmt, gast.Return):
                if stmt.value is not None and self.result is not None:
                    out.append(gast.copy_location(S.assign(S.name(self.result), stmt.value), stmt))
                if depth:
                    self.flag_used = True
                    out.append(S.assign(S.name(self.flag), S.const(True)))
                    out.append(gast.Break())
                return out, True
            if isinstance(stmt, gast.Break):
                out.append(stmt)
                return out, True
            if isinstance(stmt, gast.Continue):
                return out, True
            if isinstance(stmt, gast.If) and _exits_here(stmt):
                # each branch gets its own copy of the tail (this pass rewrites in place)
                body, always_body = self.block(stmt.body + S.clone(rest), depth)
                orelse, always_else = self.block(stmt.orelse + S.clone(rest), depth)
                stmt.body = body or [gast.Pass()]
                stmt.orelse = orelse
                out.append(stmt)
                return out, always_body and always_else
            if isinstance(stmt, (gast.For, gast.While)):
                returns_inside = _has_return(stmt)
                body, _ = self.block(stmt.body, depth + 1)
                stmt.body = body or [gast.Pass()]
                out.append(stmt)
                if returns_inside and rest:
                    after, _ = self.block(rest, depth)
                    leave = [gast.Break()] if depth else [gast.Pass()]
                    guard = gast.If(test=S.name(self.flag), body=leave, orelse=after)
                    out.append(gast.copy_location(guard, stmt))
                    return out, False
                if returns_inside and depth:
                    out.append(gast.If(test=S.name(self.flag), body=[gast.Break()], orelse=[]))
                continue
            if isinstance(stmt, gast.If):
                body, _ = self.block(stmt.body, depth)
                orelse, _ = self.block(stmt.orelse, depth)
                stmt.body = body or [gast.Pass()]
                stmt.orelse = orelse
            out.append(stmt)
        return out, False


def structure_exits(body: list, result: str | None, flag: str) -> tuple[list, bool]:
    """Rewrite a function body; returns (new body, whether the `flag` variable is used).

    With `result` given, each `return e` becomes `result = e`; the caller appends the final
    `return result` (for the differentiated function) or reads `result` (for an inlined call).
    """
    worker = _Exits(result, flag)
    out, _ = worker.block(body, 0)
    if worker.flag_used:
        out.insert(0, S.assign(S.name(flag), S.const(False)))
    return out, worker.flag_used


def always_assigns(body, name) -> bool:
    """Does every path through `body` assign `name` (at top level or in both branches)?"""
    for stmt in body:
        if isinstance(stmt, gast.Assign) and S.target_name(stmt.targets[0]) == name:
            return True
        if isinstance(stmt, gast.If) and stmt.orelse and always_assigns(stmt.body, name) \
                and always_assigns(stmt.orelse, name):
            return True
    return False
