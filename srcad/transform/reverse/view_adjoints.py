"""The adjoint of a row view bound in a loop is the same row of the array's adjoint (a part of
`ReverseTransform`).

`v = A[i]` in a loop, with `v` read only (never written through, nor `A` while `v` lives:
`Recording.only_rebound_after`) and only in the rest of that iteration: the reverse sweep
binds `v_bar = A_bar[i]` where it replays `v = A[i]` (at the start of the iteration's
reverse), so the adjoints of `v`'s reads add straight into `A_bar`. Without it `v_bar` was a
work array of its own, added into `A_bar[i]` and zeroed once per iteration: two passes over the
row per iteration, and on numba `A_bar[i] += v_bar` copies the row first (the two may overlap),
an allocation per iteration (gmm's `l[ik]` and `qdiags[ik]`, per point and component).
"""

from __future__ import annotations

import gast

from srcad import syntax as S
from srcad.analysis.index_types import index_kind
from srcad.analysis.types import Array


class ViewAdjoints:
    aliased_views: frozenset = frozenset()  # views whose adjoint is a view of the adjoint

    def view_adjoint_binding(self, stmt, target, value, op) -> bool:
        """Is `stmt` (`v = A[i]`) a view binding whose adjoint aliases `A_bar[i]`? If so, its
        replay binds the alias too, and its own reverse has nothing left to do."""
        if op is not None or not (isinstance(target, gast.Name)
                                  and isinstance(value, gast.Subscript)
                                  and isinstance(value.value, gast.Name)):
            return False
        view, array = target.id, value.value.id
        if view not in self.bar or array not in self.bar or view in self.norm.params \
                or not isinstance(self.types[view], Array) \
                or index_kind(self.types, value) is not None \
                or self.recording.def_count.get(view) != 1 \
                or not self.recording.only_rebound_after(view, stmt) \
                or not self._read_only_after_in_block(stmt, view):
            return False
        replays: list = []
        if not self.recording.self_replayable(stmt, replays):
            return False
        for d in replays:
            self.recording.request_replay(d)
        self.recording.request_replay(stmt)
        alias = S.assign(S.name(self.bar[view]), gast.Subscript(
            value=S.name(self.bar[array]), slice=S.as_load(S.clone(value.slice)),
            ctx=gast.Load()))
        self.replay_code[id(stmt)] = [S.clone(stmt), alias]
        self.aliased_views = self.aliased_views | {view}
        return True

    def _read_only_after_in_block(self, stmt, view) -> bool:
        """Is every read of `view` in the statements after `stmt` in its block (its adjoint
        exists from the start of that block's reverse to the reverse of `stmt`)?"""
        block, index, _ = self.recording.sites[id(stmt)][-1]
        after = sum(_loads(s, view) for s in block[index + 1:])
        return after == sum(_loads(s, view) for s in self.norm.body)


def _loads(stmt, name) -> int:
    return sum(1 for n in S.nodes(stmt) if isinstance(n, gast.Name) and n.id == name
               and isinstance(n.ctx, gast.Load))
