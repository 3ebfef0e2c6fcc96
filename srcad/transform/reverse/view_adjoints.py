"""The adjoint of a view bound in a loop (or once at the top) is the same part of the array's
adjoint (a part of `ReverseTransform`, both backends).

`v = A[i]` (a row, or a basic slice `E[i, 1:]`) has the adjoint `v_bar`, added into element
by element by the reverse of the statements that read `v`, then added into `A_bar[i]` and
reset by the reverse of the binding: per iteration two passes over the row, and on numba
`A_bar[i] += v_bar` copies the row first (the two may overlap), an allocation per iteration
(gmm's `l[ik]` and `qdiags[ik]`, kmeans' centroid rows: half of its reverse pass). Where
nothing can tell the difference, `v_bar` is `A_bar[i]` itself, bound at the start of the
reverse of the block that binds `v`, and the reverse of the binding is nothing.

Where (`view_adjoint_binding`):
* `v = A[i]`, one plain binding of `v` in the whole function (not a parameter), basic
  indexing (ints and slices: a view, not a gather), `v` and `A` both active;
* `A` is not rebound, and no element of `v`, `A` or any name that may alias them is written,
  from the binding on (the rest of its blocks and the loops around it): `A_bar` is then the
  same array, only added into, while `v_bar` lives, so adding into it sooner changes
  nothing. Writes before the binding are reversed after it, as without the alias;
* every read of `v` is after the binding in its block: every addition into `v_bar` happens in
  that block's reverse, after the alias is bound (a view read after its loop keeps its own
  adjoint, which is needed before the loop's reverse);
* `A[i]` can be evaluated at the start of the block's reverse: it reads only names the
  function never binds (a parameter, a constant index) and the indices of the for loops
  around it (each reverse loop binds its index to the iteration's value), or else the
  binding is replayed there (`k = j + 1; r = x[k]`, the replay requested with what it reads,
  `Recording.self_replayable`), the alias bound after the replays.
"""

from __future__ import annotations

import gast

from srcad.analysis.index_types import index_kind
from srcad.analysis.types import Array
from srcad.frontend import syntax as S


class ViewAdjoints:
    aliased_views: dict  # v -> (its binding, `A_bar[i]`); set by ReverseTransform.__init__

    def view_adjoint_binding(self, stmt, target, value, op) -> bool:
        """Is `stmt` (`v = A[i]`) a view binding whose adjoint aliases `A_bar[i]` (above)? If
        so it is recorded for `view_adjoint_aliases`, and its own reverse has nothing to do."""
        if op is not None or not (isinstance(target, gast.Name)
                                  and isinstance(value, gast.Subscript)
                                  and isinstance(value.value, gast.Name)):
            return False
        view, array = target.id, value.value.id
        block, index, _ = self.recording.sites[id(stmt)][-1]
        if view not in self.bar or array not in self.bar or view in self.norm.params \
                or not isinstance(self.types[view], Array) \
                or index_kind(self.types, value) is not None \
                or self.recording.def_count.get(view) != 1 \
                or {view, array} & self.recording.elements_written_after(stmt) \
                or self.recording.bound_again_after(array, stmt) \
                or not self._read_only_after(block, index, view):  # first_accumulations.py
            return False
        if not self._readable_at_block_start(stmt):
            replays: list = []
            if not self.recording.self_replayable(stmt, replays):
                return False
            for d in replays:
                self.recording.request_replay(d)
            self.recording.request_replay(stmt)
        alias = gast.Subscript(value=S.name(self.bar[array]), slice=S.as_load(
            S.clone(value.slice)), ctx=gast.Load())
        self.aliased_views[view] = (stmt, alias)
        return True

    def view_adjoint_aliases(self, stmts, rev) -> list:
        """`v_bar = A_bar[i]` for each aliased view bound by one of `stmts` (a block) whose
        adjoint `rev` (the block's reverse) uses: the start of that reverse."""
        out = []
        for v, (binding, alias) in self.aliased_views.items():
            if any(stmt is binding for stmt in stmts) and any(
                    self.bar[v] in S.loaded_names(r) or self.bar[v] in S.stored_names(r)
                    for r in rev):
                out.append(S.assign(S.name(self.bar[v]), S.clone(alias)))
        return out

    def _readable_at_block_start(self, stmt) -> bool:
        """Does `A[i]` read only names the function never binds and for-loop indices around
        `stmt` that nothing else binds (their values at the start of the block's reverse)?"""
        loops = {owner.target.id for _, _, owner in self.recording.sites[id(stmt)]
                 if isinstance(owner, gast.For) and isinstance(owner.target, gast.Name)}
        return all(self.recording.bind_count.get(name, 0) == 0
                   or (name in loops and self.recording.def_count.get(name) == 1)
                   for name in S.loaded_names(stmt.value))
