"""To-be-recorded analysis: which values the reverse sweep can still read, which it can
recompute, and which the forward sweep must put on the tape.

The reverse sweep reads a value `v` that the forward sweep read at statement S:
1. *still there*: nothing may write `v` after S (forward), so its final value is the one S saw;
2. *loop index*: `v` is the index of a `for` loop around S that nothing else writes; the
   reverse loop sets it again;
3. *replayed*: `v` has one definition D, inside a loop, before S in the same block iteration,
   and D's right-hand side is itself readable (by 1-3) at D; the reverse sweep re-executes D at
   the start of that block instead of taping it (cheap reads like `w = params[k]`);
4. *restored counter* (`readable_in_reverse` only): `v` is an induction counter
   (analysis/induction.py) and S is in its region but does not bind it; the reverse sweep
   undoes each step of `v` as it passes it, so `v` holds S's value where the reverse of S runs;
otherwise S pushes it on the tape and the reverse of S pops it. Array elements are readable
when the array is never written after S and their index is readable.
"""

from __future__ import annotations

from dataclasses import dataclass

import gast

from srcad.frontend import syntax as S
from srcad.frontend.syntax import bound_names, stored_names, target_name


@dataclass(frozen=True)
class Site:
    """Where a statement sits: the chain of (block, index, owner) from the function body."""

    path: tuple  # ((block_list, index, owner_stmt_or_None), ...)


