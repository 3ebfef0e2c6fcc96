"""Side-by-side benchmark suite for srcad. Run with `make bench`.

    .venv/bin/python benchmarks/run.py            # full run, writes docs/benchmarks.md (+ .png)
    .venv/bin/python benchmarks/run.py --quick    # smoke run: few repeats, writes nothing
    .venv/bin/python benchmarks/run.py --pin 0    # pin the process to CPU 0 first

Method (benchmark honestly):
- every contender gets the same data, built once per problem size;
- every contender's derivative is checked against an exact reference before it is timed; one
  that disagrees is reported as DISAGREES and not timed;
- the first call is timed separately (it includes transformation / jit compilation);
- then warm-up calls, then `repeats` samples of `number` calls each; we report the median (and
  the minimum) per call. `number` is calibrated so a sample lasts at least `min_sample` seconds;
- timed closures bind everything they use as locals (no global or module-attribute lookups);
- the garbage collector stays enabled (as for a user) but is run before each contender;
- a contender that is not installed or not implemented yet is reported as skipped, never
  silently dropped.
Shared machines are noisy: compare ratios within one run, not absolute times across runs.
"""

from __future__ import annotations

import argparse
import datetime
import gc
import importlib.metadata
import importlib.util
import math
import os
import platform
import statistics
import subprocess
import sys
import time
from dataclasses import dataclass, field
from pathlib import Path

import numpy as np

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT / "examples"))
sys.path.insert(0, str(ROOT / "benchmarks"))

import kernels  # noqa: E402
from mixture import make_problem, mixture_gradient_numpy, mixture_loglikelihood  # noqa: E402

perf_counter = time.perf_counter

TOL = 1e-6  # relative (to the largest reference entry) agreement required before timing
TOL_FD = 1e-5  # central finite differences are approximations: a looser, stated tolerance
TOL_VALUE = 1e-10  # primal-only contenders: the value must match the reference primal


class Skip(Exception):
    """A contender that cannot run here; the message says why."""


@dataclass
class Config:
    quick: bool
    repeats: int
    min_sample: float  # seconds per sample (calibrates `number`)
    warmup: int
    budget: float  # seconds of measurement per contender, at most (repeats shrink to fit)
    large_repeats: int
    large_warmup: int
    fresh_transforms: int


FULL = Config(False, repeats=15, min_sample=0.05, warmup=2, budget=6.0, large_repeats=3,
              large_warmup=1, fresh_transforms=7)
QUICK = Config(True, repeats=3, min_sample=0.005, warmup=1, budget=1.0, large_repeats=1,
               large_warmup=0, fresh_transforms=3)


@dataclass
class Row:
    section: str
    case: str
    name: str
    status: str = "ok"
    median: float | None = None  # seconds per call
    low: float | None = None
    first: float | None = None
    repeats: int = 0
    number: int = 0
    err: float | None = None
    note: str = ""

    @property
    def ok(self):
        return self.status == "ok"


@dataclass
class Suite:
    cfg: Config
    rows: list = field(default_factory=list)
    extra: dict = field(default_factory=dict)

    def find(self, section, case, name):
        for row in self.rows:
            if row.section == section and row.case == case and row.name == name:
                return row
        return None


# --------------------------------------------------------------------------------------------
# Timing
# --------------------------------------------------------------------------------------------


def installed(*modules):
    missing = [m for m in modules if importlib.util.find_spec(m) is None]
    if missing:
        raise Skip(f"not installed: {', '.join(missing)}")


def rel_err(got, ref):
    got = np.asarray(got, dtype=float)
    ref = np.asarray(ref, dtype=float)
    if got.shape != ref.shape:
        return math.inf
    return float(np.max(np.abs(got - ref)) / max(np.max(np.abs(ref)), 1e-300))


