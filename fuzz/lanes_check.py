"""Batched reverse mode on the second-order programs (fuzz/grammar_second_order.py: `f(x)` of
a float vector, returning a float): `autodiff(Reverse, f, BatchDuplicated(x, 2 shadows),
seed=[1.0, -2.5])` must add 1.0 and -2.5 times srcad's gradient (itself checked against
central differences) into the two shadows. Code the lanes cannot run is refused by design
(`BatchUnsupported` up front, `LanesUnsupported` when a call of primal values returns an
array: srcad/operators/lane_calls.py): that counts as agreed, the callers sweep per row then.
Every call gets its own copy of x (the programs may write their input).
"""

from __future__ import annotations

import os
import signal

import numpy as np

import srcad
from srcad.operators.batched_reverse import BatchUnsupported
from srcad.operators.lane_calls import LanesUnsupported

SEEDS = (1.0, -2.5)


def check(f, x, timeout, alarm):
    """Raises AssertionError on a disagreement (SrcadError on a refusal other than lanes')."""
    backend = os.environ.get("SRCAD_FUZZ_BACKEND", "python")
    signal.signal(signal.SIGALRM, alarm)
    signal.setitimer(signal.ITIMER_REAL, timeout)
    try:
        with np.errstate(all="ignore"):
            g = srcad.grad(f, backend=backend)(x.copy())
            shadows = [np.zeros_like(x) for _ in SEEDS]
            try:
                srcad.autodiff(srcad.Reverse, f, srcad.BatchDuplicated(x.copy(), shadows),
                               seed=list(SEEDS), backend=backend)
            except (BatchUnsupported, LanesUnsupported):
                return
            for seed, shadow in zip(SEEDS, shadows):
                if not np.allclose(shadow, seed * g, rtol=1e-9, atol=1e-9 * abs(seed)):
                    raise AssertionError(f"lane seeded {seed}: {shadow.tolist()} != {seed} * "
                                         f"grad {g.tolist()}")
    finally:
        signal.setitimer(signal.ITIMER_REAL, 0)