class Recording:
    """Readability of values for the reverse sweep. `keep_taped(d)` true marks definitions
    the reverse sweep should not recompute (the numba backend tapes transcendental calls)."""

    def __init__(self, body: list, keep_taped=None):
        self.body = body
        self.keep_taped = keep_taped or (lambda stmt: False)
        self.sites: dict[int, tuple] = {}
        self.def_count: dict[str, int] = {}
        self.def_site: dict[str, object] = {}
        self.bind_count: dict[str, int] = {}  # rebindings only (element writes excluded)
        self._subtree_defs: dict[int, set] = {}
        self._subtree_binds: dict[int, set] = {}
        self._element_writes: dict[int, set] = {}  # id(statement) -> its element_writes
        self._after: dict[tuple, set] = {}
        self.replays: dict[int, dict[int, object]] = {}  # id(block) -> {index: stmt}
        self.aliases = array_aliases(body)  # name -> names that may share its elements
        self.counters: dict = {}  # name -> Induction the reverse sweep restores (rule 4)
        self._counters_restored = False  # rule 4 applies (readable_in_reverse)
        self._walk(body, (), None)

    def _walk(self, block, path, owner):
        for i, stmt in enumerate(block):
            here = path + ((block, i, owner),)
            self.sites[id(stmt)] = here
            for target in self._direct_defs(stmt):
                self.def_count[target] = self.def_count.get(target, 0) + 1
                self.def_site[target] = stmt
                if not isinstance(stmt, gast.For) and target in bound_names(stmt):
                    self.bind_count[target] = self.bind_count.get(target, 0) + 1
            for field in ("body", "orelse"):
                sub = getattr(stmt, field, None)
                if isinstance(sub, list):
                    self._walk(sub, here, stmt)

    def only_assignment(self, name):
        """`name = value` when that is `name`'s one definition in the function, else None."""
        stmt = self.def_site.get(name) if self.def_count.get(name) == 1 else None
        if isinstance(stmt, gast.Assign) and len(stmt.targets) == 1 \
                and isinstance(stmt.targets[0], gast.Name) and stmt.targets[0].id == name:
            return stmt
        return None

    @staticmethod
    def _direct_defs(stmt) -> set:
        if isinstance(stmt, (gast.Assign, gast.AugAssign)):
            return stored_names(stmt)
        if isinstance(stmt, gast.For):
            return stored_names(gast.For(target=stmt.target, iter=stmt.iter, body=[], orelse=[],
                                         type_comment=None))
        return set()

    def subtree_defs(self, stmt) -> set:
        """Names `stmt` may bind or whose elements it may write (through any alias: after
        `q = p`, `q[0] = v` writes p[0] too)."""
        key = id(stmt)
        if key not in self._subtree_defs:
            self._subtree_defs[key] = stored_names(stmt) | written_through(stmt, self.aliases)
        return self._subtree_defs[key]

    def subtree_binds(self, stmt) -> set:
        key = id(stmt)
        if key not in self._subtree_binds:
            self._subtree_binds[key] = bound_names(stmt)
        return self._subtree_binds[key]

    def defs_after(self, stmt, binds_only=False) -> set:
        """Variables some statement may write (or, with binds_only, rebind) after `stmt`
        starts, in forward execution."""
        key = (id(stmt), binds_only)
        if key not in self._after:
            self._after[key] = self._defs_after(stmt, binds_only)
        return self._after[key]

    def _defs_after(self, stmt, binds_only) -> set:
        defs = self.subtree_binds if binds_only else self.subtree_defs
        out = set(defs(stmt))
        for block, index, owner in reversed(self.sites[id(stmt)]):
            for sibling in block[index + 1:]:
                out |= defs(sibling)
            if isinstance(owner, (gast.For, gast.While)):
                out |= defs(owner)
        return out

    def bound_again_after(self, name, stmt) -> bool:
        """Is `name` bound again (assigned as a whole, not an element of it) by a statement
        that may run after `stmt` starts? If not, what it names (an array's shape, say)
        stays as it was at `stmt`."""
        return name in self.defs_after(stmt, binds_only=True)

    def only_rebound_after(self, name, stmt) -> bool:
        """Is `name` only rebound after `stmt` (a row view `w = W[i]` taken again by the next
        iteration), with no element written through it or any name it may alias? Its
        elements are then readable whenever the name is (the binding replayed, rule 3)."""
        if not self.bound_again_after(name, stmt):
            return False
        return name not in self.elements_written_after(stmt)

    def elements_written_after(self, stmt) -> set:
        """The names whose elements (directly or through an alias) may be written from `stmt`
        on: the rest of each block around it, and the loops around it (a later iteration)."""
        key = (id(stmt), "elements")
        if key in self._after:
            return self._after[key]
        out = set()
        for block, index, owner in self.sites[id(stmt)]:
            for s in block[index:] + ([owner] if isinstance(owner, (gast.For, gast.While))
                                      else []):
                found = self._element_writes.get(id(s))
                if found is None:  # each statement walked once, not once per statement before
                    found = self._element_writes[id(s)] = element_writes(s, self.aliases)
                out |= found
        self._after[key] = out
        return out

    def mutated_after(self, array: str, stmt) -> bool:
        return array in self.defs_after(stmt)

    def loops_around(self, stmt) -> list:
        return [owner for _, _, owner in self.sites[id(stmt)]
                if isinstance(owner, (gast.For, gast.While))]

    # -- the question the reverse transformation asks ----------------------------------------
    def readable(self, expr, stmt, replays: list) -> bool:
        """Can the reverse of `stmt` read `expr` as the forward sweep saw it at `stmt`?

        Appends to `replays` the definitions the reverse sweep must re-execute for that."""
        if isinstance(expr, gast.Constant):
            return True
        if isinstance(expr, gast.Name):
            if expr.id in self.defs_after(stmt) - self.defs_after(stmt, binds_only=True):
                return False  # a whole array read whose elements are written later
            return self._name_readable(expr.id, stmt, replays)
        shape_of = _shape_read(expr)
        if shape_of is not None:  # element writes keep the shape: only a rebinding matters
            return self._name_readable(shape_of, stmt, replays)
        if isinstance(expr, gast.Attribute):
            return self.readable(expr.value, stmt, replays)
        if isinstance(expr, gast.Subscript):
            array = expr.value
            while isinstance(array, (gast.Subscript, gast.Attribute)):
                array = array.value
            if isinstance(array, gast.Name) and array.id in self.defs_after(stmt) \
                    and not self.only_rebound_after(array.id, stmt):
                # the array's elements may be written later
                if not (isinstance(expr.value, gast.Attribute) and expr.value.attr == "shape"):
                    return False
            return self.readable(expr.value, stmt, replays) and self.readable(expr.slice, stmt,
                                                                              replays)
        if isinstance(expr, (gast.Tuple,)):
            return all(self.readable(e, stmt, replays) for e in expr.elts)
        children = [c for c in gast.iter_child_nodes(expr) if isinstance(c, gast.expr)]
        return all(self.readable(c, stmt, replays) for c in children)

    def readable_in_reverse(self, expr, stmt, replays: list) -> bool:
        """`readable`, where the reverse of `stmt` itself reads `expr`: counters count too
        (rule 4; a replay runs elsewhere, at the start of its block's reverse)."""
        self._counters_restored = True
        try:
            return self.readable(expr, stmt, replays)
        finally:
            self._counters_restored = False

    def _name_readable(self, name, stmt, replays) -> bool:
        if not self.bound_again_after(name, stmt):
            return True
        counter = self.counters.get(name) if self._counters_restored else None
        if counter is not None and counter.in_region(self.sites[id(stmt)]) \
                and name not in self.subtree_binds(stmt):
            return True
        for loop in self.loops_around(stmt):
            if (isinstance(loop, gast.For) and isinstance(loop.target, gast.Name)
                    and loop.target.id == name
                    and not any(name in self.subtree_binds(s) for s in loop.body)):
                return True
        return self._replayable(name, stmt, replays)

    def _replayable(self, name, stmt, replays) -> bool:
        if self.def_count.get(name) != 1:
            return False
        d = self.def_site[name]
        if self.keep_taped(d):
            return False
        if not (isinstance(d, gast.Assign) and isinstance(d.targets[0], gast.Name)):
            return False
        if not self.loops_around(d):
            return False
        d_path = self.sites[id(d)]
        s_path = self.sites[id(stmt)]
        depth = len(d_path) - 1
        if len(s_path) <= depth:
            return False
        if any(s_path[k][0] is not d_path[k][0] or s_path[k][1] != d_path[k][1]
               for k in range(depth)):
            return False
        block, d_index, _ = d_path[depth]
        if s_path[depth][0] is not block or s_path[depth][1] <= d_index:
            return False
        sub: list = []
        restored, self._counters_restored = self._counters_restored, False
        try:
            if not self.readable(d.value, d, sub):
                return False
        finally:
            self._counters_restored = restored
        replays.extend(sub)
        replays.append(d)
        return True

    def self_replayable(self, stmt, replays: list) -> bool:
        """Could the reverse sweep recompute `stmt` (a single definition inside a loop) at the
        start of its block instead of reading its result from anywhere else?"""
        if not (isinstance(stmt, gast.Assign) and isinstance(stmt.targets[0], gast.Name)):
            return False
        name = stmt.targets[0].id
        if self.keep_taped(stmt):
            return False
        if self.def_count.get(name) != 1 or not self.loops_around(stmt):
            return False
        sub: list = []
        if not self.readable(stmt.value, stmt, sub):
            return False
        replays.extend(sub)
        return True

    def request_replay(self, stmt) -> None:
        block, index, _ = self.sites[id(stmt)][-1]
        self.replays.setdefault(id(block), {})[index] = stmt

    def replays_for(self, block) -> list:
        found = self.replays.get(id(block), {})
        return [found[i] for i in sorted(found)]


