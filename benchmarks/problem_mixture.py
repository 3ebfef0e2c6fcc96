"""Problem 1: the Gaussian-mixture log-likelihood gradient, every contender side by side.

Every contender is checked against the NumPy analytic gradient before it is timed; the target
ratios (reverse against the primal, the numba race, the interface overhead) are timed
interleaved.
"""

from __future__ import annotations

import kernels
import numpy as np
from harness import TOL_FD, TOL_VALUE, Skip, Suite, installed, interleaved_ratio, run_case
from mixture import make_problem, mixture_gradient_numpy, mixture_loglikelihood
from prepared import count_allocations, setup_prepared_gradient

# --------------------------------------------------------------------------------------------
# Section 1: Gaussian-mixture log-likelihood gradient
# --------------------------------------------------------------------------------------------

S1 = "1. Gaussian-mixture log-likelihood gradient"
PY_PRIMAL = "python primal (inline math.exp)"
PY_PRIMAL_HELPER = "python primal, examples/mixture.py (normal_pdf helper)"
SRCAD_REV = "srcad reverse, python backend"
SRCAD_VEC = "srcad forward vector W=3K, python backend"
SRCAD_NUMBA = "srcad reverse, numba backend"
JAX = "jax.jit(jax.grad), vectorized jnp"
AUTOGRAD = "autograd, vectorized numpy"
NUMPY = "NumPy hand-written analytic gradient"
NUMBA_ADJ = "numba hand-written adjoint (speed of light)"
NUMBA_PRIMAL = "numba primal"
FD = "central differences on the numba primal"
SRCAD_PREP_GRAD = "srcad.gradient, prepared"
SRCAD_PREP_GRAD_NUMBA = "srcad.gradient, prepared, numba backend"


def section_mixture(suite: Suite, srcad, sizes):
    print(f"\n{S1}")
    for N, K in sizes:
        mixture_size(suite, srcad, N, K)


