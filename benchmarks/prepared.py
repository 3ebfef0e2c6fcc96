"""Prepared operators (srcad.gradient, srcad.jacobian with a `prep`), set up for timing, and
numba's allocation count over prepared calls.

Each setup is ONE function written against the operator API; where srcad lacks the operator,
the AttributeError makes the contender "skipped (not implemented)".
"""

from __future__ import annotations

import kernels
import numpy as np
from harness import Skip, Suite, installed
from mixture import mixture_loglikelihood


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
    """The target "a prepared numba call allocates nothing beyond its results": numba's
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
    # a prepared reverse gradient and a forward jacobian with lanes in arrays run their
    # compiled calls without the engine's run (plans.py): one per chunk of lanes
    prep = call.prep
    chunks = -(-prep.state["n"] // prep.chunk) if prep.operator == "jacobian" \
        and prep.mode == "forward" else 1
    calls = counter.calls or 5 * chunks
    suite.extra.setdefault("allocations", {})[label] = (allocated - arrays * calls) / 5


class _CountingCalls:
    """Counts the calls of an engine's compiled function (a prepared operator may run it
    several times: once per chunk of lanes, once per row of a reverse jacobian)."""

    def __init__(self, engine):
        # a batched reverse jacobian's engine runs one compiled sweep per `rows` call
        self.engine, self.calls = engine, 0
        self.method = "run" if hasattr(engine, "run") else "rows"
        run = getattr(engine, self.method)

        def counted(*args, **kwargs):
            self.calls += 1
            return run(*args, **kwargs)

        setattr(engine, self.method, counted)

    def stop(self):
        delattr(self.engine, self.method)


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
