"""Vector forward mode with lanes stacked in NumPy vectors (the python backend's `jacfwd`
layout, whose loops may run on all iterations at once: srcad/transform/parallel_loops.py)
against one forward call per lane, itself checked against central differences. Every
Duplicated array gets W lanes of directions, W the length of the first array argument half
the time (as many lanes as a loop over it has iterations) and 3 otherwise. Every call gets
its own copies of the arrays.
"""

from __future__ import annotations

import os
import signal

import numpy as np

import srcad
from srcad.annotations import Annotation


def _copy(a):
    return a.copy() if isinstance(a, np.ndarray) else a


def check(f, args, timeout, alarm, seed=0):
    """Raises AssertionError on a disagreement."""
    backend = os.environ.get("SRCAD_FUZZ_BACKEND", "python")
    given = args()
    arrays = [a for a in given if isinstance(a, srcad.Duplicated)
              and isinstance(a.value, np.ndarray)]
    if not arrays:
        return
    rng = np.random.default_rng(seed)
    width = arrays[-1].value.size if rng.random() < 0.5 else 3
    directions = [[rng.uniform(-1.0, 1.0, a.value.shape) for _ in range(width)]
                  for a in arrays]
    signal.signal(signal.SIGALRM, alarm)
    signal.setitimer(signal.ITIMER_REAL, timeout, 1.0)
    try:
        with np.errstate(all="ignore"):
            stacked = _call(f, given, arrays, directions, None, backend)
            for lane in range(width):
                single = _call(f, given, arrays, directions, lane, backend)
                for got, want in zip(stacked, single):
                    if not np.allclose(got[lane], want, rtol=1e-9, atol=1e-9 * max(
                            1.0, float(np.max(np.abs(want))))):
                        raise AssertionError(f"stacked lane {lane} of {width}: "
                                             f"{got[lane].tolist()} != {want.tolist()}")
    finally:
        signal.setitimer(signal.ITIMER_REAL, 0)


def _call(f, given, arrays, directions, lane, backend):
    """The tangents of the Duplicated arrays: per lane (stacked, lane None) or one lane's."""
    call, shadows = [], []
    for a in given:
        if any(a is b for b in arrays):
            seeds = directions[[id(b) for b in arrays].index(id(a))]
            if lane is None:
                copies = [s.copy() for s in seeds]
                call.append(srcad.BatchDuplicated(a.value.copy(), copies))
            else:
                copies = seeds[lane].copy()
                call.append(srcad.Duplicated(a.value.copy(), copies))
            shadows.append(copies)
        elif isinstance(a, srcad.Active):
            call.append(srcad.Const(_copy(a.value)))
        elif isinstance(a, Annotation):
            call.append(type(a)(_copy(a.value)))
        else:
            call.append(_copy(a))
    options = {"batch": "stacked"} if lane is None else {}
    srcad.autodiff(srcad.Forward, f, *call, backend=backend, **options)
    return [np.array(s) for s in shadows]
