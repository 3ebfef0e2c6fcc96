"""Clean-ups of generated code that change nothing a caller can observe."""

from __future__ import annotations

import gast

from srcad.analysis.recording import array_aliases, written_through
from srcad.frontend import syntax as S


def drop_dead_resets(rev: list, live: set) -> list:
    """Remove top-level `v_bar = 0.0` (`v_bar = np.zeros_like(v_bar)`, `v_bar[...] = 0.0`)
    resets that nothing reads afterwards.

    An array reset stays when a later `v_bar += e` adds into it: without the reset, the
    addition would write into the array v_bar held before, which another name may still
    hold (`g = v_bar` read by the adjoint of `v = v + d`)."""
    out = []
    live = set(live)
    added_into = set()  # array names a later `+=` adds into in place
    for stmt in reversed(rev):
        if (isinstance(stmt, gast.Assign) and isinstance(stmt.targets[0], gast.Name)
                and (isinstance(stmt.value, gast.Constant)
                     or (is_array_reset(stmt, stmt.targets[0].id)
                         and stmt.targets[0].id not in added_into))
                and stmt.targets[0].id not in live):
            continue
        if in_place_reset(stmt) and stmt.targets[0].value.id not in live:
            continue
        live |= S.loaded_names(stmt)
        added_into |= {n.target.id for n in gast.walk(stmt) if isinstance(n, gast.AugAssign)
                       and isinstance(n.target, gast.Name)}
        out.append(stmt)
    out.reverse()
    # a comment left with nothing under it
    return [s for k, s in enumerate(out)
            if not (S.is_comment(s) and (k + 1 == len(out) or S.is_comment(out[k + 1])))]


def drop_repeated_reads(block: list) -> list:
    """Drop `v = e` when the same statement ran earlier in this straight-line block and
    nothing since has set `v` or anything `e` reads (a taped value a replay already read back
    for the iteration, read again by its own definition's adjoint)."""
    out, seen = [], []
    for stmt in block:
        if isinstance(stmt, gast.Assign) and isinstance(stmt.targets[0], gast.Name) \
                and not any(isinstance(n, gast.Call) for n in gast.walk(stmt.value)) \
                and any(S.same(stmt, earlier) for earlier in seen):
            continue
        written = S.stored_names(stmt)
        seen = [e for e in seen if not (written & (S.stored_names(e) | S.loaded_names(e)))]
        if isinstance(stmt, gast.Assign) and isinstance(stmt.targets[0], gast.Name) \
                and stmt.targets[0].id not in S.loaded_names(stmt.value):
            seen.append(stmt)
        out.append(stmt)
    return out


def fuse_lane_loops(body: list, lane: str, aliases: dict | None = None) -> list:
    """numba vector mode: one loop over the lanes per straight run of a block instead of one
    per tangent statement. A lane loop moves down past primal statements that neither write
    what it reads or writes nor read what it writes (the primal never reads tangents), and
    adjacent lane loops merge: lanes are independent, so the merged loop does, lane by lane,
    what the separate loops did. A write through an alias (`q[0] = ...` after `q = p`) counts
    as a write of every name it may alias."""
    if aliases is None:
        aliases = array_aliases(body)
    out, pending = [], None
    for stmt in body:
        for field in ("body", "orelse"):
            block = getattr(stmt, field, None)
            if isinstance(block, list) and not _is_lane_loop(stmt, lane):
                setattr(stmt, field, fuse_lane_loops(block, lane, aliases))
        if _is_lane_loop(stmt, lane):
            if pending is None:
                pending = stmt
            else:
                pending.body = pending.body + stmt.body
            continue
        if pending is not None and not _conflicts(stmt, pending, aliases):
            out.append(stmt)  # runs before the pending lane loop, which moves down
            continue
        if pending is not None:
            out.append(pending)
            pending = None
        out.append(stmt)
    if pending is not None:
        out.append(pending)
    return out


def lane_locals(function, lane: str) -> None:
    """A lane array (`w_dot`, one float per lane) that only one lane loop uses, writing
    `w_dot[lane]` before reading it, carries nothing between lanes or loops: it becomes a
    float local to the loop body (`w_dot_lane`), which LLVM keeps in a register."""
    loops = [n for n in gast.walk(function) if _is_lane_loop(n, lane)]
    everywhere: dict = {}  # uses in the body (a scratch parameter may stay, unused)
    for n in gast.walk(function):
        if isinstance(n, gast.Name) and not isinstance(n.ctx, gast.Param):
            everywhere[n.id] = everywhere.get(n.id, 0) + 1
    for loop in loops:
        inside: dict = {}
        for n in gast.walk(loop):
            if isinstance(n, gast.Name):
                inside[n.id] = inside.get(n.id, 0) + 1
        for name_ in [v for v, c in inside.items()  # every use of v is in this loop
                      if everywhere[v] == c and _first_use_writes_lane(loop.body, v, lane)]:
            _Scalarize(name_, lane, f"{name_}_{lane}").visit(loop)