def measure(call, cfg: Config, large: bool):
    """(median, min, repeats, number) in seconds per call; `call` has been called once."""
    warmup = cfg.large_warmup if large else cfg.warmup
    last = None
    for _ in range(max(warmup, 1)):
        t0 = perf_counter()
        call()
        last = perf_counter() - t0
    number = max(1, int(cfg.min_sample / max(last, 1e-9)))
    fewest = cfg.large_repeats if large else 3  # slow calls shrink to this many samples
    repeats = max(fewest, min(cfg.repeats, int(cfg.budget / max(number * last, 1e-9))))
    samples = []
    for _ in range(repeats):
        t0 = perf_counter()
        for _ in range(number):
            call()
        samples.append((perf_counter() - t0) / number)
    return statistics.median(samples), min(samples), repeats, number


def run_case(suite: Suite, section, case, name, setup, *, ref=None, tol=TOL, large=False,
             not_implemented=(), note=""):
    """Set up, call once (timed as the first call), check against `ref`, then time.

    `setup()` returns (call, result): `call()` is the timed closure and `result(out)` turns the
    output of one call into the array (or value) compared with `ref`. Exceptions of the types in
    `not_implemented` raised by the first call mean the contender is not implemented yet.
    """
    row = Row(section, case, name, note=note)
    suite.rows.append(row)
    try:
        call, result = setup()
    except Skip as skip:
        row.status = f"skipped ({skip})"
        return _report(row)
    except Exception as exc:  # a broken contender must not stop the run
        row.status = f"error in setup ({type(exc).__name__}: {_short(exc)})"
        return _report(row)
    gc.collect()
    try:
        t0 = perf_counter()
        out = call()
        row.first = perf_counter() - t0
    except Skip as skip:
        row.status = f"skipped ({skip})"
        return _report(row)
    except not_implemented as exc:
        row.status = f"skipped (not implemented: {type(exc).__name__}: {_short(exc)})"
        return _report(row)
    except Exception as exc:
        row.status = f"error ({type(exc).__name__}: {_short(exc)})"
        return _report(row)
    if ref is not None:
        row.err = rel_err(result(out), ref)
        if not row.err <= tol:
            row.status = f"DISAGREES (rel. error {row.err:.2e} > {tol:.0e}; not timed)"
            return _report(row)
    gc.collect()
    row.median, row.low, row.repeats, row.number = measure(call, suite.cfg, large)
    return _report(row)


def _short(exc, limit=90):
    text = " ".join(str(exc).split())
    return text if len(text) <= limit else text[:limit - 3] + "..."


def _report(row):
    if row.ok:
        print(f"  {row.name:<52} {us(row.median):>12} us   (min {us(row.low)}, first call "
              f"{ms(row.first)} ms, {row.repeats}x{row.number}, err {row.err or 0:.1e})",
              flush=True)
    else:
        print(f"  {row.name:<52} {row.status}", flush=True)
    return row


def us(seconds):
    if seconds is None:
        return "-"
    value = seconds * 1e6
    return f"{value:,.0f}" if value >= 100 else f"{value:.1f}"


def ms(seconds):
    return "-" if seconds is None else f"{seconds * 1e3:,.1f}"


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


def interleaved_ratio(a, b, cfg, pairs=None):
    """median time of a / median time of b, the two called alternately (same drift)."""
    pairs = pairs or (9 if cfg.quick else 61)
    a(), b()
    times_a, times_b = [], []
    for _ in range(pairs):
        t0 = perf_counter()
        a()
        t1 = perf_counter()
        b()
        t2 = perf_counter()
        times_a.append(t1 - t0)
        times_b.append(t2 - t1)
    return statistics.median(times_a) / statistics.median(times_b)


_NUMBA_MIXTURE = []


def _numba_mixture():
    if not _NUMBA_MIXTURE:
        _NUMBA_MIXTURE.append(kernels.make_numba_mixture())
    return _NUMBA_MIXTURE[0]


def _unroll_max():
    try:
        from srcad.pipeline import UNROLL_MAX_WIDTH
    except ImportError:
        return 16
    return UNROLL_MAX_WIDTH


# --------------------------------------------------------------------------------------------
# Prepared operators. Each is ONE function written against the operator API; where
# srcad lacks the operator, the AttributeError makes the contender "skipped (not implemented)".
# --------------------------------------------------------------------------------------------


