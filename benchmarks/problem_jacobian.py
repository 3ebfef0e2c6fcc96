"""Problem 3: the jacobian of an in-place function with a scratch cache (n=100), every way srcad
computes it, checked against the exact recurrence before timing; and the interface overhead of
prepared jacobians on an elementwise square.
"""

from __future__ import annotations

import kernels
import numpy as np
from harness import TOL_FD, Suite, installed, run_case
from prepared import count_allocations, setup_prepared_jacobian, setup_prepared_square_jacobian

# --------------------------------------------------------------------------------------------
# Section 3: in-place jacobian with a scratch cache
# --------------------------------------------------------------------------------------------

S3 = "3. in-place jacobian with a scratch cache, dy/dx, n=100"
J_STACKED = "srcad vector W=100 stacked (one call)"
J_SEPARATE = "srcad 100 separate Forward calls"
J_CHUNK = "srcad vector, chunks of 16 (default strategy: unrolled)"
J_CHUNK_STACKED = "srcad vector, chunks of 16, batch='stacked'"
J_NUMBA = "srcad numba backend, W=100 stacked"
J_PREPARED = "srcad.jacobian, prepared, in place, default chunk"
J_PREPARED_100 = "srcad.jacobian, prepared, in place, chunk=100"
J_PREPARED_REV = "srcad.jacobian, prepared, in place, reverse mode (one pass per row)"
J_PREPARED_NUMBA = "srcad.jacobian, prepared, in place, numba backend, forward"
J_PREPARED_NUMBA_REV = "srcad.jacobian, prepared, in place, numba backend, reverse"
SQ_RAW = "srcad.autodiff vector W=100 stacked (raw)"
SQ_PREPARED = "srcad.jacobian, prepared, default chunk"
SQ_PREPARED_100 = "srcad.jacobian, prepared, chunk=100"
J_FD = "central differences on the python f"
J_PRIMAL = "python primal f (one call, for scale)"


def section_jacobian(suite: Suite, srcad):
    print(f"\n{S3}")
    n = 100
    case = f"n={n}"
    x0 = np.random.default_rng(2).random(n)
    ref = kernels.scratch_cache_jacobian_reference(x0)
    f = kernels.scratch_cache_f
    autodiff, fwd = srcad.autodiff, srcad.Forward
    dup, batch = srcad.Duplicated, srcad.BatchDuplicated

    def buffers():
        return x0.copy(), np.zeros(n), np.zeros(n), np.zeros((n, n)), np.zeros((n, n))

    def stacked(**options):
        def setup():
            if options.get("backend"):
                installed("numba")
            x, y, c, dY, dC = buffers()
            eye = np.eye(n)

            def call():
                autodiff(fwd, f, batch(y, dY), batch(x, eye), batch(c, dC), batch="stacked",
                         **options)
            return call, lambda _: dY.T.copy()
        return setup

    run_case(suite, S3, case, J_STACKED, stacked(), ref=ref)

    def separate():
        x, y, c, dY, _ = buffers()
        dc = np.zeros(n)
        lanes = list(zip(list(dY), list(np.eye(n))))

        def call():
            for dy, seed in lanes:
                autodiff(fwd, f, dup(y, dy), dup(x, seed), dup(c, dc))
        return call, lambda _: dY.T.copy()

    run_case(suite, S3, case, J_SEPARATE, separate, ref=ref)

    def chunks(width, **options):
        def setup():
            x, y, c, dY, dC = buffers()
            eye = np.eye(n)
            parts = [(dY[a:a + width], eye[a:a + width], dC[a:a + width])
                     for a in range(0, n, width)]

            def call():
                for dy, seeds, dc in parts:
                    autodiff(fwd, f, batch(y, dy), batch(x, seeds), batch(c, dc), **options)
            return call, lambda _: dY.T.copy()
        return setup

    run_case(suite, S3, case, J_CHUNK, chunks(16), ref=ref, note="7 calls: 6x16 + 1x4")
    run_case(suite, S3, case, J_CHUNK_STACKED, chunks(16, batch="stacked"), ref=ref)
    run_case(suite, S3, case, J_NUMBA, stacked(backend="numba"), ref=ref,
             not_implemented=(TypeError, srcad.SrcadError))

    def prepared(**options):
        def setup():
            x, y, c, _, _ = buffers()
            return setup_prepared_jacobian(srcad, f, y, x, c, np.zeros((n, n)), **options)
        return setup

    run_case(suite, S3, case, J_PREPARED, prepared(), ref=ref)
    run_case(suite, S3, case, J_PREPARED_100, prepared(chunk=n), ref=ref)
    run_case(suite, S3, case, J_PREPARED_REV, prepared(mode="reverse"), ref=ref)

    def prepared_numba(mode):
        def setup():
            installed("numba")
            return prepared(backend="numba", mode=mode)()
        return setup

    for name, mode in ((J_PREPARED_NUMBA, "forward"), (J_PREPARED_NUMBA_REV, "reverse")):
        run_case(suite, S3, case, name, prepared_numba(mode), ref=ref)
        count_allocations(suite, f"scratch-cache jacobian {mode}", prepared_numba(mode))

    def finite_differences():
        x, y, c, J, _ = buffers()
        fd = kernels.inplace_central_differences
        return (lambda: fd(f, y, x, c, J)), np.asarray

    run_case(suite, S3, case, J_FD, finite_differences, ref=ref, tol=TOL_FD,
             note=f"2n calls of f; checked at {TOL_FD:.0e}")

    def primal():
        x, y, c, _, _ = buffers()
        return (lambda: f(y, x, c)), None

    run_case(suite, S3, case, J_PRIMAL, primal)

    # The elementwise square (interface overhead): the raw path and the prepared operator.
    case0 = "elementwise x**2, n=100"
    x1 = np.random.default_rng(0).random(n)
    ref0 = np.diag(2.0 * x1)

    def raw_square():
        x, eye, g = x1.copy(), np.eye(n), kernels.square
        return (lambda: autodiff(fwd, g, batch(x, eye), batch="stacked")), np.asarray

    run_case(suite, S3, case0, SQ_RAW, raw_square, ref=ref0,
             note="lane k = column k; J is symmetric here")
    for name, options in [(SQ_PREPARED, {}), (SQ_PREPARED_100, {"chunk": n})]:
        run_case(suite, S3, case0, name,
                 lambda o=options: setup_prepared_square_jacobian(srcad, x1.copy(),
                                                                  np.zeros((n, n)), **o),
                 ref=ref0)