def _first_use_writes_lane(body, name_: str, lane: str) -> bool:
    """`name_` appears only as `name_[lane]`, first as the target of a plain assignment whose
    value does not read it (`v_dot[lane] = v_dot[lane] * 0.5` reads the value on entry: a
    seed the caller passed, or what an earlier loop left)."""
    for stmt in body:
        for n in gast.walk(stmt):
            if isinstance(n, gast.Subscript) and isinstance(n.value, gast.Name) \
                    and n.value.id == name_ and not (isinstance(n.slice, gast.Name)
                                                     and n.slice.id == lane):
                return False
        if name_ in _subscript_targets(stmt):
            return name_ not in S.loaded_names(stmt.value)
        if name_ in S.loaded_names(stmt):
            return False
    return False


def _subscript_targets(stmt) -> set:
    if isinstance(stmt, gast.Assign):
        return {t.value.id for t in stmt.targets
                if isinstance(t, gast.Subscript) and isinstance(t.value, gast.Name)}
    return set()


class _Scalarize(gast.NodeTransformer):
    def __init__(self, array, lane, scalar):
        self.array, self.lane, self.scalar = array, lane, scalar

    def visit_Subscript(self, node):
        self.generic_visit(node)
        if isinstance(node.value, gast.Name) and node.value.id == self.array:
            return gast.Name(id=self.scalar, ctx=node.ctx, annotation=None, type_comment=None)
        return node


def _is_lane_loop(stmt, lane: str) -> bool:
    return isinstance(stmt, gast.For) and isinstance(stmt.target, gast.Name) \
        and stmt.target.id == lane and not stmt.orelse


def _conflicts(stmt, loop, aliases: dict) -> bool:
    if not isinstance(stmt, (gast.Assign, gast.AugAssign, gast.Expr)):
        return True  # a branch or loop: the lane loop stays above it
    writes, reads = S.stored_names(stmt), S.loaded_names(stmt)
    writes = writes | written_through(stmt, aliases)
    loop_writes, loop_reads = S.stored_names(loop), S.loaded_names(loop)
    return bool(writes & (loop_reads | loop_writes) or reads & loop_writes)


# Calls whose result may share memory with an argument (a view, or the argument itself).
_VIEWS = {"broadcast_to", "transpose", "expand_dims", "reshape", "ravel", "asarray"}


def assign_after_reset(rev: list, bar: str, copy=None) -> list:
    """`bar = np.zeros_like(bar)` followed, with no other mention of `bar` in between, by
    `bar += e` where `e` makes a new array (`W.T @ g`, `g * y`): `bar = e` instead, one
    allocation and one pass fewer. An array adjoint must own its array (docs/arrays.md), so a
    view or an existing array (`g`, `np.broadcast_to(g, s)`) is still added into zeros, or
    with `copy` (the python backend: a predicate telling the expressions that may be narrower
    than `bar`, the caller's seeds) copied: `bar = np.copy(g)`, one pass fewer."""
    out = list(rev)
    for i, stmt in enumerate(out):
        if not (is_array_reset(stmt, bar)):
            continue
        for j in range(i + 1, len(out)):
            later = out[j]
            if bar not in {n.id for n in S.nodes(later) if isinstance(n, gast.Name)}:
                continue
            if isinstance(later, gast.AugAssign) and isinstance(later.op, gast.Add) \
                    and isinstance(later.target, gast.Name) and later.target.id == bar \
                    and bar not in S.loaded_names(later.value) \
                    and (fresh_array(later.value)
                         or (copy is not None and not copy(later.value))):
                value = later.value if fresh_array(later.value) else S.call("np.copy",
                                                                            later.value)
                out[j] = S.assign(S.name(bar), value)
                del out[i]
            break
        break
    return out


