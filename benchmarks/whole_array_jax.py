"""srcad's numba reverse mode against jax.jit(jax.grad) on whole-array NumPy code, side by side.

    PYTHONPATH=. python benchmarks/whole_array_jax.py [--calls 200] [--only gmm,mlp]

The four programs of the speed page's table "Against jax.jit": GradBench's gmm in its
vectorized form (d=10, k=25, n=1000), and the logistic regression, MLP and RNN of
benchmarks/array_kernels.py at the benchmark suite's sizes. JAX computes on one thread, as
GradBench's JAX tool does (`gradbench/jax_one_thread.py`: XLA_FLAGS and its CPU client created
while the process is pinned to one CPU); OpenBLAS on one thread. Each contender is checked
against the other (relative error printed), then the two are called alternately, `--calls`
times each, and the minimum wall-clock time of each is reported with the load average.
"""

from __future__ import annotations

import argparse
import os
import sys
from pathlib import Path
from time import perf_counter

os.environ.setdefault("OPENBLAS_NUM_THREADS", "1")
ROOT = Path(__file__).resolve().parents[1]
sys.path[:0] = [str(ROOT), str(ROOT / "benchmarks"), str(ROOT / "benchmarks" / "gradbench")]

import numpy as np  # noqa: E402
from jax_one_thread import pin_jax_to_one_cpu  # noqa: E402


def srcad_grad(f, args, active):
    import srcad

    shadows = {i: np.zeros_like(args[i]) for i in active}

    def call():
        for s in shadows.values():
            s.fill(0.0)
        srcad.autodiff(srcad.Reverse, f, *[srcad.Duplicated(a, shadows[i]) if i in shadows
                                           else a for i, a in enumerate(args)],
                       backend="numba")
        return np.concatenate([s.ravel() for s in shadows.values()])
    return call


def jax_grad(grad, args):
    import jax

    inputs = [jax.device_put(a) for a in args]

    def call():
        out = jax.block_until_ready(grad(*inputs))
        out = out if isinstance(out, tuple) else (out,)
        return np.concatenate([np.ravel(np.asarray(o)) for o in out])
    return call


def problems():
    import array_kernels as ak

    from srcad.gradbench.ports import gmm

    jax, grads = ak.make_jax()
    out = {}
    w, X, y = ak.logistic_problem(10_000, 100)
    out["logistic regression (N=10000, D=100)"] = (
        srcad_grad(ak.logistic_loss, (w, X, y), (0,)), jax_grad(grads["logistic"], (w, X, y)))
    mlp = ak.mlp_problem(2000, 100, 64, 10)
    out["2-layer tanh MLP (N=2000, 100-64-10)"] = (
        srcad_grad(ak.mlp_loss, mlp, (0, 1, 2, 3)), jax_grad(grads["mlp"], mlp))
    rnn = ak.rnn_problem(100, 64, 16)
    out["RNN (T=100, H=64, D=16)"] = (
        srcad_grad(ak.rnn_loss, rnn, (0, 1)), jax_grad(grads["rnn"], rnn))
    p = gmm.Problem(gmm.generate(10, 25, 1000))
    _, _, jgrad = gmm._make_jax_functions(p)
    args = p.independent + p.vectorized_constants()
    out["GradBench gmm, vectorized form (d=10, k=25, n=1000)"] = (
        srcad_grad(gmm.gmm_vectorized, args, (0, 1, 2, 3)), jax_grad(jgrad, p.independent))
    return out


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--calls", type=int, default=200)
    parser.add_argument("--only", help="comma-separated words of the problems to run")
    args = parser.parse_args(argv)
    print("JAX", pin_jax_to_one_cpu())
    print(f"load average before: {os.getloadavg()}")
    for name, (ours, theirs) in problems().items():
        if args.only and not any(w in name.lower() for w in args.only.split(",")):
            continue
        a, b = ours(), theirs()
        err = np.max(np.abs(a - b)) / np.max(np.abs(b))
        times = [[], []]
        for _ in range(args.calls):
            for k, call in enumerate((ours, theirs)):
                t = perf_counter()
                call()
                times[k].append(perf_counter() - t)
        s, j = min(times[0]) * 1e3, min(times[1]) * 1e3
        print(f"{name}: srcad numba {s:.3f} ms, jax.jit {j:.3f} ms, ratio {s / j:.2f}x "
              f"(rel. err {err:.1e}; load {os.getloadavg()[0]:.2f})")
    return 0


if __name__ == "__main__":
    sys.exit(main())
