"""numba backend, the automatic memory budget: a loop over it is checkpointed lazily.

numba's ordinary reverse code reserves a loop's tape once before the loop and records straight
loop bodies in slots, which is what makes it fast; the automatic plan of the python backend
(record step 0, measure its tape, plan the rest: srcad/runtime/checkpointing.py) would replace both.
So the ordinary code only compares, before a time-stepping loop at the top of the body, the tape it
is about to reserve with `DEFAULT_MEMORY` (transform/reverse/checkpoint.py, `budget_guard`) and,
over it, raises `TapeOverBudget` before the tape grows. The callers of generated code
(srcad/build/running.py's `run_again`, in srcad/build/plans.py too) then call `run_checkpointed`:
the
code generated with `memory=MEASURED` (the automatic plan: step 0 measured, the rest checkpointed
with snapshots filling the budget), compiled once per compiled function on the first such call,
runs on the same arguments; a CheckpointWarning names the loop, as on the python backend. Under
the budget nothing else runs: the same code, one comparison before the loop.
"""

from __future__ import annotations

import dataclasses
import threading

from srcad.runtime.checkpointing import MEASURED, TapeOverBudget, snapshot_count, warn_budget

__all__ = ["Fallback", "TapeOverBudget", "over_budget_fallback", "run_checkpointed",
           "run_variant"]


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
        from srcad.build.differentiate import _compiled  # noqa: PLC0415 - it imports the pipeline

        with self.lock:  # threads needing it at once compile it once
            return _compiled(self.func, dataclasses.replace(self.request, **self.changes))


def over_budget_fallback(function, parsed, request, tapes):
    """`function` (numba's reverse code of `parsed` for `request`, taking and returning
    `tapes`), knowing the code to run when it raises TapeOverBudget."""
    function.srcad_over_budget = Fallback(parsed, request, tapes, memory=MEASURED)
    return function


def run_checkpointed(function, flat, over: TapeOverBudget, explain=None):
    """What `function(*flat)` returns, computed by its checkpointed variant after `function`
    raised `over`: (value, adjoints, then each of `function`'s tapes if grown, else None);
    `explain(err)` raises what an error of the variant stands for."""
    fallback = function.srcad_over_budget
    out = run_variant(fallback, flat, explain)
    warn_budget(fallback.filename, over.line, fallback.name, over.tape_bytes, over.trips,
                over.budget, snapshot_count(over.budget, over.state_bytes, over.trips - 1))
    return out


def run_variant(fallback: Fallback, flat, explain=None):
    """What the function `fallback` belongs to returns for `flat`, computed by the variant:
    (value, adjoints, then each of the function's tapes if grown, else None). The variant
    takes the tapes it shares with the function from `flat` (the others from its own
    spares); `explain(err)` raises what an error of the variant stands for."""
    from srcad.build.running import call_generated, kept_tapes, take_buffers  # noqa: PLC0415

    variant = fallback.compiled()
    own = take_buffers(variant)
    count = len(fallback.tapes)
    given = dict(zip(fallback.tapes, flat[len(flat) - count:]))
    passed = [given.get(kind, own[k]) for k, kind in enumerate(variant.tapes)]
    arguments = list(flat[:len(flat) - count]) + passed
    if explain is None:
        out = call_generated(variant.function, arguments)
    else:
        try:
            out = variant.function(*arguments)
        except Exception as err:
            explain(err)
            raise
    # the variant keeps its own tapes (grown or not); the shared ones go back to the caller
    variant.spare.append(kept_tapes(own, [None if kind in given else grown for kind, grown
                                          in zip(variant.tapes, out[2:])]))
    returned = dict(zip(variant.tapes, out[2:]))
    return (out[0], out[1]) + tuple(returned.get(kind) for kind in fallback.tapes)
