"""How many rows a default reverse-mode jacobian pulls back per sweep (W), and its preparation.

W lanes make every adjoint array W times wider: the shadows of x, of the Outputs and Caches
and a returned array's seed, and the adjoints of the arrays f allocates itself. W is bounded
by MAX_REVERSE_LANES and by LANE_BYTES of those; on the python backend the arrays f allocates
are measured once, at preparation, by running f on copies of its arguments under
`tracemalloc` (the peak of what the call holds: its arrays and, as an overestimate, the
temporaries of whole-array code, which the lanes widen too). On numba f is not run (its
CPython primal may take far longer than the compiled jacobian): the arguments' shadows bound W.
"""

from __future__ import annotations

import tracemalloc
from contextlib import contextmanager

import numpy as np

from srcad.errors import SrcadError
from srcad.operators.batched_lanes import BatchUnsupported
from srcad.operators.batched_reverse import prepare_batched_reverse_jacobian

# the default rows per reverse sweep (memory of W-lane adjoints): numba's loop over the lanes,
# the python backend's NumPy vectors of lanes (wider: each statement costs one NumPy operation
# whatever W is)
MAX_REVERSE_LANES = {"numba": 64, "python": 256}
# fewer lanes where the W-wide shadows of x, the Outputs and Caches, a returned array's seed and
# the arrays f allocates would hold more than this (a Cache of a million floats: 8 lanes on the
# python backend, not 256); jacrev's batched sweeps (srcad/api/reverse_rows.py) read it too
LANE_BYTES = 64 * 2**20
# a call's own peak below this counts as nothing: the Python objects of any call (frames,
# floats) and small arrays, a thousandth of LANE_BYTES
ALLOCATION_FLOOR = 64 * 2**10


def allocated_floats(f, slots, backend) -> int:
    """The floats f's own allocations hold at their peak in one call (python backend: one run
    of f on copies of its arguments under tracemalloc). 0 on numba, where the caller traces
    memory itself (not disturbed), where f raises (the sweeps report it) and below
    ALLOCATION_FLOOR bytes.

    >>> def f(x):
    ...     scratch = np.zeros(100_000)
    ...     return x * scratch[:3].sum()
    >>> from srcad.build.engine_slots import Slot
    >>> 100_000 <= allocated_floats(f, [Slot("x", np.ones(3))], "python") < 101_000
    True
    """
    return call_peak(f, [s.value for s in slots]) if backend == "python" else 0


def call_peak(f, args) -> int:
    """The floats one call `f(*args)` holds at its peak, run on copies of the arrays in args
    (0 where f raises: the sweeps report it with srcad's context)."""
    copies = [a.copy() if isinstance(a, np.ndarray) else a for a in args]
    with peak_floats() as peak:
        try:
            f(*copies)
        except Exception:  # noqa: BLE001 (an estimate)
            return 0
    return peak[0]


@contextmanager
def peak_floats():
    """A one-element list holding, after the block, the floats its allocations held at their
    peak (tracemalloc); 0 below ALLOCATION_FLOOR bytes, and where the caller traces memory
    itself (not disturbed).

    >>> with peak_floats() as peak:
    ...     scratch = np.ones(10**5)
    >>> 10**5 <= peak[0] < 101_000
    True
    """
    peak = [0]
    if tracemalloc.is_tracing():
        yield peak
        return
    tracemalloc.start()
    try:
        yield peak
        held = tracemalloc.get_traced_memory()[1]
        peak[0] = held // 8 if held >= ALLOCATION_FLOOR else 0
    finally:
        tracemalloc.stop()


def default_lane_count(slots, template, m, backend, allocated=0) -> int:
    """W, the rows per sweep of a default reverse jacobian of m rows: equal sweeps of at most
    MAX_REVERSE_LANES, fewer where the lanes' shadows and f's own `allocated` floats
    (`allocated_floats`), all W times wider, would pass LANE_BYTES.

    >>> from srcad.build.engine_slots import Slot
    >>> default_lane_count([Slot("x", np.zeros(10))], np.zeros(600), 600, "python")
    200
    >>> default_lane_count([Slot("x", np.zeros(10))], np.zeros(600), 600, "python", 10**6)
    8
    """
    shadows = [np.size(s.value) for s in slots if s.role != "constant"]
    seed = 0 if any(s.role == "output" for s in slots) else np.size(template)  # else y's shadow
    elements = seed + sum(shadows) + allocated
    most = min(MAX_REVERSE_LANES[backend], LANE_BYTES // (8 * max(elements, 1)), m)
    return -(-m // -(-m // most)) if most >= 1 else 0


def default_batched_reverse_jacobian(f, slots, template, n, m, backend="numba", width=None):
    """A reverse-mode jacobian with more than one row: W rows per sweep (`width`, by default
    `default_lane_count`), or None when the reverse code is refused for lanes, on numba also
    by a first sweep run here, which compiles it (the caller sweeps once per row; on the
    python backend a call whose lanes stop sweeps once per row from then on). Also where f
    writes an `Output(y)` or a `Cache(c)`: lanes allocate adjoints W times wider on every
    call, which costs far less than m - 1 more sweeps of CPython (ht's 300 rows: two sweeps
    of 150 lanes against 300 sweeps)."""
    width = width or default_lane_count(slots, template, m, backend)
    try:
        prep = prepare_batched_reverse_jacobian(f, slots, template, width, backend, n, m)
        prep.state["chosen"] = True  # not asked for: calls may fall back to one row a sweep
        if backend == "numba":  # compiled now, not at a first call
            restore = prep.engine.output_restore  # the Outputs and Caches as found here
            restore.take(prep.engine.flat)
            try:
                prep.engine.rows(np.empty((width, n)), 0, width)
            finally:
                restore.put_back(prep.engine.flat)  # the call's first pass reads them as given
    except BatchUnsupported:
        return None
    except SrcadError:  # numba refused the lanes' code: the one-row sweeps still serve
        return None
    return prep