def _operators(srcad, *names):
    try:
        return [getattr(srcad, name) for name in names]
    except AttributeError as exc:
        raise Skip(f"not implemented: {exc}") from None


def setup_prepared_gradient(srcad, params, data, **options):
    gradient, prepare, constant = _operators(srcad, "gradient", "prepare_gradient", "Constant")
    f, out = mixture_loglikelihood, np.zeros_like(params)
    prep = prepare(f, params, constant(data), **options)
    def call():
        return gradient(f, params, constant(data), prep=prep, out=out)
    call.prep = prep
    return call, np.asarray


def count_allocations(suite: Suite, label, setup):
    """The issue-5 target "a prepared numba call allocates nothing beyond its results": numba's
    allocation statistics (NRT) over repeated prepared calls, less the one MemInfo numba makes
    for each array argument it unboxes. Stored as suite.extra["allocations"][label]."""
    try:
        installed("numba")
        from numba.core.runtime import _nrt_python as nrt
        call, _ = setup()
    except (Skip, ImportError):
        return
    engine = call.prep.engine
    arrays = sum(isinstance(v, np.ndarray) for v in engine.flat)
    nrt.memsys_enable_stats()
    try:
        call()
        call()  # a first call may grow the tapes and the workspace
        counter = _CountingCalls(engine)
        before = nrt.memsys_get_stats_alloc()
        for _ in range(5):
            call()
        allocated = nrt.memsys_get_stats_alloc() - before
        counter.stop()
    finally:
        nrt.memsys_disable_stats()
    # a prepared reverse gradient runs its one compiled call without the engine (plans.py)
    calls = counter.calls or 5
    suite.extra.setdefault("allocations", {})[label] = (allocated - arrays * calls) / 5


class _CountingCalls:
    """Counts the calls of an engine's compiled function (a prepared operator may run it
    several times: once per chunk of lanes, once per row of a reverse jacobian)."""

    def __init__(self, engine):
        self.engine, self.calls = engine, 0
        run = engine.run

        def counted(*args, **kwargs):
            self.calls += 1
            return run(*args, **kwargs)

        engine.run = counted

    def stop(self):
        del self.engine.run


def setup_prepared_jacobian(srcad, f, y, x, c, J, **options):
    jacobian, prepare, output, cache = _operators(srcad, "jacobian", "prepare_jacobian",
                                                  "Output", "Cache")
    prep = prepare(f, output(y), x, cache(c), **options)
    def call():
        return jacobian(f, output(y), x, cache(c), prep=prep, out=J)
    call.prep = prep
    return call, np.asarray


def setup_prepared_square_jacobian(srcad, x, J, **options):
    jacobian, prepare = _operators(srcad, "jacobian", "prepare_jacobian")
    f = kernels.square
    prep = prepare(f, x, **options)
    return (lambda: jacobian(f, x, prep=prep, out=J)), np.asarray


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


# --------------------------------------------------------------------------------------------
# Section 4: transformation time
# --------------------------------------------------------------------------------------------

S4 = "4. transformation time (first call)"


