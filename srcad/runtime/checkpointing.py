"""Binomial checkpointing: the schedule a checkpointed loop runs (Griewank & Walther's revolve).

A `for` loop of `trips` steps whose tape would not fit is reversed from snapshots of the state
it carries from one step to the next. The generated code runs rows `(action, first, last)` of
an int32 array:

* `TAKE, slot`: copy the loop-carried state into snapshot `slot`;
* `RESTORE, slot`: copy snapshot `slot` back into the loop-carried state;
* `ADVANCE, a, b`: run steps a .. b-1 of the primal loop (no tape);
* `RECORD, a, b`: run steps a .. b-1 taping them (the loop's ordinary forward sweep);
* `REVERSE, a, b`: the adjoints of steps b-1 down to a, reading their tape;
* `TURN, j`: RECORD then REVERSE step j (one row: the schedule is about 4 rows a step);
* `MEASURE`: the tape one recorded step took is known: plan the rest (`checkpoint_plan`).

`binomial_plan(first, trips, snapshots)` reverses steps first .. trips-1. The rows before
`split` belong to the forward sweep (snapshots and advances up to the last step, which the
forward sweep also runs so the code after the loop sees the final state; the state before it
goes to the extra slot `snapshots`), the rest to the reverse sweep, where each step is
recorded and reversed at once (a turn), so the tape never holds more than one step. With
`snapshots` slots the advances, less the last step of the forward sweep, are the minimum of
Griewank & Walther: `r * steps - binom(snapshots + r, r - 1)` forward steps, `r` the least
integer with `binom(snapshots + r, r) >= steps` (`optimal_advances`). Memory: `snapshots + 1`
states, one step's tape and the rows (12 bytes each, at most 4 per step).

The functions use only integers and arrays, so numba compiles them unchanged
(srcad/runtime/numba_runtime.py) for the numba backend's generated code.

>>> rows, split, slots = binomial_plan(0, 3, 1)
>>> rows[:split].tolist(), slots
([[0, 0, 0], [2, 0, 2], [0, 1, 0], [2, 2, 3]], 2)
>>> rows[split:].tolist()[:3]
[[1, 1, 0], [6, 2, 3], [1, 0, 0]]
"""

from __future__ import annotations

import os
import re
import sys
import warnings

import numpy as np

from srcad.errors import ArgumentError

TAKE, RESTORE, ADVANCE, RECORD, REVERSE, MEASURE, TURN = 0, 1, 2, 3, 4, 5, 6
EXPLICIT, AUTOMATIC = -1, -2  # checkpoint_plan's step_bytes before a step is measured
DEFAULT_MEMORY = 2**28  # bytes: the budget of a loop's tape when memory= is not given
# Request.memory of the code a numba loop over the budget falls back to: the automatic plan
# (measure step 0, then plan), which numba's ordinary code does without (checkpoint_fallback.py)
MEASURED = -1


def advance_length(steps, checkpoints):
    """How far to advance from a snapshot before taking the next one, for `steps` steps left
    and `checkpoints` snapshot slots counting the one holding the current state: the `m`
    minimising `m + optimal_advances(steps - m, checkpoints - 1) + optimal_advances(m,
    checkpoints)`. That cost is convex in `m` (each term is convex and piecewise linear), so
    a binary search on its slope finds the least minimiser."""
    if checkpoints <= 1 or steps <= 2:
        return max(steps - 1, 1)
    low, high = 1, steps - 1  # the least m whose next m does not cost less
    while low < high:
        m = (low + high) // 2
        here = m + optimal_advances(steps - m, checkpoints - 1) + optimal_advances(m, checkpoints)
        after = m + 1 + optimal_advances(steps - m - 1, checkpoints - 1) \
            + optimal_advances(m + 1, checkpoints)
        if after < here:
            low = m + 1
        else:
            high = m
    return low


def binomial_plan(first, trips, snapshots):
    """(rows, split, slots): the actions reversing steps first .. trips-1 with `snapshots`
    snapshot slots (at least 1; more than the steps are not used), where the reverse sweep
    starts (`split`) and how many state slots the snapshots need (`slots`, one more than
    used: the state before the last step)."""
    snapshots = max(1, min(snapshots, trips - first))
    if trips <= first:
        return np.zeros((0, 3), np.int32), 0, 0
    # every turn follows at most one restore and one advance, every take an advance
    rows, count = np.empty((4 * (trips - first) + 4, 3), np.int32), 0
    # tasks (start, stop, slot): reverse steps start .. stop-1 from the state of step `start`
    # held in snapshot `slot`; last in, first out (the right half of a split first)
    tasks = [(first, trips, 0)]
    current = first  # the step whose state the loop variables hold now (-1: none)
    split = -1
    if trips - first > 1:
        rows, count = _add(rows, count, TAKE, 0, 0)
    while len(tasks) > 0:
        start, stop, slot = tasks.pop()
        if current != start:
            rows, count = _add(rows, count, RESTORE, slot, 0)
        steps = stop - start
        if steps > 1:
            middle = start + advance_length(steps, snapshots - slot)
            rows, count = _add(rows, count, ADVANCE, start, middle)
            if middle == stop - 1:  # the last step: reverse it, then the rest from `slot`
                tasks.append((start, stop - 1, slot))
            else:
                rows, count = _add(rows, count, TAKE, slot + 1, 0)
                tasks.append((start, middle, slot))
                tasks.append((middle, stop, slot + 1))
                current = middle
                continue
        if split < 0:  # the first turn: the forward sweep ends with the last step run
            split = count
            rows, count = _add(rows, count, TAKE, snapshots, 0)
            rows, count = _add(rows, count, ADVANCE, stop - 1, stop)
            rows, count = _add(rows, count, RESTORE, snapshots, 0)
        rows, count = _add(rows, count, TURN, stop - 1, stop)
        current = -1
    return rows[:count], split + 2, snapshots + 1


