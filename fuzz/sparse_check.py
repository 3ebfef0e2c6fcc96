"""The sparse jacobian (`jacobian(..., sparse=True)`: a traced pattern, colored columns, one
forward lane per color, stacked in arrays on the python backend) of `f(y, x, a)` with `y`
its Output and `a` a constant, against the dense jacobian of one unrolled lane per call
(`chunk=1`, which the usual forward mode checks against central differences), at the
preparation's point and, prepared there, at a moved point where f's branches may go the
other way (refused, or equal to the dense jacobian there). Programs of
fuzz/grammar_parallel_nests.py (`STACKED_LANES`) are checked so.
"""

from __future__ import annotations

import os
import signal

import numpy as np

import srcad


def check(f, args, timeout, alarm):
    """Raises AssertionError on a disagreement."""
    backend = os.environ.get("SRCAD_FUZZ_BACKEND", "python")
    given = args()
    if len(given) != 3 or not all(isinstance(a, srcad.Duplicated) for a in given[:2]):
        return
    y, x, a = given[0].value, given[1].value, getattr(given[2], "value", given[2])

    def call(**options):
        return srcad.jacobian(f, srcad.Output(y.copy()), x.copy(), srcad.Constant(a),
                              backend=backend, **options)

    signal.signal(signal.SIGALRM, alarm)
    signal.setitimer(signal.ITIMER_REAL, timeout, 1.0)
    try:
        with np.errstate(all="ignore"):
            sparse = call(sparse=True).toarray()
            dense = np.asarray(call(chunk=1))
    finally:
        signal.setitimer(signal.ITIMER_REAL, 0)
    _agree(sparse, dense, "")
    # a prepared call at another point, where f's branches may go the other way: refused
    # (the pattern would not hold) or equal to the dense jacobian there
    moved = x + np.random.default_rng(x.size).normal(0.0, 0.5, x.shape)
    signal.setitimer(signal.ITIMER_REAL, timeout, 1.0)
    try:
        with np.errstate(all="ignore"):
            prep = srcad.prepare_jacobian(f, srcad.Output(y.copy()), x.copy(),
                                          srcad.Constant(a), backend=backend, sparse=True)
            try:
                sparse = srcad.jacobian(f, srcad.Output(y.copy()), moved.copy(),
                                        srcad.Constant(a), prep=prep).toarray()
            except srcad.ArgumentError as err:
                if "other branches" not in str(err):
                    raise
                return
            dense = np.asarray(srcad.jacobian(f, srcad.Output(y.copy()), moved.copy(),
                                              srcad.Constant(a), backend=backend, chunk=1))
    finally:
        signal.setitimer(signal.ITIMER_REAL, 0)
    _agree(sparse, dense, " at a point other than the preparation's")


def _agree(sparse, dense, where):
    scale = max(1.0, float(np.max(np.abs(dense))))
    if not np.allclose(sparse, dense, rtol=1e-9, atol=1e-9 * scale, equal_nan=True):
        raise AssertionError(f"sparse jacobian{where} {sparse.tolist()} != dense "
                             f"{dense.tolist()}")
