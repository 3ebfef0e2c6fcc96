"""numba backend, the automatic memory budget: a loop over it is checkpointed lazily.

numba's ordinary reverse code reserves a loop's tape once before the loop and records straight
loop bodies in slots, which is what makes it fast; the automatic plan of the python backend
(record step 0, measure its tape, plan the rest: srcad/runtime/checkpointing.py) would replace both.
So the ordinary code only compares, before a time-stepping loop at the top of the body, the tape it
is about to reserve with `DEFAULT_MEMORY` (transform/reverse/checkpoint.py, `budget_guard`) and,
over it, raises `TapeOverBudget` before the tape grows. The callers of generated code
(srcad/build/running.py's `run_again`, in srcad/build/plans.py too) then call
`run_checkpointed` (srcad/build/running.py): the code generated with `memory=MEASURED` (the
automatic plan: step 0 measured, the rest checkpointed with snapshots filling the budget),
compiled once per compiled function on the first such call, runs on the same arguments; a
CheckpointWarning names the loop, as on the python backend. Under the budget nothing else
runs: the same code, one comparison before the loop.
"""

from __future__ import annotations

import dataclasses
import threading

from srcad.runtime.checkpointing import MEASURED, TapeOverBudget

__all__ = ["COMPILER", "Fallback", "TapeOverBudget", "over_budget_fallback"]

# srcad's cached compilation (differentiate._compiled, which builds through the pipeline that
# makes these fallbacks): build/differentiate.py registers it here at import.
COMPILER: dict = {}


class Fallback:
    """What a generated function falls back to: the same request with `changes` (here
    memory=MEASURED; srcad/build/shape_fallback.py: shapes_recorded=True), compiled (through
    srcad's cache) on the first call that needs it."""

    def __init__(self, parsed, request, tapes, **changes):
        self.func, self.request, self.tapes = parsed.func, request, tuple(tapes)
        self.filename, self.name = parsed.filename, parsed.name
        self.changes = changes
        self.lock = threading.Lock()

    def compiled(self):
        with self.lock:  # threads needing it at once compile it once
            request = dataclasses.replace(self.request, **self.changes)
            return COMPILER["compiled"](self.func, request)


def over_budget_fallback(function, parsed, request, tapes):
    """`function` (numba's reverse code of `parsed` for `request`, taking and returning
    `tapes`), knowing the code to run when it raises TapeOverBudget."""
    function.srcad_over_budget = Fallback(parsed, request, tapes, memory=MEASURED)
    return function
