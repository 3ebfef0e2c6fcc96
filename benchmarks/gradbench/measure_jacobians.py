"""Time srcad's jacobians of the GradBench `ba` (sparse) and `ht` (dense) ports against JAX.

    python benchmarks/gradbench/measure_jacobians.py [small|quick|default] [pairs]

Every result is checked against the JAX reference before timing. Times are medians of
`pairs` interleaved calls (benchmarks/harness.py); preparation (pattern, coloring,
compilation; JAX's tracing and compilation) is reported apart and not in the ratios.
"""

from __future__ import annotations

import sys
import time
from pathlib import Path

import numpy as np

HERE = Path(__file__).resolve().parent
sys.path[:0] = [str(HERE.parent), str(HERE.parent.parent)]

from harness import interleaved_medians  # noqa: E402

from gradbench import ba, ht  # noqa: E402


def _prepared(make):
    start = time.perf_counter()
    call = make()
    return call, time.perf_counter() - start


def _row(name, seconds, prepare, reference):
    ratio = seconds / reference
    print(f"  {name:<44} {seconds * 1e3:9.3f} ms   (prepare {prepare:6.2f} s)   {ratio:6.2f}x")


def measure_ba(size, pairs, backends):
    x, constants = ba.parse(ba.generate(**ba.SIZES[size]), perturb=0.05)
    n, m, p = constants[:3]
    print(f"ba {size}: n={n} m={m} p={p}, J {3 * p} x {x.size}")
    blocks, t_blocks = _prepared(lambda: ba.jax_blocks(x, constants))
    csr, t_csr = _prepared(lambda: ba.jax_jacobian(x, constants))
    reference = csr()
    for backend in backends:
        call, t_prep = _prepared(lambda b=backend: ba.srcad_jacobian(x, constants, backend=b))
        J = call()
        error = abs(J - reference).max() / abs(reference).max()
        assert error < 1e-10, error
        srcad_time, jax_time = interleaved_medians(call, blocks, pairs)
        _, csr_time = interleaved_medians(call, csr, max(3, pairs // 3))
        print(f"  srcad {backend}: {J.nnz} nonzeros, relative error vs JAX {error:.1e}")
        _row("JAX jit(vmap(jacfwd)) blocks only", jax_time, t_blocks, jax_time)
        _row("JAX blocks + CSR assembly (scipy)", csr_time, t_csr, jax_time)
        _row(f"srcad jacobian(sparse=True) {backend}, CSR in place", srcad_time, t_prep,
             jax_time)


def measure_ht(size, pairs, backends):
    theta, constants = ht.parse(ht.generate(**ht.SIZES[size]))
    print(f"ht {size}: {len(constants[5])} correspondences, J {3 * len(constants[5])} x 26")
    jax_call, t_jax = _prepared(lambda: ht.jax_jacobian(theta, constants))
    reference = jax_call()
    jax_rev, t_rev = _prepared(lambda: ht.jax_jacobian(theta, constants, reverse=True))
    assert np.abs(jax_rev() - reference).max() <= 1e-10 * np.abs(reference).max()
    rev_time, fwd_time = interleaved_medians(jax_rev, jax_call, pairs)
    print("  JAX:")
    _row("JAX jit(jacfwd)", fwd_time, t_jax, fwd_time)
    _row("JAX jit(jacrev)", rev_time, t_rev, fwd_time)
    for backend in backends:
        call, t_prep = _prepared(lambda b=backend: ht.srcad_jacobian(theta, constants, backend=b))
        error = np.abs(call() - reference).max() / np.abs(reference).max()
        assert error < 1e-10, error
        srcad_time, jax_time = interleaved_medians(call, jax_call, pairs)
        print(f"  srcad {backend}: relative error vs JAX {error:.1e}")
        _row("JAX jit(jacfwd)", jax_time, t_jax, jax_time)
        _row(f"srcad jacobian {backend}, in place", srcad_time, t_prep, jax_time)


if __name__ == "__main__":
    size = sys.argv[1] if len(sys.argv) > 1 else "quick"
    pairs = int(sys.argv[2]) if len(sys.argv) > 2 else 11
    backends = ("numba",) if size == "default" else ("numba", "python")
    measure_ba(size, pairs, backends)
    measure_ht(size, pairs, backends)
