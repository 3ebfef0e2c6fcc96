"""The adjoint of a row view as a view of the parameter's adjoint (numba backend; a part of
`ReverseTransform`).

`b = centroids[j]` in a loop has the adjoint `b_bar`, added into element by element by the
reverse of the statements that read b, then added into `centroids_bar[j]` and reset by the
reverse of the binding: per iteration, two whole-row statements, which in numba cost more
than the row's arithmetic (kmeans: half of its reverse-over-forward pass). Where nothing can
tell the difference, `b_bar` is `centroids_bar[j]` itself, bound at the start of the
iteration's reverse, and the reverse of the binding is nothing.

Where: `b` is a row view of a Duplicated parameter (row_views.py: bound once, `a[i]` with int
indices, `a` never rebound), bound by a statement of a block and read only after it in the
same block (so every addition into `b_bar` happens in that iteration's reverse, after the
start); the index reads only the indices of the for loops around it or names the function
never binds (readable at the start of the reverse iteration); and no element of `a` or of
any alias is ever written (then `a_bar` is only ever added into, so adding into it sooner
changes nothing).
"""

from __future__ import annotations

import gast

from srcad import syntax as S
from srcad.analysis.recording import element_writes
from srcad.transform.reverse.row_views import row_view


class RowAdjoints:
    def _row_adjoints(self) -> dict:
        """v -> (its binding, `a_bar[i]`) for the row views whose adjoint is a view (above);
        {} on the python backend (its reverse code may be differentiated again)."""
        if self.row_adjoints is not None:
            return self.row_adjoints
        self.row_adjoints = {}
        if not self.tape_calls:  # the numba backend's array tapes
            return self.row_adjoints
        written = set().union(*(element_writes(s, self.recording.aliases)
                                for s in self.norm.body))
        for v in sorted(self.expression_arrays & set(self.bar)):
            row = row_view(v, self.recording, self.types, self.norm.params)
            if row is None or self.arg_kinds.get(row[0]) != "duplicated" \
                    or {v, row[0]} & written or row[0] not in self.bar:
                continue
            binding = self.recording.def_site[v]
            if not (self._read_after_only(v, binding) and self._index_readable(binding)):
                continue
            view = gast.Subscript(value=S.name(self.bar[row[0]]),
                                  slice=S.clone(binding.value.slice), ctx=gast.Load())
            self.row_adjoints[v] = (binding, view)
        return self.row_adjoints

    def _read_after_only(self, v, binding) -> bool:
        """Is every read of v in a statement after `binding` in its block?"""
        block, index, _ = self.recording.sites[id(binding)][-1]
        later = sum(1 for s in block[index + 1:] for n in S.nodes(s)
                    if isinstance(n, gast.Name) and n.id == v and isinstance(n.ctx, gast.Load))
        return later > 0 and later == self._load_counts().get(v, 0)

    def _index_readable(self, binding) -> bool:
        """Does the index read only for-loop indices around `binding` that nothing else binds,
        or names the function never binds?"""
        loops = {owner.target.id for _, _, owner in self.recording.sites[id(binding)]
                 if isinstance(owner, gast.For) and isinstance(owner.target, gast.Name)}
        for name in S.loaded_names(binding.value.slice):
            count = self.recording.def_count.get(name, 0)
            if not (count == 0 or (name in loops and count == 1)):
                return False
        return True

    def _row_adjoint_bindings(self, stmts, rev) -> list:
        """`v_bar = a_bar[i]` for each row view bound by one of `stmts` whose adjoint `rev`
        uses, at the start of this block's reverse."""
        out = []
        for v, (binding, view) in self._row_adjoints().items():
            if any(stmt is binding for stmt in stmts) and any(
                    self.bar[v] in S.loaded_names(r) or self.bar[v] in S.stored_names(r)
                    for r in rev):
                out.append(S.assign(S.name(self.bar[v]), S.clone(view)))
        return out