def checkpoint_plan(trips, state_bytes, budget, step_bytes, line):
    """What generated code calls. `step_bytes` EXPLICIT (memory= given): the binomial plan
    with as many snapshots as `budget` bytes hold. AUTOMATIC: record step 0, then MEASURE.
    After the measurement (`step_bytes` >= 0, the tape step 0 took): the rest of the loop
    taped whole if its tape fits in `budget`, else the binomial plan of steps 1 .. trips-1;
    step 0 is reversed last, from the tape. `line`: the loop's line in the user's file (for
    `warn_checkpointed`)."""
    if step_bytes == EXPLICIT:
        return binomial_plan(0, trips, snapshot_count(budget, state_bytes, trips))
    if step_bytes == AUTOMATIC or trips <= 1:
        if trips == 0:
            return np.zeros((0, 3), np.int32), 0, 0
        rows = np.zeros((2 if step_bytes == AUTOMATIC else 1, 3), np.int32)
        rows[0, 0] = RECORD if step_bytes == AUTOMATIC else REVERSE
        rows[0, 2] = 1
        if step_bytes == AUTOMATIC:
            rows[1, 0] = MEASURE
        return rows, rows.shape[0] if step_bytes == AUTOMATIC else 0, 0
    if (trips - 1) * step_bytes <= budget:
        rows = np.zeros((3, 3), np.int32)
        rows[0, 0], rows[0, 1], rows[0, 2] = RECORD, 1, trips
        rows[1, 0], rows[1, 1], rows[1, 2] = REVERSE, 1, trips
        rows[2, 0], rows[2, 1], rows[2, 2] = REVERSE, 0, 1
        return rows, 1, 0
    rest, split, slots = binomial_plan(1, trips, snapshot_count(budget, state_bytes, trips - 1))
    rows = np.zeros((rest.shape[0] + 1, 3), np.int32)
    rows[:rest.shape[0]] = rest
    rows[rest.shape[0], 0], rows[rest.shape[0], 2] = REVERSE, 1
    return rows, split, slots


def checkpointed(rows) -> bool:
    """Does a plan recompute steps (rather than tape the loop whole)?"""
    return bool(np.any(rows[:, 0] == ADVANCE))


def _add(rows, count, action, first, last):
    """`rows` with row `count` set, and the new count."""
    rows[count, 0] = action
    rows[count, 1] = first
    rows[count, 2] = last
    return rows, count + 1


def snapshot_count(budget, state_bytes, trips):
    """The snapshots a `budget` of bytes holds for states of `state_bytes` (one slot is the
    extra state before the last step), at least 1 and at most `trips`."""
    slots = budget // max(state_bytes, 1) - 1
    return max(1, min(slots, trips))


def optimal_advances(trips, snapshots):
    """Griewank & Walther's minimal number of forward steps (advances, the taped steps not
    counted) reversing `trips` steps with `snapshots` snapshots: `r * trips -
    binom(snapshots + r, r - 1)`, `r` the least integer with `binom(snapshots + r, r) >= trips`.

    >>> optimal_advances(3, 1), optimal_advances(10, 2)
    (3, 20)
    """
    if trips <= 1:
        return 0
    if snapshots <= 1:
        return trips * (trips - 1) // 2
    r = 0
    while _binom(snapshots + r, r) < trips:
        r += 1
    return r * trips - _binom(snapshots + r, r - 1)


def _binom(n, k):
    if k < 0 or k > n:
        return 0
    out = 1
    for j in range(1, k + 1):
        out = out * (n - k + j) // j
    return out


def count_advances(rows) -> int:
    """Primal steps `rows` run without tape (the unit tests compare with optimal_advances)."""
    return int(sum(r[2] - r[1] for r in rows if r[0] == ADVANCE))



class CheckpointWarning(UserWarning):
    """A loop's tape would exceed the default memory budget: it is checkpointed instead.

    The warning names the loop's file, line and function. Pass `memory=` to choose the budget,
    or silence it where checkpointing is expected:

    >>> import warnings
    >>> import srcad
    >>> def decay(x):
    ...     for _ in range(1000):
    ...         x = x * 0.999
    ...     return x
    >>> with warnings.catch_warnings():
    ...     warnings.simplefilter("ignore", srcad.CheckpointWarning)
    ...     round(srcad.grad(decay)(2.0), 6)  # 0.999 ** 1000
    0.367695
    """


