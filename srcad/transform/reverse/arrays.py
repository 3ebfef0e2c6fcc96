"""Reverse mode of whole-array statements (a part of `ReverseTransform`): local arrays get
their shadow allocated with them, copies pass adjoints back, a returned array's adjoint is
seeded by the caller; whole-array arithmetic on active arrays is refused."""

from __future__ import annotations

import gast

from srcad.analysis.array_bindings import copy_source, is_allocation
from srcad.analysis.types import Array, index_kind
from srcad.frontend import syntax as S
from srcad.transform.normalize.unbounded_lists import growths, is_growth
from srcad.transform.reverse.leaves import replaced
from srcad.transform.tapes import WORK, ArrayTapes


class ReverseArrays:
    def accumulate_leaf(self, leaf, contribution, subst=None) -> list:
        """`x_bar += c` for a leaf `x` or `x[i]`; for a gather `x[idx]`, `np.add.at(x_bar, idx,
        c)`, which adds once per occurrence of a repeated index (`x_bar[idx] += c` would add
        only the last one). An index the forward sweep taped (`subst`) is read from its copy."""
        if isinstance(leaf, gast.Subscript) and index_kind(self.types, leaf) == "gather":
            base = S.name(self.bar[S.target_name(leaf)])
            index = S.as_load(replaced(leaf.slice, subst or {}))
            return [S.add_at(gast.Subscript(value=base, slice=index, ctx=gast.Load()),
                             contribution)]
        if isinstance(leaf, gast.Subscript) and isinstance(self.tapes, ArrayTapes) \
                and isinstance(self.types.of(leaf), Array) \
                and index_kind(self.types, leaf) is None:  # a view (a mask's read is a copy)
            # numba: `x_bar[j] += c` on a row or slice stores the view back into itself,
            # copying it to a temporary first (numba sees the two overlap), an allocation per
            # row per iteration (kmeans' centroid rows: half its gradient's time); added into
            # the view in place instead
            view = self.namer.fresh(f"{self.bar[S.target_name(leaf)]}_row")
            return [S.assign(S.name(view), self._adjoint_ref(leaf, subst)),
                    S.aug_assign(S.name(view), gast.Add(), contribution)]
        return [S.aug_assign(self._adjoint_ref(leaf, subst), gast.Add(), contribution)]

    def array_return(self, stmt, assign):
        """`return y` for an active array y: its adjoint is seeded with the `result_bar`
        array."""
        value = stmt.value
        if not (isinstance(value, gast.Name) and value.id in self.bar):
            raise self.error(stmt, "return of an array", "only an array variable can be "
                             "returned", hint="return y after writing its elements")
        self.returns_array = True
        rev = [self._comment(stmt), S.aug_assign(S.name(self.bar[value.id]), gast.Add(),
                                                 S.name(self.return_bar))]
        return [assign], rev

    def array_binding(self, stmt, target, value):
        """`c = np.zeros(n)`, `c = x.copy()`: allocate the shadow with the array."""
        tname = target.id
        if self.grows(stmt):
            return self.growth(stmt)
        if tname in self.norm.workspace and isinstance(self.tapes, ArrayTapes):
            return self._in_workspace(stmt, tname), []
        if tname not in self.bar:
            return [stmt], []
        rebinds = self.recording.bind_count.get(tname, 0)
        if rebinds > 1:  # the growths of a list's buffer are no rebinding (a walk: only then)
            rebinds -= growths(self.norm.body, tname)
        if self.recording.loops_around(stmt) or rebinds > 1:
            raise self.error(stmt, "array creation", f"active array `{tname}` is created "
                             "inside a loop or bound more than once",
                             hint="allocate it once before the loop and write its elements")
        source = copy_source(self.norm, value)
        if not is_allocation(self.norm, value):
            raise self.error(stmt, "array assignment", f"whole-array operations on the active "
                             f"array `{tname}` are not supported",
                             hint="write the elements in a loop, or use x.copy()")
        alloc = S.assign(S.name(self.bar[tname]), S.call("np.zeros_like", S.name(tname)))
        rev = []
        if source is not None and source in self.bar:
            rev = [self._comment(stmt), S.aug_assign(S.name(self.bar[source]), gast.Add(),
                                                     S.name(self.bar[tname]))]
        return [stmt, alloc], rev

    @staticmethod
    def grows(stmt) -> bool:
        """Is `stmt` `ys_buffer = grown(ys_buffer, n)` (normalize/unbounded_lists.py)?"""
        return is_growth(stmt)

    def growth(self, stmt):
        """`ys_buffer = grown(ys_buffer, n)`, a list's buffer made longer (normalize/
        unbounded_lists.py): its adjoint grows alongside in the forward sweep, or, for a
        buffer made anew in a loop, the reverse sweep makes it with the final length. The
        reverse sweep does nothing: it reads the final buffer, whose filled part holds the
        elements of every shorter one, and the adjoint's elements past a shorter one's end
        are zero by then (each written element's adjoint is reset once passed on)."""
        tname = stmt.targets[0].id
        if tname not in self.bar or tname in self.expression_arrays:
            return [stmt], []
        bar = S.name(self.bar[tname])
        return [stmt, S.assign(bar, S.call("grown", S.clone(bar), S.clone(stmt.value.args[1])))], []

    def _in_workspace(self, stmt, tname) -> list:
        """Hoisted arrays `a = np.empty(len(range(stop)))` (numba): the group made with `a`,
        and their shadows, carved from the workspace (`ArrayTapes.carve_group`)."""
        out = self.tapes.carve_group(
            self.norm, tname, self.namer,
            lambda a, stop: (self.bar[a], S.clone(stop), None) if a in self.bar else None, stmt)
        if out:
            self.used_tapes.add(WORK)
        return out

def adjoints_made_with(stmts, adjoints: dict) -> list:
    """`stmts` with `v_bar = np.zeros_like(v)` after each binding `v = ...` of a name in
    `adjoints` (v -> v_bar), in every nested block."""
    if not adjoints:
        return stmts
    out = []
    for stmt in stmts:
        if isinstance(stmt, (gast.If, gast.For, gast.While)):
            stmt.body = adjoints_made_with(stmt.body, adjoints)
            stmt.orelse = adjoints_made_with(stmt.orelse, adjoints)
        out.append(stmt)
        if isinstance(stmt, gast.Assign) and isinstance(stmt.targets[0], gast.Name) \
                and stmt.targets[0].id in adjoints:
            name = stmt.targets[0].id
            out.append(S.assign(S.name(adjoints[name]), S.call("np.zeros_like", S.name(name))))
    return out
