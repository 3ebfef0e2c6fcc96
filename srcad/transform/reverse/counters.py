"""Induction counters restored by undoing their steps (a part of `ReverseTransform`).

A counter analysis/induction.py proves (`c = 0`, then `c += 1` in the for loops after it) is
not taped where the reverse sweep reads it: the reverse of each step runs its inverse
(`c -= 1`), so inside the counter's region `c` holds, wherever the reverse of a statement runs,
the value the forward sweep had there (recording.py, rule 4). Where the region runs more than
once (it sits in a loop), the value it leaves is pushed once per run and popped back at the
start of its reverse: gmm's `lparamsidx`, one push per inner-loop iteration before, is now one
per call of the helper.

A counter is restored only where that pays: the reverse sweep reads it (an active statement of
the region reads it) and its steps are readable there without replays (a constant, a loop
index, a name nothing rebinds later). Otherwise it is taped, as before.
"""

from __future__ import annotations

import gast

from srcad.analysis.induction import induction_counters
from srcad.analysis.types import INT
from srcad.frontend import syntax as S


class ReverseCounters:
    def _restored_counters(self) -> dict:
        """{name: Induction} of the counters the reverse sweep restores by inverse steps."""
        out = {}
        for name, counter in induction_counters(self.norm.body, self.types).items():
            region = counter.block[counter.first:counter.last + 1]
            if not any(self._reverse_reads(node, name) for stmt in region
                       for node in gast.walk(stmt)):
                continue  # nothing to restore it for
            steps = [n for stmt in region for n in gast.walk(stmt) if id(n) in counter.steps]
            if all(self._step_readable(counter.steps[id(s)][1], s) for s in steps):
                out[name] = counter
        return out

    def retraced_counters(self) -> frozenset:
        """The restored counters whose every step adds (`c += s`): in the generated code their
        only `-=` are the reverse sweep's inverse steps, which, with the value popped at a
        region's reverse, give them only values the forward sweep gave them
        (srcad/transform/numba_indices.py bounds them by their forward bindings)."""
        return frozenset(name for name, counter in self.recording.counters.items()
                         if all(isinstance(inverse, gast.Sub)
                                for inverse, _ in counter.steps.values()))

    def _reverse_reads(self, node, name) -> bool:
        """Is `node` an assignment to an active variable that reads `name` (an index of an
        active element, an operand of a product, ...)?"""
        if not isinstance(node, (gast.Assign, gast.AugAssign)):
            return False
        target = node.targets[0] if isinstance(node, gast.Assign) else node.target
        return S.target_name(target) in self.bar and name in S.loaded_names(node)

    def _step_readable(self, step, stmt) -> bool:
        replays: list = []
        return self.recording.readable(step, stmt, replays) and not replays

    def counter_step(self, stmt):
        """(forward, reverse) of a step of a restored counter, or None for other statements."""
        for counter in self.recording.counters.values():
            if id(stmt) in counter.steps:
                inverse, step = counter.steps[id(stmt)]
                line = self.norm.parsed.line_of(stmt)
                note = S.comment(f"line {line}: {S.unparse_header(stmt)} (a counter: its step "
                                 "is undone here, not taped)")
                return [stmt], [note, S.aug_assign(S.name(counter.name), inverse,
                                                   S.clone(step))]
        return None

    def counter_region_ends(self, block, index) -> tuple[list, list]:
        """(forward statements after `block[index]`, reverse statements before its reverse):
        for each restored counter whose region ends there and runs in a loop, the value the
        region leaves, pushed and popped back (where the region runs once, the counter keeps
        that value until the reverse sweep reaches it)."""
        pushes, pops = [], []
        for counter in self.recording.counters.values():
            if counter.block is not block or counter.last != index \
                    or not self.recording.loops_around(counter.start):
                continue
            push, pop = self._tape_value(S.name(counter.name), INT,
                                         S.name(counter.name, store=True))
            pushes += push
            pops[:0] = [S.comment(f"{counter.name} as this run of its region left it (undone "
                                  "step by step below)")] + pop
            self.taped.append(counter.name)
        return pushes, pops
