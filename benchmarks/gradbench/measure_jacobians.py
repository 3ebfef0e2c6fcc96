"""Time srcad's jacobians of the GradBench `ba` (sparse) and `ht` (dense; complicated:
sparse over [theta, us]) ports against JAX, and numba's batched reverse mode on ht.

    python benchmarks/gradbench/measure_jacobians.py [small|quick|default] [pairs] [evals]

`evals` is a comma-separated subset of ba,ht,ht-complicated,ht-reverse (all by default).

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

from srcad.gradbench.ports import ba, ht  # noqa: E402


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


def measure_ht_complicated(size, pairs, backends):
    name = "complicated" if size == "default" else f"{size}-complicated"
    problem = ht.parse(ht.generate(**ht.SIZES[name]))
    rows = 3 * len(problem[1][5])
    print(f"ht {name}: J {rows} x (2 + 26) (GradBench's layout), sparse over {26 + rows // 3 * 2}"
          " inputs")
    jax_call, t_jax = _prepared(lambda: ht.jax_jacobian(*problem))
    reference = jax_call()
    for backend in backends:
        call, t_prep = _prepared(lambda b=backend: ht.srcad_jacobian(*problem, backend=b))
        error = np.abs(call() - reference).max() / np.abs(reference).max()
        assert error < 1e-10, error
        srcad_time, jax_time = interleaved_medians(call, jax_call, pairs)
        print(f"  srcad {backend}: relative error vs JAX {error:.1e}")
        _row("JAX jit(jacfwd theta + 2 jvps us)", jax_time, t_jax, jax_time)
        _row(f"srcad jacobian(sparse=True) {backend}, gathered", srcad_time, t_prep, jax_time)


def measure_ht_reverse(size, pairs):
    """numba reverse mode: W rows per sweep (the default) against one row per sweep (W=1)."""
    import srcad

    theta, constants = ht.parse(ht.generate(**ht.SIZES[size]))
    err = np.zeros(3 * len(constants[5]))
    args = (srcad.Output(err), theta) + tuple(srcad.Constant(c) for c in constants)
    print(f"ht {size} reverse mode on numba: J {err.size} x 26")
    jax_rev, t_rev = _prepared(lambda: ht.jax_jacobian(theta, constants, reverse=True))
    reference = jax_rev()
    calls = {}
    for label, chunk in (("W rows per sweep (default)", None), ("one row per sweep", 1)):
        def make(chunk=chunk):
            prep = srcad.prepare_jacobian(ht.ht_objective, *args, mode="reverse", chunk=chunk,
                                          backend="numba")
            J = srcad.jacobian(ht.ht_objective, *args, prep=prep)
            return lambda: srcad.jacobian(ht.ht_objective, *args, prep=prep, out=J), prep
        (call, prep), t_prep = _prepared(make)
        error = np.abs(call() - reference).max() / np.abs(reference).max()
        assert error < 1e-10, error
        calls[label] = (call, t_prep, prep.chunk)
    for label, (call, t_prep, width) in calls.items():
        srcad_time, jax_time = interleaved_medians(call, jax_rev, pairs)
        _row("JAX jit(jacrev)", jax_time, t_rev, jax_time)
        _row(f"srcad reverse numba, {label}, W={width}", srcad_time, t_prep, jax_time)


if __name__ == "__main__":
    size = sys.argv[1] if len(sys.argv) > 1 else "quick"
    pairs = int(sys.argv[2]) if len(sys.argv) > 2 else 11
    chosen = sys.argv[3].split(",") if len(sys.argv) > 3 else ["ba", "ht", "ht-complicated",
                                                                 "ht-reverse"]
    backends = ("numba",) if size == "default" else ("numba", "python")
    if "ba" in chosen:
        measure_ba(size, pairs, backends)
    if "ht" in chosen:
        measure_ht(size, pairs, backends)
    if "ht-complicated" in chosen:
        measure_ht_complicated(size, pairs, backends)
    if "ht-reverse" in chosen:
        measure_ht_reverse(size, pairs)
