"""python backend: an array element read again in straight-line code is read once
(`state_read = state_row[i]`, then `tape.append(state_read)`, `... = state_read * w[i]`).

The forward sweep pushes an element the primal overwrites later and then reads it again for
the primal statement itself (`tape.append(h[i])`, `x = h[i] * w[i]`), and the reverse sweep
reads an operand once to recompute an intermediate and again to form an adjoint; CPython
indexes a NumPy array in ~35-70 ns, several times a local variable's read.

Guarantees (nothing a caller can observe changes): only reads of names typed as arrays (and
the row views srcad binds), at indices of names and integer constants and arithmetic on them
(no call, no slice, no nested read); a read is shared from the first statement that makes it
up to the first statement that writes any array element (its own reads included: Python
evaluates them before it stores), rebinds a name the read uses (its reads excluded), or calls
anything but the math module, float, int, abs, len, min, max, range, reversed and a list's
append and pop (its reads excluded; a call could write an array); never across a branch or a
loop (a compound statement ends every run, and its own blocks are runs of their own).
"""

from __future__ import annotations

import gast

from srcad.frontend import syntax as S
from srcad.transform.straight_runs import rewrite_runs, with_inserts

_PURE_FUNCTIONS = {"float", "int", "abs", "len", "min", "max", "range", "reversed"}
_LIST_METHODS = {"append", "pop"}  # the tapes' (lists: they hold no array the code indexes)


def reuse_element_reads(fn: gast.FunctionDef, arrays: set, namer) -> None:
    """Rewrite every block of `fn` in place (see the module docstring)."""
    fn.body = rewrite_runs(fn.body, lambda run: _run(run, arrays, namer))


def _run(stmts: list, arrays, namer) -> list:
    if len(stmts) < 2:
        return stmts
    groups, open_groups = [], {}  # [(dump, [positions], names)], dump -> its open group
    for k, stmt in enumerate(stmts):
        if S.is_comment(stmt):
            continue
        if _may_write_arrays(stmt):
            open_groups.clear()
            continue
        rebound = S.bound_names(stmt)
        for node in _reads(stmt, arrays):
            dump, names = gast.dump(node), S.loaded_names(node)
            if names & rebound:
                open_groups.pop(dump, None)
                continue
            if dump not in open_groups:
                open_groups[dump] = (dump, [], names)
                groups.append(open_groups[dump])
            open_groups[dump][1].append(k)
        if _writes_elements(stmt):
            open_groups.clear()
        else:
            for dump in [d for d, group in open_groups.items() if group[2] & rebound]:
                del open_groups[dump]
    inserts: dict = {}  # position -> bindings to put before it
    for dump, positions, _ in groups:
        if len(positions) < 2:
            continue
        first = next(n for n in _reads(stmts[positions[0]], arrays) if gast.dump(n) == dump)
        name = namer.fresh(f"{first.value.id}_read")
        inserts.setdefault(positions[0], []).append(
            S.assign(S.name(name, store=True), S.clone(first)))
        replace = _Replace(dump, name)
        for k in sorted(set(positions)):
            stmts[k] = replace.visit(S.clone(stmts[k]))  # may share nodes with code elsewhere
    return with_inserts(stmts, inserts)


class _Replace(gast.NodeTransformer):
    def __init__(self, dump, name):
        self.dump, self.name = dump, name

    def visit_Subscript(self, node):
        if isinstance(node.ctx, gast.Load) and gast.dump(node) == self.dump:
            return S.name(self.name)
        return self.generic_visit(node)


def _reads(stmt, arrays) -> list:
    """Element (or row) reads of arrays at simple indices, each occurrence."""
    return [n for n in S.nodes(stmt) if isinstance(n, gast.Subscript)
            and isinstance(n.ctx, gast.Load) and isinstance(n.value, gast.Name)
            and n.value.id in arrays and _simple_index(n.slice)]


def _simple_index(index) -> bool:
    parts = index.elts if isinstance(index, gast.Tuple) else [index]
    return all(_simple(p) for p in parts)


def _simple(e) -> bool:
    if isinstance(e, gast.Constant):
        return type(e.value) is int
    if isinstance(e, gast.Name):
        return True
    if isinstance(e, gast.BinOp):
        return _simple(e.left) and _simple(e.right)
    if isinstance(e, gast.UnaryOp):
        return _simple(e.operand)
    return False


def _writes_elements(stmt) -> bool:
    return any(isinstance(n, gast.Subscript) and isinstance(n.ctx, (gast.Store, gast.Del))
               for n in S.nodes(stmt))


def _may_write_arrays(stmt) -> bool:
    """Does `stmt` call something that could write an array (anything not known pure)?"""
    for n in S.nodes(stmt):
        if not isinstance(n, gast.Call):
            continue
        f = n.func
        if isinstance(f, gast.Name) and f.id in _PURE_FUNCTIONS:
            continue
        if isinstance(f, gast.Attribute) and isinstance(f.value, gast.Name) and (
                f.value.id == "math" or f.attr in _LIST_METHODS):
            continue
        return True
    return False