class TapeOverBudget(Exception):
    """Raised by numba's ordinary reverse code before a time-stepping loop whose tape would
    exceed the default budget, before the tape grows; the caller reruns the checkpointed code
    (srcad/build/checkpoint_fallback.py). numba rebuilds it from its arguments."""

    def __init__(self, line, trips, tape_bytes, state_bytes, budget):
        super().__init__(line, trips, tape_bytes, state_bytes, budget)
        self.line, self.trips, self.tape_bytes = line, trips, tape_bytes
        self.state_bytes, self.budget = state_bytes, budget


def warn_checkpointed(trips, state_bytes, budget, step_bytes, line, filename="<unknown>",
                      function="f"):
    """`checkpoint_plan` for the python backend: says when the automatic budget made it
    checkpoint a loop (a warning naming the loop's file, line and function, reported at the
    user's call; silence it with `warnings.simplefilter("ignore", srcad.CheckpointWarning)`,
    or choose with memory=). The pipeline binds `filename` and `function`."""
    plan = checkpoint_plan(trips, state_bytes, budget, step_bytes, line)
    if step_bytes >= 0 and checkpointed(plan[0]):
        warn_budget(filename, line, function, (trips - 1) * step_bytes, trips, budget,
                    plan[2] - 1)
    return plan


def warn_budget(filename, line, function, tape_bytes, trips, budget, snapshots):
    """The CheckpointWarning of a loop the automatic budget checkpointed, reported at the
    first frame outside srcad (the user's call)."""
    warnings.warn(f"srcad: the loop at {filename}:{line} (in {function}) would tape about "
                  f"{tape_bytes} bytes ({trips} steps), over the default memory budget of "
                  f"{budget} bytes (srcad.runtime.checkpointing.DEFAULT_MEMORY); it is "
                  f"checkpointed "
                  f"({snapshots} snapshots of its state, recomputing steps). Pass memory= to "
                  "set the budget.", CheckpointWarning, stacklevel=_outside_srcad())


_SRCAD_DIRECTORY = os.path.dirname(os.path.dirname(os.path.abspath(__file__))) + os.sep


def _outside_srcad() -> int:
    """The stacklevel of warn_budget's caller's first frame outside srcad (its modules and
    the code it generates): the user's call, where the warning is reported."""
    frame, level = sys._getframe(2), 2  # the caller of warn_budget is level 2
    while frame is not None and (frame.f_code.co_filename.startswith(_SRCAD_DIRECTORY)
                                 or frame.f_code.co_filename.startswith("<srcad")):
        frame, level = frame.f_back, level + 1
    return level


def array_bytes(arrays):
    """Bytes of the arrays on a tape of arrays (a list)."""
    total = 0
    for a in arrays:
        total += a.size * 8
    return total


_UNITS = {"": 1, "b": 1, "kb": 10**3, "mb": 10**6, "gb": 10**9, "tb": 10**12,
          "kib": 2**10, "mib": 2**20, "gib": 2**30, "tib": 2**40}


def memory_bytes(memory) -> int | None:
    """`memory=` as bytes: an int, or a string such as "50MB", "1.5 GB", "512KiB"; None stays
    None (loops are taped whole).

    >>> memory_bytes("50MB"), memory_bytes(4096), memory_bytes("2 KiB")
    (50000000, 4096, 2048)
    """
    if memory is None:
        return None
    if isinstance(memory, (int, np.integer)) and not isinstance(memory, bool):
        amount = int(memory)
    else:
        match = re.fullmatch(r"\s*([0-9]*\.?[0-9]+)\s*([a-zA-Z]*)\s*", memory) \
            if isinstance(memory, str) else None
        if match is None or match.group(2).lower() not in _UNITS:
            raise ArgumentError(f"memory= takes bytes as an int or a string such as '50MB', "
                                f"got {memory!r}", construct="memory",
                                hint="units: B, KB, MB, GB, TB, KiB, MiB, GiB, TiB")
        amount = int(float(match.group(1)) * _UNITS[match.group(2).lower()])
    if amount <= 0:
        raise ArgumentError(f"memory= is a positive number of bytes, got {memory!r}",
                            construct="memory")
    return amount


def reverse_memory(memory, forward: bool, what: str, hint: str = "leave memory= out") -> int | None:
    """`memory=` as bytes (None: loops are taped whole), refused where `what` runs forward
    mode, which has no tape to bound: the one check of memory= for autodiff, the decorators
    and the operators.

    >>> reverse_memory("2 KiB", False, "this gradient")
    2048
    """
    if memory is None:
        return None
    if forward:
        raise ArgumentError(f"memory= bounds the tape of reverse mode, and {what} runs forward "
                            "mode", construct="memory", hint=hint)
    return memory_bytes(memory)