def _shape_read(expr):
    """The array name whose shape alone `expr` reads (`x.shape`, `x.size`, `x.ndim`,
    `len(x)`), else None."""
    if isinstance(expr, gast.Attribute) and expr.attr in ("shape", "size", "ndim") \
            and isinstance(expr.value, gast.Name):
        return expr.value.id
    if isinstance(expr, gast.Call) and isinstance(expr.func, gast.Name) \
            and expr.func.id == "len" and len(expr.args) == 1 and not expr.keywords \
            and isinstance(expr.args[0], gast.Name):
        return expr.args[0].id
    return None


def element_writes(stmt, aliases: dict) -> set:
    """The names whose elements `stmt` (with its nested blocks) may write, directly
    (`a[i] = v`, `a[i] += v`) or through an alias."""
    return (stored_names(stmt) - _plain_names(stmt)) | written_through(stmt, aliases) | {
        target_name(n) for n in S.walk(stmt)
        if isinstance(n, (gast.Subscript, gast.Attribute)) and isinstance(n.ctx, gast.Store)}


def _plain_names(stmt) -> set:
    return {n.id for n in S.walk(stmt) if isinstance(n, gast.Name)
            and isinstance(n.ctx, gast.Store)}


def written_through(stmt, aliases: dict) -> set:
    """The names whose elements `stmt` (with its nested blocks) may write through an alias:
    p for `q[0] = v` after `q = p`."""
    out: set = set()
    for node in S.walk(stmt):
        targets = node.targets if isinstance(node, gast.Assign) else \
            [node.target] if isinstance(node, gast.AugAssign) else []
        for t in targets:
            if isinstance(t, gast.Subscript):
                out |= aliases.get(target_name(t), set())
    return out


def array_aliases(body) -> dict:
    """For each name, the other names that may refer to the same array: `q = p` (or
    `q = p if c else r`, `q = a[i]`, a row of a matrix is a view) makes q and p one class.
    Over-approximate: a number bound like this never has its elements written."""
    parent: dict = {}

    def find(n):
        while parent.get(n, n) != n:
            n = parent[n]
        return n

    def roots(e):
        if isinstance(e, gast.Name):
            return [e.id]
        if isinstance(e, gast.Subscript):
            return roots(e.value)
        if isinstance(e, gast.IfExp):
            return roots(e.body) + roots(e.orelse)
        return []

    for stmt in body:
        for node in S.walk(stmt):
            if isinstance(node, gast.Assign) and isinstance(node.targets[0], gast.Name):
                for other in roots(node.value):
                    parent[find(node.targets[0].id)] = find(other)
    classes: dict = {}
    for n in list(parent):
        classes.setdefault(find(n), set()).add(n)
    out = {}
    for members in classes.values():
        members = members | {find(next(iter(members)))}
        for n in members:
            out[n] = members - {n}
    return out
