"""Outputs and Caches whose entry content f reads, restored before each pass of an operator.

An operator runs f once per pass (a Jacobian by reverse mode: one pass per row; by forward
mode in chunks: one pass per chunk). f writes its Output y in each pass; when f also reads
y's content on entry (`y[i] = y[i] * x[i] + ...`), the second pass would start from what the
first one left and differentiate f applied twice: a wrong Jacobian, and y holding f applied
m times. A Cache f reads before writing it is the same case (a gradient by forward chunks
once took each chunk from what the previous chunk left in it). So each pass after the first
of one operator call starts from y's content on entry, copied aside when the call's
arguments are set (`take`), as InputCopy does for an x f writes. A forward engine skips the
Outputs and Caches its code provably overwrites before reading them
(analysis/written_first.py, the same proof that skips zeroing their tangents). The copy is
allocated at preparation, so a prepared call allocates nothing.
"""

from __future__ import annotations

import numpy as np


class OutputRestore:
    """The Outputs and Caches at flat positions `indices`, restored to their content on entry before
    every pass but the first of a call."""

    def __init__(self, flat: list, indices: list):
        self.indices = indices
        self.saved = [np.empty_like(flat[i]) for i in indices]
        self.first = True

    @staticmethod
    def needed(slots, flat, value_index, proven=()):
        """An OutputRestore of the array Outputs and Caches, except those whose tangent (an entry of
        `flat`) is in `proven` (ids of tangents written in full before they are read: the
        code that writes them writes the Output first too); it has no `indices` (and costs
        two empty loops per pass) when there are none."""
        indices = [value_index[p] for p, slot in enumerate(slots)
                   if slot.role in ("output", "cache") and slot.is_array
                   and id(flat[value_index[p] + 1]) not in proven]
        return OutputRestore(flat, indices)

    def take(self, flat: list) -> None:
        """The call's arguments are in `flat`: keep the Outputs' content on entry."""
        for saved, i in zip(self.saved, self.indices):
            np.copyto(saved, flat[i])
        self.first = True

    def put_back(self, flat: list) -> None:
        """The Outputs' content as `take` found it (after a run at preparation)."""
        for saved, i in zip(self.saved, self.indices):
            np.copyto(flat[i], saved)

    def refill(self, flat: list) -> None:
        """Before a pass: the Outputs' content on entry, unless this is the call's first."""
        if self.first:
            self.first = False
            return
        self.put_back(flat)
