"""Problem 7: checkpointing a long loop. The gradient of an RK4 integration of an n=100 state
over s steps, taped whole against checkpointed with `memory=` (binomial schedule): peak memory
and time of each, and the two gradients compared.

Targets: peak memory of the checkpointed gradient <= 5% of the fully taped one, time <= 3x,
gradients equal to 1e-12 relative. Memory: python, tracemalloc's peak during the call; numba,
the bytes srcad allocates for the reverse sweep (tapes as grown, snapshots, schedule rows).

    .venv/bin/python benchmarks/run.py --only checkpoint
    .venv/bin/python benchmarks/problem_checkpoint.py numba 100000 python 200
"""

from __future__ import annotations

import sys
import time
import tracemalloc
from pathlib import Path

import numpy as np

S7 = "7. checkpointing: gradient of an RK4 integration, n=100"
HERE = Path(__file__).resolve().parent


def rk4(y0, p, steps, dt):
    """sum(y(T)^2), y' = -p y + 0.1 sin(y shifted by one), RK4 with `steps` steps."""
    n = len(y0)
    y = y0.copy()
    for s in range(steps):
        k1 = np.zeros(n)
        for j in range(n):
            k1[j] = -p[j] * y[j] + 0.1 * np.sin(y[(j + 1) % n])
        y2 = np.zeros(n)
        for j in range(n):
            y2[j] = y[j] + 0.5 * dt * k1[j]
        k2 = np.zeros(n)
        for j in range(n):
            k2[j] = -p[j] * y2[j] + 0.1 * np.sin(y2[(j + 1) % n])
        y3 = np.zeros(n)
        for j in range(n):
            y3[j] = y[j] + 0.5 * dt * k2[j]
        k3 = np.zeros(n)
        for j in range(n):
            k3[j] = -p[j] * y3[j] + 0.1 * np.sin(y3[(j + 1) % n])
        y4 = np.zeros(n)
        for j in range(n):
            y4[j] = y[j] + dt * k3[j]
        k4 = np.zeros(n)
        for j in range(n):
            k4[j] = -p[j] * y4[j] + 0.1 * np.sin(y4[(j + 1) % n])
        for j in range(n):
            y[j] = y[j] + dt / 6.0 * (k1[j] + 2.0 * k2[j] + 2.0 * k3[j] + k4[j])
    total = 0.0
    for j in range(n):
        total += y[j] * y[j]
    return total


def problem(n=100):
    rng = np.random.default_rng(3)
    return rng.random(n), 0.5 + rng.random(n)


def variant(srcad, backend, steps, memory):
    """(peak bytes, seconds, gradient) of one gradient call. python: tracemalloc's peak
    during the call. numba (whose allocations tracemalloc does not see): the bytes srcad
    allocates for the reverse sweep, i.e. the tape arrays as grown by the call (kept for the
    next call) plus, checkpointed, the snapshots and the schedule's rows."""
    from srcad.runtime import checkpointing
    y0, p = problem()

    def grad(s):
        g = np.zeros_like(y0)
        srcad.autodiff(srcad.Reverse, rk4, srcad.Duplicated(y0, g), p, s, 1e-3,
                       backend=backend, memory=memory)
        return g

    grad(3)  # compile
    t0 = time.perf_counter()
    g = grad(steps)
    seconds = time.perf_counter() - t0
    if backend == "python":  # again, traced (tracemalloc slows the call down)
        tracemalloc.start()
        grad(steps)
        peak = tracemalloc.get_traced_memory()[1]
        tracemalloc.stop()
        return peak, seconds, g
    plan = [q for q in srcad.build.cache.plans[rk4] if q.backend == backend
            and q.compiled.request.memory == memory][-1]
    peak = sum(t.nbytes for t in plan.compiled.spare[-1] if isinstance(t, np.ndarray))
    if memory is not None:
        rows, _, slots = checkpointing.checkpoint_plan(steps, 8 * y0.size, memory,
                                                       checkpointing.EXPLICIT, 0)
        peak += rows.nbytes + slots * 8 * y0.size
    return peak, seconds, g


def section_checkpoint(suite, srcad, sizes=None, cases=None):
    from srcad.runtime import checkpointing
    print(f"\n{S7}")
    state = 8 * 100
    cases = cases or [("numba", 100_000), ("python", 200)]
    lines = []
    for backend, steps in cases:
        if backend == "numba":
            try:
                import numba  # noqa: F401
            except ImportError:
                lines.append(f"{backend}: skipped (not installed: numba)")
                continue
        # taped whole: the automatic budget raised out of the way
        default, checkpointing.DEFAULT_MEMORY = checkpointing.DEFAULT_MEMORY, 2**62
        srcad.build.cache.clear()
        full_peak, full_time, full_grad = variant(srcad, backend, steps, None)
        checkpointing.DEFAULT_MEMORY = default
        srcad.build.cache.clear()
        # snapshots for 1% of the full tape's size, at least 20 states
        memory = max(20 * state, int(0.01 * full_peak))
        ck_peak, ck_time, ck_grad = variant(srcad, backend, steps, memory)
        rel = float(np.max(np.abs(ck_grad - full_grad)) / np.max(np.abs(full_grad)))
        line = (f"{backend}, s={steps}: taped whole {full_peak / 1e6:.1f} MB {full_time:.2f} s; "
                f"memory={memory} ({memory // state - 1} snapshots): {ck_peak / 1e6:.2f} MB "
                f"({100 * ck_peak / full_peak:.1f}%, target <= 5%) {ck_time:.2f} s "
                f"({ck_time / full_time:.2f}x, target <= 3x); gradients differ by {rel:.1e} "
                "relative (target 1e-12)")
        print("  " + line)
        lines.append(line)
    if suite is not None:
        suite.extra["checkpoint"] = lines
    return lines


if __name__ == "__main__":  # e.g. `problem_checkpoint.py numba 100000 python 2000`
    sys.path.insert(0, str(HERE.parent))
    import srcad as _srcad
    _args = sys.argv[1:] or ["numba", "100000", "python", "200"]
    section_checkpoint(None, _srcad, cases=list(zip(_args[::2], map(int, _args[1::2]))))
