"""Binomial checkpointing: the schedule a checkpointed loop runs (Griewank & Walther's revolve).

A `for` loop of `trips` steps whose tape would not fit is reversed from snapshots of the state
it carries from one step to the next. `binomial_plan(trips, snapshots)` returns the actions,
rows `(action, first, last)` of an int64 array:

* `TAKE, slot`: copy the loop-carried state into snapshot `slot`;
* `RESTORE, slot`: copy snapshot `slot` back into the loop-carried state;
* `ADVANCE, a, b`: run steps a .. b-1 of the primal loop (no tape);
* `TURN, j`: run step j taping it, then its adjoint (one step's tape, pushed and popped).

The rows before `split` belong to the forward sweep (snapshots and advances up to the last
step, which the forward sweep also runs so the code after the loop sees the final state; the
state before it goes to the extra slot `snapshots`), the rest to the reverse sweep. With
`snapshots` slots the advances in the reverse sweep plus those of the forward sweep, less the
last step, are the minimum of Griewank & Walther: `r * trips - binom(snapshots + r, r - 1)`
forward steps, `r` the least integer with `binom(snapshots + r, r) >= trips`
(`optimal_advances`). Memory: `snapshots + 1` states and one step's tape.

The functions use only integers and arrays, so numba compiles them unchanged
(srcad/numba_runtime.py) for the numba backend's generated code.

>>> rows, split, slots = binomial_plan(3, 1)
>>> rows[:split].tolist(), slots
([[0, 0, 0], [2, 0, 2], [0, 1, 0], [2, 2, 3]], 2)
>>> rows[split:].tolist()
[[1, 1, 0], [3, 2, 0], [1, 0, 0], [2, 0, 1], [3, 1, 0], [1, 0, 0], [3, 0, 0]]
"""

from __future__ import annotations

import re

import numpy as np

from srcad.errors import ArgumentError

TAKE, RESTORE, ADVANCE, TURN = 0, 1, 2, 3


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


def binomial_plan(trips, snapshots):
    """(rows, split, slots): the actions reversing a loop of `trips` steps with `snapshots`
    snapshot slots (at least 1; more than `trips` are not used), where the reverse sweep
    starts (`split`) and how many state slots the snapshots need (`slots`, one more than
    used: the state before the last step)."""
    snapshots = max(1, min(snapshots, trips))
    if trips == 0:
        return np.zeros((0, 3), np.int64), 0, 0
    rows, count = np.empty((64, 3), np.int64), 0
    # tasks (first, stop, slot): reverse steps first .. stop-1 from the state of step `first`
    # held in snapshot `slot`; last in, first out (the right half of a split first)
    tasks = [(0, trips, 0)]
    current = 0  # the step whose state the loop variables hold now (-1: none)
    split = -1
    if trips > 1:
        rows, count = _add(rows, count, TAKE, 0, 0)
    while len(tasks) > 0:
        first, stop, slot = tasks.pop()
        if current != first:
            rows, count = _add(rows, count, RESTORE, slot, 0)
        steps = stop - first
        if steps > 1:
            middle = first + advance_length(steps, snapshots - slot)
            rows, count = _add(rows, count, ADVANCE, first, middle)
            if middle == stop - 1:  # the last step: reverse it, then the rest from `slot`
                tasks.append((first, stop - 1, slot))
            else:
                rows, count = _add(rows, count, TAKE, slot + 1, 0)
                tasks.append((first, middle, slot))
                tasks.append((middle, stop, slot + 1))
                current = middle
                continue
        if split < 0:  # the first turn: the forward sweep ends with the last step run
            split = count
            rows, count = _add(rows, count, TAKE, snapshots, 0)
            rows, count = _add(rows, count, ADVANCE, stop - 1, stop)
            rows, count = _add(rows, count, RESTORE, snapshots, 0)
        rows, count = _add(rows, count, TURN, stop - 1, 0)
        current = -1
    return rows[:count].copy(), split + 2, snapshots + 1


def _add(rows, count, action, first, last):
    """`rows` with one more row (an array grown by doubling: a list of tuples costs ~5x the
    memory), and the new count."""
    if count == rows.shape[0]:
        rows = np.concatenate((rows, np.empty_like(rows)))
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


def checkpoint_plan(trips, state_bytes, budget):
    """`binomial_plan` with as many snapshots as `budget` bytes hold (what generated code
    calls)."""
    return binomial_plan(trips, snapshot_count(budget, state_bytes, trips))


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