def section_transform(suite: Suite, srcad):
    print(f"\n{S4}")
    params, data = make_problem(500, 4)
    autodiff, f = srcad.autodiff, mixture_loglikelihood
    eye = np.eye(12)

    def reverse():
        dp = np.zeros_like(params)
        autodiff(srcad.Reverse, f, srcad.Duplicated(params, dp), data)

    def vector():
        autodiff(srcad.Forward, f, srcad.BatchDuplicated(params, eye), data)

    def fresh(call):
        times = []
        for _ in range(suite.cfg.fresh_transforms):
            srcad.cache.clear()
            gc.collect()
            t0 = perf_counter()
            call()
            times.append(perf_counter() - t0)
        return statistics.median(times), min(times)

    def reverse_numba():
        dp = np.zeros_like(params)
        autodiff(srcad.Reverse, f, srcad.Duplicated(params, dp), data, backend="numba")

    calls = [("reverse, python backend", reverse),
             ("forward vector W=12, python backend", vector)]
    if importlib.util.find_spec("numba") is None:
        suite.extra["numba compile"] = "skipped (not installed: numba)"
    else:
        try:
            srcad.cache.clear()
            reverse_numba()
            calls.append(("reverse, numba backend (numba compile; its disk cache may hit)",
                          reverse_numba))
        except (TypeError, srcad.SrcadError) as exc:
            suite.extra["numba compile"] = f"skipped (not implemented: {_short(exc)})"
    # In this process, after the other contenders ran, the same transformation measured ~55 ms
    # against ~35 ms in a process that imported srcad alone (JAX's, numba's and autograd's
    # threads and heap share the pinned CPU): the target row is timed in such a process.
    for label, call in calls:
        if label == "reverse, python backend":
            median, low = _fresh_process_transforms(suite.cfg.fresh_transforms)
            where = "in a fresh process importing srcad alone"
        else:
            median, low = fresh(call)
            where = "in this process"
        suite.extra[f"fresh {label}"] = (median, low)
        print(f"  first call after srcad.cache.clear(), {label}: median {ms(median)} ms "
              f"(min {ms(low)}; {suite.cfg.fresh_transforms} fresh transformations {where})")
    srcad.cache.clear()


_FRESH_PROCESS = """
import gc, json, sys, time
sys.path[:0] = [sys.argv[1], sys.argv[1] + "/examples"]
import numpy as np
import srcad
from mixture import make_problem, mixture_loglikelihood
params, data = make_problem(500, 4)
times = []
for _ in range(int(sys.argv[2])):
    srcad.cache.clear()
    gc.collect()
    t0 = time.perf_counter()
    srcad.autodiff(srcad.Reverse, mixture_loglikelihood,
                   srcad.Duplicated(params, np.zeros_like(params)), data)
    times.append(time.perf_counter() - t0)
print(json.dumps(times))
"""


def _fresh_process_transforms(count):
    """(median, min) seconds of `count` first calls (python backend, reverse) in a new Python
    process that imports srcad alone (inheriting this process's CPU pinning)."""
    import json
    out = subprocess.run([sys.executable, "-c", _FRESH_PROCESS, str(ROOT), str(count)],
                         capture_output=True, text=True, check=True).stdout
    times = json.loads(out.strip().splitlines()[-1])
    return statistics.median(times), min(times)


# --------------------------------------------------------------------------------------------
# Report
# --------------------------------------------------------------------------------------------


def ratio(a, b):
    if a is None or b is None or not a.ok or not b.ok:
        return None
    return a.median / b.median


def fmt_ratio(value):
    return "-" if value is None else (f"{value:.2f}x" if value < 100 else f"{value:,.0f}x")


