"""Batched reverse mode on every fuzz program: each Duplicated array argument becomes
`BatchDuplicated` with two shadows and the call is seeded `[1.0, -2.5]`; lane k must add
seed_k times what one reverse call (itself checked against central differences) adds into the
shadow, and an Active float gets its two derivatives. Code the lanes cannot run is refused by
design (`BatchUnsupported` up front, `LanesUnsupported` when a call of primal values or an
operand of adjoint arithmetic is an array: srcad/operators/lane_calls.py): that counts as
agreed, the callers sweep once per row then. Every call gets its own copies of the arrays.
A program with a parameter container among its arguments (`--containers`, `--records`),
varied or constant, is not checked here: reverse-mode lanes run with array and float
arguments only (refused with an `ArgumentError` beside a container), and its forward, vector
and reverse modes are checked as any program's;
nor is an f returning a tuple (`--python`, `--containers`): the lanes' `seed=[1.0, -2.5]`
seeds one float.
"""

from __future__ import annotations

import os
import signal

import numpy as np

import srcad
from srcad.annotations import Annotation
from srcad.operators.batched_reverse import BatchUnsupported
from srcad.operators.lane_calls import LanesUnsupported

SEEDS = (1.0, -2.5)


def _copy(a):
    return a.copy() if isinstance(a, np.ndarray) else a


def check(f, args, timeout, alarm):
    """Raises AssertionError on a disagreement (SrcadError on a refusal other than lanes')."""
    backend = os.environ.get("SRCAD_FUZZ_BACKEND", "python")
    given = args()
    if not any(isinstance(a, srcad.Duplicated) for a in given) or any(
            not isinstance(a.value if isinstance(a, Annotation) else a,
                           (np.ndarray, float, int, str, np.floating, np.integer, type(None)))
            for a in given):
        return
    single, batch = [], []
    for a in given:
        if isinstance(a, srcad.Duplicated):
            single.append(srcad.Duplicated(a.value.copy(), np.zeros_like(a.value)))
            batch.append(srcad.BatchDuplicated(a.value.copy(),
                                               [np.zeros_like(a.value) for _ in SEEDS]))
        elif isinstance(a, Annotation):
            single.append(type(a)(_copy(a.value)))
            batch.append(type(a)(_copy(a.value)))
        else:
            single.append(_copy(a))
            batch.append(_copy(a))
    signal.signal(signal.SIGALRM, alarm)
    signal.setitimer(signal.ITIMER_REAL, timeout, 1.0)
    try:
        with np.errstate(all="ignore"):
            plain = [_copy(a.value) if isinstance(a, Annotation) else _copy(a) for a in given]
            if isinstance(f(*plain), tuple):
                return
            reference = srcad.autodiff(srcad.Reverse, f, *single, backend=backend)
            try:
                lanes = srcad.autodiff(srcad.Reverse, f, *batch, seed=list(SEEDS),
                                       backend=backend)
            except (BatchUnsupported, LanesUnsupported):
                return
        for one, many, d_one, d_many in zip(single, batch, reference, lanes):
            pairs = zip(SEEDS, many.shadows) if isinstance(many, srcad.BatchDuplicated) else \
                zip(SEEDS, d_many) if isinstance(many, srcad.Active) else ()
            want = one.shadow if isinstance(one, srcad.Duplicated) else d_one
            for seed, got in pairs:
                if not np.allclose(got, seed * np.asarray(want), rtol=1e-9,
                                   atol=1e-9 * max(1.0, float(np.max(np.abs(want))))):
                    raise AssertionError(f"lane seeded {seed}: {np.asarray(got).tolist()} != "
                                         f"{seed} * {np.asarray(want).tolist()}")
    finally:
        signal.setitimer(signal.ITIMER_REAL, 0)
