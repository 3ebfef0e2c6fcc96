"""The rows of a reverse-mode Jacobian (`jacrev` of a function with an array output): W
cotangents pulled back per reverse sweep on the python backend (srcad/operators/
batched_reverse.py runs the generated reverse code on W lanes of adjoints at once), one
sweep per output element where the reverse code cannot run lanes (whole-array code such as
`np.sum(y)`) and on numba.

With W lanes a sweep costs about one NumPy operation per statement of the reverse code
whatever W is, so a square Jacobian costs about what `jacfwd`'s batched forward pass costs.
"""

from __future__ import annotations

import numpy as np

from srcad.annotations import Active, BatchDuplicated, Duplicated, ReverseWithPrimal
from srcad.api.transform_calls import run
from srcad.build.progress import Progress
from srcad.build.transform_outputs import dtype_of
from srcad.errors import SrcadError
from srcad.operators import reverse_lane_count

LANES = 2048  # cotangents per sweep (equal sweeps): W times the adjoints, as jacfwd's lanes
# fewer where a sweep's seeds, the W-wide shadows of the arguments (m plus their elements a lane)
# and what a one-lane pass held (the adjoints of f's own arrays widen too) would hold more than
# reverse_lane_count.LANE_BYTES (the one budget of W-lane adjoints, read at each call): 417
# lanes, not 2048, for a map of 10**4 floats to 10**4
_REFUSED: dict = {}  # (function, argument signature) -> True where lanes were refused
_REFUSED_SIZE = 64


def reverse_rows(target, args, wrt, values, out_shape, backend, key, allocated=0):
    """The Jacobian blocks (out_shape + argument shape), or None if an output of another
    shape came back. `key`: the argument signature, to remember a refusal of lanes;
    `allocated`: the floats a one-lane pass held at its peak (their adjoints widen with the
    lanes)."""
    m = int(np.prod(out_shape))
    blocks = [np.zeros(out_shape + np.shape(v), dtype=dtype_of(v)) for v in values]
    rows = [b.reshape((m,) + np.shape(v)) for b, v in zip(blocks, values)]
    with Progress(m, "jacrev rows") as progress:
        if backend == "python" and m > 1 and (target, key) not in _REFUSED:
            try:
                return blocks if _lanes(target, args, wrt, values, out_shape, rows, m,
                                        backend, progress, allocated) else None
            except SrcadError:  # the reverse code cannot run lanes: one sweep per row
                if len(_REFUSED) >= _REFUSED_SIZE:
                    _REFUSED.clear()
                _REFUSED[(target, key)] = True
                for row in rows:
                    row.fill(0.0)
        return blocks if _one_by_one(target, args, wrt, values, out_shape, rows, m, backend,
                                     progress) else None


def _lanes(target, args, wrt, values, out_shape, rows, m, backend, progress,
           allocated=0) -> bool:
    """Rows start .. start + W per sweep, lane k seeded with the unit vector e_(start + k)."""
    per_lane = m + sum(int(np.size(v)) for v in values) + allocated
    most = max(1, min(LANES, reverse_lane_count.LANE_BYTES // (8 * per_lane)))
    width = -(-m // -(-m // most))  # equal sweeps of at most `most` lanes
    annotated = list(args)
    for start in range(0, m, width):
        count = min(width, m - start)
        seed = np.zeros((count, m))
        seed[np.arange(count), start + np.arange(count)] = 1.0
        seed = seed.reshape((count,) + out_shape)
        for i, value, row in zip(wrt, values, rows):
            annotated[i] = BatchDuplicated(value, list(row[start:start + count])) \
                if isinstance(value, np.ndarray) else Active(value)
        if not any(isinstance(a, BatchDuplicated) for a in annotated):
            return _one_by_one(target, args, wrt, values, out_shape, rows, m, backend,
                               progress)
        derivatives, output = run("jacrev", ReverseWithPrimal, target, annotated, seed,
                                  backend)
        if np.shape(output) != out_shape:
            return False
        for i, value, row in zip(wrt, values, rows):
            if not isinstance(value, np.ndarray):
                row[start:start + count] = derivatives[i]
        progress.step(count)
    return True


def _one_by_one(target, args, wrt, values, out_shape, rows, m, backend, progress) -> bool:
    """One reverse pass per output element seeded with its unit vector."""
    seed = np.zeros(out_shape)
    flat_seed = seed.reshape(-1)
    annotated = list(args)
    for k in range(m):
        flat_seed[k] = 1.0
        for i, value, row in zip(wrt, values, rows):
            # an array argument's gradient accumulates straight into its row of the block
            annotated[i] = Duplicated(value, row[k]) if isinstance(value, np.ndarray) \
                else Active(value)
        derivatives, output = run("jacrev", ReverseWithPrimal, target, annotated, seed,
                                  backend)
        if np.shape(output) != out_shape:
            return False
        for i, value, row in zip(wrt, values, rows):
            if not isinstance(value, np.ndarray):
                row[k] = derivatives[i]
        flat_seed[k] = 0.0
        progress.step()
    return True