def targets(suite: Suite, sizes):
    """[(description, measured ratio or None, target text, met: True/False/None, why)]"""
    out = []
    small = "N=500, K=4"

    def get(section, case, name):
        return suite.find(section, case, name)

    def target(desc, value, limit, why_missing=""):
        met = None if value is None else value <= limit
        out.append((desc, value, f"<= {limit:g}", met, why_missing))

    for N, K in sizes:
        case = f"N={N}, K={K}"
        rev = get(S1, case, SRCAD_REV)
        interleaved = suite.extra.get(f"reverse vs primal {case}")
        target(f"srcad reverse (python) / python primal, same function (helper form), {case}"
               + (", timed interleaved" if interleaved else ""),
               interleaved or ratio(rev, get(S1, case, PY_PRIMAL_HELPER)), 3)
        out.append((f"srcad reverse (python) / python primal, inline form, {case}",
                    ratio(rev, get(S1, case, PY_PRIMAL)), "(information)", None, ""))
    target("vector W=12 (one call) / 12 separate Forward calls, mixture (500, 4), "
           "timed interleaved", suite.extra.get("vector vs separate"), 0.7)
    out.append(("vector W=12 unrolled / stacked, mixture (500, 4)",
                ratio(get(S2, small, V_UNROLLED), get(S2, small, V_STACKED)), "(information)",
                None, ""))
    out.append(("vector W=12 (one call) / one Forward call, python backend",
                ratio(get(S2, small, V_DEFAULT), get(S2, small, V_ONE)), "(information)", None,
                ""))
    target("vector W=100 stacked / 100 separate Forward calls, scratch-cache jacobian (n=100)",
           ratio(get(S3, "n=100", J_STACKED), get(S3, "n=100", J_SEPARATE)), 0.15)
    out.append(("chunks of 16 / 100 separate Forward calls, scratch-cache jacobian (n=100)",
                ratio(get(S3, "n=100", J_CHUNK), get(S3, "n=100", J_SEPARATE)), "(information)",
                None, ""))
    fresh = suite.extra.get("fresh reverse, python backend")
    met = None if fresh is None else fresh[0] < 0.05
    out.append(("first-call transformation, mixture reverse (python), median of fresh, "
                "in a process importing srcad alone",
                None, "< 50 ms", met, "" if fresh is None else f"{ms(fresh[0])} ms"))
    def race(label, contender, row_name, N, K, goal):
        case = f"N={N}, K={K}"
        row = get(S1, case, SRCAD_NUMBA)
        interleaved = suite.extra.get(f"numba vs {label} {case}")
        if interleaved is not None:
            target(f"srcad numba reverse / {contender}, ({N}, {K}), timed interleaved",
                   interleaved, goal, _why(row))
        else:
            target(f"srcad numba reverse / {contender}, ({N}, {K})",
                   ratio(row, get(S1, case, row_name)), goal, _why(row))

    race("jax", "jax.jit(grad)", JAX, *sizes[0], 1.0)
    race("hand", "numba hand adjoint", NUMBA_ADJ, *sizes[0], 1.2)
    for N, K in sizes[1:]:
        race("jax", "jax.jit(grad)", JAX, N, K, 1.0)
    for N, K in sizes[1:]:  # no target there: how close to the speed of light
        hand = suite.extra.get(f"numba vs hand N={N}, K={K}")
        out.append((f"srcad numba reverse / numba hand adjoint, ({N}, {K}), timed interleaved",
                    hand, "(information)", None, ""))
    numba_vec = get(S2, small, V_NUMBA)
    target("numba vector W=12 (one call) / one numba Forward call",
           ratio(numba_vec, get(S2, small, V_NUMBA_ONE)), 3, _why(numba_vec))
    allocations = suite.extra.get("allocations")
    if allocations:
        worst = max(allocations.values())
        out.append(("allocations inside the compiled code per prepared numba call (numba's "
                    "NRT statistics; " + ", ".join(allocations) + ")", None, "0", worst == 0,
                    ", ".join(f"{v:g}" for v in allocations.values())))
    prep = get(S1, small, SRCAD_PREP_GRAD)
    target("prepared srcad.gradient / raw srcad.autodiff reverse, mixture (500, 4), "
           "timed interleaved", suite.extra.get(f"overhead {small}"), 1.05, _why(prep))
    sq = get(S3, "elementwise x**2, n=100", SQ_PREPARED_100)
    out.append(("prepared srcad.jacobian chunk=100 / raw autodiff W=100 stacked, elementwise x**2",
                ratio(sq, get(S3, "elementwise x**2, n=100", SQ_RAW)), "(information)", None,
                _why(sq)))
    jp = get(S3, "n=100", J_PREPARED)
    out.append(("prepared srcad.jacobian (default chunk) / raw W=100 stacked, "
                "scratch-cache jacobian",
                ratio(jp, get(S3, "n=100", J_STACKED)), "(information)", None, _why(jp)))
    jp = get(S3, "n=100", J_PREPARED_100)
    out.append(("prepared srcad.jacobian chunk=100 / raw W=100 stacked, scratch-cache jacobian",
                ratio(jp, get(S3, "n=100", J_STACKED)), "(information)", None, _why(jp)))
    return [t for t in out if t[1] is not None or t[3] is not None or t[4]]


