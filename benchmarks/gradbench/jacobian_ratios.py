"""Python-backend jacobians against their CPython primal (and JAX's jacrev where it is asked
for), timed side by side: the ratios docs/benchmarks.md records.

    python benchmarks/gradbench/jacobian_ratios.py [quick|default] [pairs] [rows]

`rows` is a comma-separated subset of ht,ht-reverse,ba,map (all by default):

* ht: `jacobian` in forward vector mode (26 stacked lanes; its independent loops, nested
  ones included, run on all iterations at once: srcad/transform/parallel_loops.py);
* ht-reverse: `jacobian(mode="reverse")`, W rows per reverse sweep
  (srcad/operators/batched_reverse.py), and JAX's jit(jacrev) beside it;
* ba: the sparse `jacobian` (forward, colored lanes);
* map: `jacrev` of a 100-output element-by-element map (W cotangents per sweep:
  srcad/api/reverse_rows.py) against jax.jit(jax.jacrev) of the same map.

Each result is checked against JAX first. Times are medians of `pairs` calls interleaved
with the primal (CPU time of this process, and wall time), with the load average before and
after; preparation is not timed.
"""

from __future__ import annotations

import math
import os
import statistics
import sys
import time
from pathlib import Path

import numpy as np

HERE = Path(__file__).resolve().parent
sys.path[:0] = [str(HERE.parent), str(HERE.parent.parent)]

import srcad  # noqa: E402
from srcad.gradbench.ports import ba, ht  # noqa: E402


def side_by_side(a, b, pairs):
    """((cpu a, wall a), (cpu b, wall b)): medians of calls made alternately."""
    a(), b()
    samples = {"a": [], "b": []}
    for _ in range(pairs):
        for key, call in (("a", a), ("b", b)):
            cpu, wall = time.process_time(), time.perf_counter()
            call()
            samples[key].append((time.process_time() - cpu, time.perf_counter() - wall))
    return [tuple(statistics.median(s[k] for s in samples[key]) for k in (0, 1))
            for key in ("a", "b")]


def _row(name, timed, primal):
    (cpu, wall), (primal_cpu, _) = timed, primal
    print(f"  {name:<46} {cpu * 1e3:9.2f} ms CPU ({wall * 1e3:9.2f} wall)  "
          f"{cpu / primal_cpu:6.2f}x the primal's {primal_cpu * 1e3:.2f} ms CPU")


def _close(got, want):
    error = np.abs(np.asarray(got) - want).max() / np.abs(want).max()
    assert error < 1e-10, error


def measure_ht(size, pairs, reverse=False):
    theta, constants = ht.parse(ht.generate(**ht.SIZES[size]))
    err = np.zeros(3 * len(constants[5]))
    args = (srcad.Output(err), theta) + tuple(srcad.Constant(c) for c in constants)
    mode = "reverse" if reverse else "forward"
    prep = srcad.prepare_jacobian(ht.ht_objective, *args, mode=mode, backend="python")
    J = srcad.jacobian(ht.ht_objective, *args, prep=prep)
    reference = ht.jax_jacobian(theta, constants, reverse=reverse)
    _close(J, reference())
    call = lambda: srcad.jacobian(ht.ht_objective, *args, prep=prep, out=J)  # noqa: E731
    primal = lambda: ht.ht_objective(np.zeros_like(err), theta, *constants)  # noqa: E731
    timed, base = side_by_side(call, primal, pairs)
    print(f"ht {size} ({err.size} x 26), {mode}, W = {prep.chunk}:")
    _row(f"srcad jacobian(mode={mode!r}) python", timed, base)
    if reverse:
        jax_timed, base = side_by_side(reference, primal, pairs)
        _row("JAX jit(jacrev)", jax_timed, base)


def measure_ba(size, pairs):
    x, constants = ba.parse(ba.generate(**ba.SIZES[size]), perturb=0.05)
    call = ba.srcad_jacobian(x, constants, backend="python")
    J, reference = call(), ba.jax_jacobian(x, constants)()
    assert abs(J - reference).max() / abs(reference).max() < 1e-10  # sparse: no dense copy
    timed, base = side_by_side(call, lambda: ba.objective(x, constants), pairs)
    print(f"ba {size} (J {3 * constants[2]} x {x.size}), sparse forward:")
    _row("srcad jacobian(sparse=True) python", timed, base)


def ring(x):
    """100 outputs, each of three neighbours."""
    n = x.shape[0]
    y = np.zeros(n)
    for i in range(n):
        a, b = x[i], x[(i + 1) % n]
        y[i] = math.sin(a) * b + math.exp(-a * a) * x[(i + 7) % n]
    return y


def measure_map(pairs, n=100):
    import jax
    import jax.numpy as jnp
    jax.config.update("jax_enable_x64", True)

    def ring_jax(x):
        a, b, c = x, jnp.roll(x, -1), jnp.roll(x, -7)
        return jnp.sin(a) * b + jnp.exp(-a * a) * c

    x = np.linspace(-1.0, 1.0, n)
    jacrev = srcad.jacrev(ring)
    jax_jacrev = jax.jit(jax.jacrev(ring_jax))
    _close(jacrev(x), np.asarray(jax_jacrev(x)))
    primal = lambda: ring(x)  # noqa: E731
    timed, base = side_by_side(lambda: jacrev(x), primal, pairs)
    print(f"map of {n} outputs ({n} x {n}), jacrev:")
    _row("srcad jacrev python", timed, base)
    jax_timed, base = side_by_side(lambda: jax_jacrev(x).block_until_ready(), primal, pairs)
    _row("jax.jit(jax.jacrev) (XLA, compiled)", jax_timed, base)


if __name__ == "__main__":
    size = sys.argv[1] if len(sys.argv) > 1 else "quick"
    pairs = int(sys.argv[2]) if len(sys.argv) > 2 else 7
    rows = sys.argv[3].split(",") if len(sys.argv) > 3 else ["ht", "ht-reverse", "ba", "map"]
    print(f"load average before: {os.getloadavg()}")
    if "ht" in rows:
        measure_ht(size, pairs)
    if "ht-reverse" in rows:
        measure_ht(size, pairs, reverse=True)
    if "ba" in rows:
        measure_ba(size, pairs)
    if "map" in rows:
        measure_map(pairs)
    print(f"load average after: {os.getloadavg()}")
