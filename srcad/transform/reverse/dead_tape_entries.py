"""No tape entry that nothing reads: a value popped into a name the reverse code never reads
(after the rewrites that replaced its readers: an adjoint assigned where it was reset to zeros
of a recorded shape) is neither pushed nor popped.

    for t in range(n):                      for t in range(n):
        tape.append(mean.shape)                 mean = transition @ mean
        mean = transition @ mean       ->       ...
    ...                                     for t in ...:  # reverse
    for t in ...:  # reverse                    mean_bar = transition.T @ g
        mean_shape = tape.pop()
        mean_bar = transition.T @ g

Only where a push and its pop are certainly paired: every push of the tape is a statement of
one block and every pop a statement of one block (each a loop's body, or both the function's
own), as many of each, with no `break`, `continue` or `return` inside either block (every run of
a block records its whole list); the k-th pop from the end then reads the k-th push. A tape
named anywhere else (a parameter or result of a split sweep, a reservation, a replay of a
checkpointed loop) is left alone, and so is a push whose value calls anything but
`np.ascontiguousarray`. A tape left with no entries loses its `tape = []` too (numba cannot
type an empty list).
"""

from __future__ import annotations

import gast

from srcad.frontend import syntax as S

_JUMPS = (gast.Break, gast.Continue, gast.Return)


def drop_dead_tape_entries(fn: gast.FunctionDef) -> gast.FunctionDef:
    """`fn` without the pushes and pops of values nothing reads (module docstring; in place)."""
    read = {n.id for n in gast.walk(fn) if isinstance(n, gast.Name)
            and isinstance(n.ctx, gast.Load)}
    for tape in sorted(_list_tapes(fn)):
        entries = _entries(fn, tape)
        if entries is None:
            continue
        inits, pushes, pops = entries
        (push_block, push_stmts), (pop_block, pop_stmts) = pushes, pops
        dead = [k for k, stmt in enumerate(pop_stmts) if _popped_name(stmt, tape) not in read]
        if not dead:
            continue
        for k in dead:
            pop_block.remove(pop_stmts[k])
            push_block.remove(push_stmts[len(push_stmts) - 1 - k])
        if len(dead) == len(pop_stmts):
            for block, stmt in inits:
                block.remove(stmt)
    return fn


def _list_tapes(fn) -> set:
    """Names bound to `[]` by a statement of `fn`'s own body."""
    return {stmt.targets[0].id for stmt in fn.body if isinstance(stmt, gast.Assign)
            and len(stmt.targets) == 1 and isinstance(stmt.targets[0], gast.Name)
            and isinstance(stmt.value, gast.List) and not stmt.value.elts}


def _entries(fn, tape):
    """([(block, init)], (push block, pushes), (pop block, pops)) of `tape` where the module
    docstring's conditions hold, else None."""
    inits, pushes, pops, uses = [], {}, {}, 0
    for node in gast.walk(fn):
        for field in ("body", "orelse", "finalbody"):
            block = getattr(node, field, None)
            if not isinstance(block, list):
                continue
            for stmt in block:
                if _is_init(stmt, tape):
                    inits.append((block, stmt))
                elif _pushed_value(stmt, tape) is not None:
                    pushes.setdefault(id(block), (block, node, []))[2].append(stmt)
                elif _popped_name(stmt, tape) is not None:
                    pops.setdefault(id(block), (block, node, []))[2].append(stmt)
    uses = sum(isinstance(n, gast.Name) and n.id == tape for n in gast.walk(fn))
    if len(pushes) != 1 or len(pops) != 1 or not inits:
        return None
    (push_block, push_owner, push_stmts), = pushes.values()
    (pop_block, pop_owner, pop_stmts), = pops.values()
    if uses != len(inits) + len(push_stmts) + len(pop_stmts) \
            or len(push_stmts) != len(pop_stmts) \
            or not _whole_block(push_block, push_owner, fn) \
            or not _whole_block(pop_block, pop_owner, fn) \
            or (push_owner is fn) != (pop_owner is fn) \
            or not all(_plain(_pushed_value(s, tape)) for s in push_stmts):
        return None
    return inits, (push_block, push_stmts), (pop_block, pop_stmts)


def _whole_block(block, owner, fn) -> bool:
    """Is `block` the body of `fn` or of a for loop, with no jump out of a run of it?"""
    if owner is not fn and not (isinstance(owner, gast.For) and block is owner.body):
        return False
    return not any(isinstance(n, _JUMPS) for stmt in block for n in gast.walk(stmt)
                   if not isinstance(stmt, gast.FunctionDef))


def _plain(value) -> bool:
    """Does computing `value` call nothing but np.ascontiguousarray (nothing to keep)?"""
    return all(S.unparse_expr(n.func) == "np.ascontiguousarray"
               for n in gast.walk(value) if isinstance(n, gast.Call))


def _is_init(stmt, tape) -> bool:
    return isinstance(stmt, gast.Assign) and len(stmt.targets) == 1 \
        and isinstance(stmt.targets[0], gast.Name) and stmt.targets[0].id == tape \
        and isinstance(stmt.value, gast.List) and not stmt.value.elts


def _method_call(node, tape, method) -> bool:
    return isinstance(node, gast.Call) and isinstance(node.func, gast.Attribute) \
        and node.func.attr == method and isinstance(node.func.value, gast.Name) \
        and node.func.value.id == tape


def _pushed_value(stmt, tape):
    """`v` of `tape.append(v)`, else None."""
    if isinstance(stmt, gast.Expr) and _method_call(stmt.value, tape, "append") \
            and len(stmt.value.args) == 1 and not stmt.value.keywords:
        return stmt.value.args[0]
    return None


def _popped_name(stmt, tape):
    """`x` of `x = tape.pop()` (or `x = float(tape.pop())`), else None."""
    if not (isinstance(stmt, gast.Assign) and len(stmt.targets) == 1
            and isinstance(stmt.targets[0], gast.Name)):
        return None
    value = stmt.value
    if isinstance(value, gast.Call) and isinstance(value.func, gast.Name) \
            and value.func.id == "float" and len(value.args) == 1:
        value = value.args[0]
    if _method_call(value, tape, "pop") and not value.args and not value.keywords:
        return stmt.targets[0].id
    return None
