"""Problem 2: srcad vector mode on the mixture (W=12 directions in one call) against separate
forward calls, each checked against the NumPy analytic gradient before timing.
"""

from __future__ import annotations

import numpy as np
from harness import Suite, installed, interleaved_ratio, run_case
from mixture import make_problem, mixture_gradient_numpy, mixture_loglikelihood

# --------------------------------------------------------------------------------------------
# Section 2: vector mode on the mixture
# --------------------------------------------------------------------------------------------

S2 = "2. srcad vector mode, mixture (N=500, K=4), W=12"
V_DEFAULT = "one BatchDuplicated call, W=12 (default strategy)"
V_UNROLLED = "one BatchDuplicated call, W=12, batch='unrolled'"
V_STACKED = "one BatchDuplicated call, W=12, batch='stacked'"
V_SEPARATE = "12 separate Forward calls"
V_ONE = "one Forward call (one direction)"
V_NUMBA = "numba backend: one BatchDuplicated call, W=12"
V_NUMBA_ONE = "numba backend: one Forward call"


def section_vector(suite: Suite, srcad):
    print(f"\n{S2}")
    N, K = 500, 4
    case = f"N={N}, K={K}"
    params, data = make_problem(N, K)
    ref = mixture_gradient_numpy(params, data)
    autodiff, fwd = srcad.autodiff, srcad.Forward
    dup, batch = srcad.Duplicated, srcad.BatchDuplicated
    f = mixture_loglikelihood

    def one_batch(**options):
        def setup():
            if options.get("backend"):
                installed("numba")
            p, d, eye = params.copy(), data.copy(), np.eye(3 * K)
            return (lambda: autodiff(fwd, f, batch(p, eye), d, **options)), np.asarray
        return setup

    run_case(suite, S2, case, V_DEFAULT, one_batch(), ref=ref)
    run_case(suite, S2, case, V_UNROLLED, one_batch(batch="unrolled"), ref=ref)
    run_case(suite, S2, case, V_STACKED, one_batch(batch="stacked"), ref=ref)

    def separate():
        p, d = params.copy(), data.copy()
        seeds = list(np.eye(3 * K))
        out = np.zeros(3 * K)

        def call():
            for i, seed in enumerate(seeds):
                out[i] = autodiff(fwd, f, dup(p, seed), d)
            return out
        return call, np.asarray

    run_case(suite, S2, case, V_SEPARATE, separate, ref=ref)
    # the target ratio, timed interleaved (drift between two contenders timed one after the
    # other on this machine moved it from 0.44 to 0.77 between runs)
    suite.extra["vector vs separate"] = interleaved_ratio(one_batch()()[0], separate()[0],
                                                          suite.cfg, pairs=15)

    def one_forward(**options):
        def setup():
            if options.get("backend"):
                installed("numba")
            p, d, seed = params.copy(), data.copy(), np.eye(3 * K)[0]
            return (lambda: autodiff(fwd, f, dup(p, seed), d, **options)), float
        return setup

    run_case(suite, S2, case, V_ONE, one_forward(), ref=ref[0])
    not_impl = (TypeError, srcad.SrcadError)
    run_case(suite, S2, case, V_NUMBA, one_batch(backend="numba"), ref=ref,
             not_implemented=not_impl)
    run_case(suite, S2, case, V_NUMBA_ONE, one_forward(backend="numba"), ref=ref[0],
             not_implemented=not_impl)