def _why(row):
    if row is None:
        return "not run"
    return "" if row.ok else row.status


def machine_info(pinned_to):
    def version(dist):
        try:
            return importlib.metadata.version(dist)
        except importlib.metadata.PackageNotFoundError:
            return "not installed"

    cpu = platform.processor() or "?"
    try:
        for line in Path("/proc/cpuinfo").read_text().splitlines():
            if line.startswith("model name"):
                cpu = line.split(":", 1)[1].strip()
                break
    except OSError:
        pass
    try:
        affinity = sorted(os.sched_getaffinity(0))
    except AttributeError:
        affinity = None
    ncpu = os.cpu_count()
    if affinity is None:
        pinned = "unknown (no os.sched_getaffinity)"
    elif len(affinity) < (ncpu or 0):
        pinned = f"yes: CPUs {affinity} of {ncpu}" + (" (--pin)" if pinned_to is not None else "")
    else:
        pinned = f"no: may run on all {ncpu} CPUs {affinity}"
    try:
        rev = subprocess.run(["git", "rev-parse", "--short", "HEAD"], cwd=ROOT,
                             capture_output=True, text=True, check=True).stdout.strip()
        dirty = subprocess.run(["git", "status", "--porcelain"], cwd=ROOT,
                               capture_output=True, text=True, check=True).stdout.strip()
        rev += " + uncommitted changes" if dirty else ""
    except (OSError, subprocess.CalledProcessError):
        rev = "unknown"
    info = {
        "date": datetime.datetime.now().astimezone().isoformat(timespec="seconds"),
        "machine": f"{platform.machine()}, {cpu}, {ncpu} CPUs",
        "os": platform.platform(),
        "pinned": pinned,
        "load average at start": " ".join(f"{v:.2f}" for v in os.getloadavg()),
        "python": sys.version.split()[0],
        "srcad": f"{version('srcad')} (git {rev})",
    }
    for dist in ("numpy", "jax", "jaxlib", "numba", "llvmlite", "autograd", "matplotlib"):
        info[dist] = version(dist)
    return info