def is_array_reset(stmt, bar) -> bool:
    """`bar = np.zeros_like(bar)`, or `bar = np.zeros(shape)` (the reset to the shape of the
    value a rebinding replaced, transform/reverse/transform.py)."""
    if not (isinstance(stmt, gast.Assign) and isinstance(stmt.targets[0], gast.Name)
            and stmt.targets[0].id == bar and isinstance(stmt.value, gast.Call)):
        return False
    text = S.unparse_expr(stmt.value)
    if text == f"np.zeros_like({bar})":
        return True
    shape = stmt.value.args[0] if len(stmt.value.args) == 1 else None
    return text.startswith("np.zeros(") and (  # `v.shape`, or `v_shape` popped from a tape
        (isinstance(shape, gast.Attribute) and shape.attr == "shape")
        or (isinstance(shape, gast.Name) and "_shape" in shape.id))


def in_place_reset(stmt) -> bool:
    """`v_bar[...] = 0.0`: an array adjoint zeroed in place (transform/reverse.py `_zero`)."""
    if not (isinstance(stmt, gast.Assign) and isinstance(stmt.targets[0], gast.Subscript)):
        return False
    target = stmt.targets[0]
    return (isinstance(target.value, gast.Name) and isinstance(target.slice, gast.Constant)
            and target.slice.value is Ellipsis and isinstance(stmt.value, gast.Constant))


def fresh_array(expr) -> bool:
    """Does `expr` (an array-valued adjoint contribution) evaluate to a new array?"""
    if isinstance(expr, (gast.BinOp, gast.UnaryOp)):
        return True
    if isinstance(expr, gast.Call):
        name = expr.func.attr if isinstance(expr.func, gast.Attribute) else \
            getattr(expr.func, "id", "")
        if name == "unbroadcast":  # may hand back its argument as is
            return fresh_array(expr.args[0])
        return name not in _VIEWS
    return False


def assign_after_element_reset(stmts: list) -> list:
    """python backend: `x_bar[i] = 0.0` directly followed by `x_bar[i] += e` (the adjoint of
    `x[i] = x[i] * f + ...`: the seed read, the element zeroed, its own share added back)
    becomes `x_bar[i] = e` (when e does not read x_bar), in every block: one store and one
    read of the element fewer."""
    out = []
    for stmt in stmts:
        for field in ("body", "orelse", "finalbody"):
            if isinstance(getattr(stmt, field, None), list):
                setattr(stmt, field, assign_after_element_reset(getattr(stmt, field)))
        if isinstance(stmt, gast.Try):
            for handler in stmt.handlers:
                handler.body = assign_after_element_reset(handler.body)
        last = out[-1] if out else None
        if (isinstance(stmt, gast.AugAssign) and isinstance(stmt.op, gast.Add)
                and isinstance(stmt.target, gast.Subscript) and _element_reset(last)
                and S.same(S.as_load(stmt.target), S.as_load(last.targets[0]))
                and S.target_name(stmt.target) not in S.loaded_names(stmt.value)):
            out[-1] = S.assign(last.targets[0], stmt.value)
            continue
        out.append(stmt)
    return out


def _element_reset(stmt) -> bool:
    """`x_bar[i] = 0.0` (a subscript of a name, an index that is not a slice)."""
    return (isinstance(stmt, gast.Assign) and len(stmt.targets) == 1
            and isinstance(stmt.targets[0], gast.Subscript)
            and isinstance(stmt.targets[0].value, gast.Name)
            and not any(isinstance(n, (gast.Slice, gast.Call)) for n in S.nodes(stmt.targets[0]))
            and isinstance(stmt.value, gast.Constant) and stmt.value.value == 0.0
            and type(stmt.value.value) is float)


def passed_through(rev, zero_at, g) -> list:
    """`rev` without `X = 0.0` at `zero_at` and the `X += g` right after it, where `g` was
    read from X just before (`v = v + e`, `a[j] = a[j] + e`: the adjoint passes through):
    X already holds g. Kept for arrays made anew (`np.zeros_like`): g is the old array."""
    if zero_at + 1 >= len(rev):
        return rev
    zero, add = rev[zero_at], rev[zero_at + 1]
    if isinstance(zero, gast.Assign) and isinstance(zero.value, gast.Constant) \
            and zero.value.value == 0.0 and isinstance(add, gast.AugAssign) \
            and isinstance(add.op, gast.Add) and isinstance(add.value, gast.Name) \
            and add.value.id == g and gast.dump(S.as_load(add.target)) \
            == gast.dump(S.as_load(zero.targets[0])):
        return rev[:zero_at] + rev[zero_at + 2:]
    return rev

