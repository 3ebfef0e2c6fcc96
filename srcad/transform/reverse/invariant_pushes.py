"""Values the reverse sweep needs that a loop nest leaves alone, recorded once per run of the
loops instead of once per iteration (a part of `ReverseTransform`, used by `_record`).

A number the for loops around a read leave alone (an inner loop reading the row its outer loop
chose), or an element `a[i]` whose array and index names those loops do not write, is pushed
once after the outermost such loop and popped before that loop's reverse loop
(`transform/reverse_flow.py` emits both from the loop frame's `invariants`). Only where every
name involved is certainly bound when that loop ends (a parameter, a name assigned at the top
level of an enclosing block before the loop, or the index of a loop around it), so the push
cannot read an unbound name where the loop runs no iteration; never across a checkpointed loop,
which records nothing after itself.
"""

from __future__ import annotations

import gast

from srcad.analysis.types import FLOAT, INT, Array
from srcad.frontend import syntax as S


class InvariantPushes:
    def _taped_after_loop(self, name) -> bool:
        """Record the number `name` once per run of the enclosing for loops that leave it
        alone, instead of once per iteration: pushed after the outermost such loop, popped
        back before its reverse loop (`for_loop` emits both, `frame["invariants"]`). The row of
        det's expansion by minors went on the tape once per column: now once per minor.
        Only where `name` is certainly bound when that loop ends (a parameter, or assigned at
        the top level of a block the loop sits in, before it), so the push cannot fail where
        the loop runs no iteration."""
        if isinstance(self.types[name], Array) or self.types[name] not in (FLOAT, INT):
            return False
        chosen = None
        for frame in reversed(self.loop_frames):
            if frame["kind"] != "for" or frame.get("checkpointed") \
                    or name in self.recording.subtree_binds(frame["loop"]):
                break
            chosen = frame
        if chosen is None or not self._bound_before(name, chosen["loop"]):
            return False
        chosen.setdefault("invariants", {})[name] = (self.types[name], S.name(name))
        return True

    def _element_taped_after_loop(self, expr):
        """The name to read an element `a[i]` (a number) back into when the enclosing for
        loops leave it alone -- they write neither `a`'s elements (through any alias) nor the
        names of its index -- so that it goes on the tape once per run of those loops, as a
        number does (`_taped_after_loop`), instead of once per iteration: gmm's `x[i]`, read
        for every j of `for j in range(i + 1, d)`, once per i. None where it does not apply."""
        typ = self.types.of(expr)
        if typ not in (FLOAT, INT) or not isinstance(expr.value, gast.Name) \
                or not all(isinstance(n, (gast.Name, gast.Constant, gast.BinOp, gast.Tuple,
                                          gast.operator, gast.expr_context))
                           for n in gast.walk(expr.slice)):
            return None
        names = {expr.value.id} | {n.id for n in gast.walk(expr.slice)
                                   if isinstance(n, gast.Name)}
        chosen, outer = None, []
        for k in range(len(self.loop_frames) - 1, -1, -1):
            frame = self.loop_frames[k]
            if frame["kind"] != "for" or frame.get("checkpointed") \
                    or names & self.recording.subtree_defs(frame["loop"]):
                break
            chosen, outer = frame, self.loop_frames[:k]
        if chosen is None:
            return None
        # bound when the chosen loop ends: before it, or the index of a loop around it
        around = {f["loop"].target.id for f in outer if f["kind"] == "for"
                  and isinstance(f["loop"].target, gast.Name)}
        if not all(n in around or self._bound_before(n, chosen["loop"]) for n in names):
            return None
        tmp = self.namer.fresh(f"{S.target_name(expr)}_value")
        chosen.setdefault("invariants", {})[tmp] = (typ, S.as_load(S.clone(expr)))
        return tmp

    def _bound_before(self, name, loop) -> bool:
        if name in self.norm.params:
            return True
        for block, index, _ in self.recording.sites[id(loop)]:
            if any(isinstance(stmt, gast.Assign) and name in S.bound_names(stmt)
                   for stmt in block[:index]):
                return True
        return False