def markdown(suite: Suite, info, sizes, wall):
    cfg = suite.cfg
    lines = ["# Benchmarks", "",
             "Generated by `make bench` (`benchmarks/run.py`); do not edit by hand. "
             "Median microseconds per call from ONE run: shared machines are noisy, so compare "
             "ratios within this run, not absolute times across runs "
             "(see ../shared/reference/baselines.md for reference numbers).", ""]
    if cfg.quick:
        lines += ["**Quick smoke run (`--quick`): few repeats, numbers are rough.**", ""]
    lines += ["## Machine", "", "| | |", "|---|---|"]
    lines += [f"| {k} | {v} |" for k, v in info.items()]
    lines += [f"| run | {'quick' if cfg.quick else 'full'}: {cfg.repeats} samples (>= "
              f"{cfg.min_sample * 1e3:g} ms each, <= {cfg.budget:g} s per contender), "
              f"{cfg.warmup} warm-up calls; N=100000: >= {cfg.large_repeats} samples, "
              f"{cfg.large_warmup} warm-up; wall time {wall:.0f} s |",
              "| load average at end | " + " ".join(f"{v:.2f}" for v in os.getloadavg())
              + " |", ""]

    lines += ["## Targets", "", "| ratio | measured | target | met |", "|---|---|---|---|"]
    for desc, value, goal, met, why in targets(suite, sizes):
        shown = fmt_ratio(value) if value is not None else (why if met is not None else "-")
        verdict = {True: "yes", False: "**no**", None: "n/a"}[met]
        if met is None and why and value is None:
            verdict = f"skipped: {why}"
        lines.append(f"| {desc} | {shown} | {goal} | {verdict} |")
    lines.append("")

    lines += [f"## {S1}", "", "Median us per call (ratio to the python primal, inline math.exp).",
              ""]
    cases = [f"N={N}, K={K}" for N, K in sizes]
    lines += ["| method | " + " | ".join(cases) + " |", "|---|" + "---|" * len(cases)]
    names = list(dict.fromkeys(r.name for r in suite.rows if r.section == S1))
    for name in names:
        cells = []
        for case in cases:
            row = suite.find(S1, case, name)
            base = suite.find(S1, case, PY_PRIMAL)
            if row is None:
                cells.append("not run")
            elif row.ok:
                cells.append(f"{us(row.median)} ({fmt_ratio(ratio(row, base))})")
            else:
                cells.append(row.status)
        lines.append(f"| {name} | " + " | ".join(cells) + " |")
    lines.append("")
    for case in cases:
        lines += _detail_table(suite, S1, case, [PY_PRIMAL, NUMBA_ADJ, JAX])

    for section in (S2, S3):
        lines += [f"## {section}", ""]
        for case in dict.fromkeys(r.case for r in suite.rows if r.section == section):
            base = {S2: [V_SEPARATE, V_ONE], S3: [J_SEPARATE, J_PRIMAL]}[section]
            if case.startswith("elementwise"):
                base = [SQ_RAW]
            lines += _detail_table(suite, section, case, base)

    lines += [f"## {S4}", "", "| what | median ms | min ms |", "|---|---|---|"]
    for key, value in suite.extra.items():
        if key.startswith("fresh "):
            median, low = value
            lines.append(f"| first call after `srcad.cache.clear()`, {key[6:]} (transform + "
                         f"compile + one call) | {ms(median)} | {ms(low)} |")
    cold = suite.extra.get("cold")
    if cold:
        lines.append(f"| very first srcad call in the process (cold imports), reverse | "
                     f"{ms(cold)} | |")
    if "numba compile" in suite.extra:
        lines.append(f"| numba compile time of generated code | {suite.extra['numba compile']} "
                     "| |")
    lines += ["", "First calls of every contender (jit compilation included) are in the "
              "'first call' columns above.", ""]

    lines += ["## Method", "",
              "- Same data for every contender (`make_problem` of examples/mixture.py, seed 42).",
              f"- Every derivative is checked before timing: max abs error <= {TOL:g} x max "
              f"|reference| (finite differences: {TOL_FD:g}); references are the NumPy analytic "
              "gradient (mixture) and the exact recurrence (scratch-cache jacobian). A contender "
              "that disagrees is reported and not timed.",
              "- Timed closures bind functions and data as locals; the first call is timed "
              "separately; warm-up calls follow; the median (and min) over samples is reported.",
              "- srcad reverse zeroes `dparams` inside the timed call (it accumulates). JAX runs "
              "in float64 (`jax_enable_x64`) and is timed to `block_until_ready()`.",
              "- Finite differences use central steps h = 6e-6 max(1, |p_i|).",
              "- Skipped contenders (not installed / not implemented) are listed, not dropped.",
              ""]
    return "\n".join(lines)


def _detail_table(suite, section, case, bases):
    rows = [r for r in suite.rows if r.section == section and r.case == case]
    base_rows = [suite.find(section, case, b) for b in bases]
    head = " | ".join(f"x {b}" for b in bases)
    lines = [f"### {case}" if section == S1 or len(bases) else "", "",
             f"| method | median us | min us | {head} | first call ms | samples | rel. err |",
             "|---|---|---|" + "---|" * len(bases) + "---|---|---|"]
    for r in rows:
        if r.ok:
            ratios = " | ".join(fmt_ratio(ratio(r, b)) for b in base_rows)
            note = f" ({r.note})" if r.note else ""
            err = "-" if r.err is None else f"{r.err:.1e}"
            lines.append(f"| {r.name}{note} | {us(r.median)} | {us(r.low)} | {ratios} | "
                         f"{ms(r.first)} | {r.repeats}x{r.number} | {err} |")
        else:
            lines.append(f"| {r.name} | {r.status} | |" + " |" * len(bases) + " | | |")
    return lines + [""]