def mixture_size(suite: Suite, srcad, N, K):
    case = f"N={N}, K={K}"
    large = N >= 100_000
    print(f" {case}")
    params, data = make_problem(N, K)
    ref = mixture_gradient_numpy(params, data)
    value = mixture_loglikelihood(params, data)

    def py_primal(f):
        def setup():
            p, d = params.copy(), data.copy()
            return (lambda: f(p, d)), float
        return setup

    run_case(suite, S1, case, PY_PRIMAL, py_primal(kernels.mixture_loglikelihood_inline),
             ref=value, tol=TOL_VALUE, large=large)
    run_case(suite, S1, case, PY_PRIMAL_HELPER, py_primal(mixture_loglikelihood),
             ref=value, tol=TOL_VALUE, large=large)

    def srcad_reverse(**options):
        def setup():
            autodiff, mode, dup = srcad.autodiff, srcad.Reverse, srcad.Duplicated
            f, p, d = mixture_loglikelihood, params.copy(), data.copy()
            dp = np.zeros_like(p)

            def call():
                dp.fill(0.0)
                return autodiff(mode, f, dup(p, dp), d, **options)
            return call, lambda _: dp.copy()
        return setup

    run_case(suite, S1, case, SRCAD_REV, srcad_reverse(), ref=ref, large=large,
             note="includes zeroing dparams")
    # the target ratio, timed interleaved with the primal (same drift; N=100000: ~1.5 s a pair)
    suite.extra[f"reverse vs primal {case}"] = interleaved_ratio(
        srcad_reverse()()[0], py_primal(mixture_loglikelihood)()[0], suite.cfg,
        pairs=(3 if suite.cfg.quick else 5) if large else 31)

    def srcad_vector():
        autodiff, mode, batch = srcad.autodiff, srcad.Forward, srcad.BatchDuplicated
        f, p, d = mixture_loglikelihood, params.copy(), data.copy()
        eye = np.eye(3 * K)
        return (lambda: autodiff(mode, f, batch(p, eye), d)), np.asarray

    strategy = "unrolled" if 3 * K <= _unroll_max() else "stacked"
    run_case(suite, S1, case, SRCAD_VEC, srcad_vector, ref=ref, large=large,
             note=f"default batch strategy: {strategy}")

    def srcad_numba():
        installed("numba")
        return srcad_reverse(backend="numba")()

    run_case(suite, S1, case, SRCAD_NUMBA, srcad_numba, ref=ref, large=large,
             not_implemented=(TypeError, srcad.SrcadError))

    def jax_grad():
        installed("jax")
        jax, grad = kernels.make_jax_mixture()
        p, d = jax.device_put(params), jax.device_put(data)
        return (lambda: grad(p, d).block_until_ready()), np.asarray

    run_case(suite, S1, case, JAX, jax_grad, ref=ref, large=large,
             note="x64 enabled; result left on device")

    def autograd_grad():
        installed("autograd")
        grad = kernels.make_autograd_mixture()
        p, d = params.copy(), data.copy()
        return (lambda: grad(p, d)), np.asarray

    run_case(suite, S1, case, AUTOGRAD, autograd_grad, ref=ref, large=large)

    def numpy_grad():
        g, p, d = mixture_gradient_numpy, params.copy(), data.copy()
        return (lambda: g(p, d)), np.asarray

    run_case(suite, S1, case, NUMPY, numpy_grad, ref=ref, large=large)

    def numba_adjoint():
        installed("numba")
        _, adjoint = _numba_mixture()
        p, d = params.copy(), data.copy()
        grad = np.zeros_like(p)
        return (lambda: adjoint(p, d, grad)), lambda _: grad.copy()

    run_case(suite, S1, case, NUMBA_ADJ, numba_adjoint, ref=ref, large=large,
             note="numba.njit(cache=False); returns the value too")

    def numba_primal():
        installed("numba")
        primal, _ = _numba_mixture()
        p, d = params.copy(), data.copy()
        return (lambda: primal(p, d)), float

    run_case(suite, S1, case, NUMBA_PRIMAL, numba_primal, ref=value, tol=TOL_VALUE,
             large=large)

    def finite_differences():
        installed("numba")
        primal, _ = _numba_mixture()
        fd, p, d = kernels.central_differences, params.copy(), data.copy()
        out = np.zeros_like(p)
        return (lambda: fd(primal, p, d, out)), np.asarray

    run_case(suite, S1, case, FD, finite_differences, ref=ref, tol=TOL_FD, large=large,
             note=f"6K primal calls; checked at {TOL_FD:.0e}")

    run_case(suite, S1, case, SRCAD_PREP_GRAD,
             lambda: setup_prepared_gradient(srcad, params.copy(), data.copy()),
             ref=ref, large=large)

    def prepared_numba():
        installed("numba")
        return setup_prepared_gradient(srcad, params.copy(), data.copy(), backend="numba")

    run_case(suite, S1, case, SRCAD_PREP_GRAD_NUMBA, prepared_numba, ref=ref, large=large)
    if not large:
        for mode in ("reverse", "forward"):
            count_allocations(suite, f"mixture gradient {mode}", lambda m=mode: (
                setup_prepared_gradient(srcad, params.copy(), data.copy(), backend="numba",
                                        mode=m)))
    if not large:
        # Interface overhead is a few percent at most, below this machine's drift between two
        # contenders timed one after the other: time the pair interleaved, call by call.
        raw, _ = srcad_reverse()()
        prepared, _ = setup_prepared_gradient(srcad, params.copy(), data.copy())
        suite.extra[f"overhead {case}"] = interleaved_ratio(prepared, raw, suite.cfg)
    # the race, timed the same way: srcad numba against JAX and the hand-written adjoint
    # (calls of 25-300 us: 201 pairs for a steady median; N=100000, ~10 ms calls: 21 pairs)
    pairs = None if suite.cfg.quick else 21 if large else 201
    for label, setup in (("jax", jax_grad), ("hand", numba_adjoint)):
        try:
            suite.extra[f"numba vs {label} {case}"] = interleaved_ratio(
                srcad_numba()[0], setup()[0], suite.cfg, pairs=pairs)
        except Skip:
            pass



_NUMBA_MIXTURE = []


def _numba_mixture():
    if not _NUMBA_MIXTURE:
        _NUMBA_MIXTURE.append(kernels.make_numba_mixture())
    return _NUMBA_MIXTURE[0]


def _unroll_max():
    try:
        from srcad.build.pipeline import UNROLL_MAX_WIDTH
    except ImportError:
        return 16
    return UNROLL_MAX_WIDTH