def chart(suite: Suite, sizes, path):
    try:
        import matplotlib
    except ImportError:
        print("matplotlib not installed: no chart")
        return False
    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    fig, axes = plt.subplots(len(sizes), 1, figsize=(10, 3.2 * len(sizes)), squeeze=False)
    for ax, (N, K) in zip(axes[:, 0], sizes):
        case = f"N={N}, K={K}"
        rows = [r for r in suite.rows if r.section == S1 and r.case == case and r.ok]
        rows.sort(key=lambda r: r.median)
        colors = ["tab:red" if r.name.startswith("srcad") else
                  "tab:gray" if "primal" in r.name else "tab:blue" for r in rows]
        ax.barh([r.name for r in rows], [r.median * 1e6 for r in rows], color=colors)
        ax.set_xscale("log")
        ax.invert_yaxis()
        ax.set_title(f"Gaussian-mixture log-likelihood gradient, {case} (median us, log scale)",
                     fontsize=10)
        ax.tick_params(axis="y", labelsize=8)
        for i, r in enumerate(rows):
            ax.text(r.median * 1e6, i, f" {us(r.median)}", va="center", fontsize=7)
    fig.tight_layout()
    fig.savefig(path, dpi=110)
    plt.close(fig)
    return True


def print_summary(suite: Suite, sizes):
    print("\nTargets")
    for desc, value, goal, met, why in targets(suite, sizes):
        verdict = {True: "met", False: "NOT met", None: ""}[met]
        shown = fmt_ratio(value) if value is not None else why
        print(f"  {desc:<82} {shown:>10}  {goal:<14} {verdict}")


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--quick", action="store_true", help="smoke run: few repeats; does not "
                        "write docs/ unless --write")
    parser.add_argument("--write", action="store_true", help="with --quick: write docs/ anyway")
    parser.add_argument("--pin", type=int, metavar="CPU", help="pin the process to one CPU")
    parser.add_argument("--sections", default="1,2,3,4", help="comma-separated, e.g. 1,3")
    parser.add_argument("--no-large", action="store_true", help="skip N=100000")
    args = parser.parse_args(argv)
    if args.pin is not None:  # before jax/numba start their threads
        os.sched_setaffinity(0, {args.pin})
    cfg = QUICK if args.quick else FULL
    sections = {s.strip() for s in args.sections.split(",")}
    sizes = [(500, 4), (500, 40)] + ([] if args.no_large else [(100_000, 4)])
    info = machine_info(args.pin)
    for key, value in info.items():
        print(f"{key:>22}: {value}")
    start = perf_counter()

    # The very first srcad call in this process: imports, parsing, transformation, compile.
    t0 = perf_counter()
    import srcad
    params, data = make_problem(500, 4)
    srcad.autodiff(srcad.Reverse, mixture_loglikelihood,
                   srcad.Duplicated(params, np.zeros_like(params)), data)
    suite = Suite(cfg)
    suite.extra["cold"] = perf_counter() - t0
    print(f"{'cold first srcad call':>22}: {ms(suite.extra['cold'])} ms (import srcad + "
          "transform + compile + one call)")

    if "1" in sections:
        section_mixture(suite, srcad, sizes)
    if "2" in sections:
        section_vector(suite, srcad)
    if "3" in sections:
        section_jacobian(suite, srcad)
    if "4" in sections:
        section_transform(suite, srcad)
    __import__("interface_cost").section_interface_cost(suite, srcad)
    wall = perf_counter() - start
    print_summary(suite, sizes)
    print(f"\nwall time {wall:.0f} s")
    if cfg.quick and not args.write:
        print("--quick: docs/benchmarks.md not written (pass --write to write it)")
        return 0
    docs = ROOT / "docs"
    docs.mkdir(exist_ok=True)
    (docs / "benchmarks.md").write_text(markdown(suite, info, sizes, wall))
    print(f"wrote {docs / 'benchmarks.md'}")
    if chart(suite, sizes, docs / "benchmarks.png"):
        print(f"wrote {docs / 'benchmarks.png'}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
