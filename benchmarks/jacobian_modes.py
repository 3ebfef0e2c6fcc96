"""Forward against reverse jacobians, per shape and backend: the measurements behind the mode
`srcad.jacobian` picks when `mode=` is not given (srcad/operators/jacobian_mode.py,
docs/jacobian_modes.md).

    python benchmarks/jacobian_modes.py [pairs] [backends] [problems]

`backends` is a comma-separated subset of python,numba (both by default); `problems` a
comma-separated subset of the names below (all by default). Each shape is measured in both
modes (`mode="forward"`, `mode="reverse"`, each with its default lanes), the two results
checked against each other and against central differences, then timed: medians of `pairs`
calls made alternately (CPU time of this process, which a loaded machine disturbs less than
wall time); preparation (and numba's compile) is not timed. The load average is printed
before and after. The last columns: the mode `jacobian` picks without `mode=` and what it
costs against the faster of the two (1.00: it picked the faster).

Problems, m outputs and n inputs (n / m from 0.25 to 16):

* dense-loops: y[i] = tanh(sum_j A[i, j] sin(x[j])) as two loops writing an Output;
* dense-numpy: the same as whole-array NumPy, returned;
* local-loops: each output reads three inputs (a banded jacobian computed densely);
* ht small (24 x 26) and ba small (36 x 60): the GradBench ports' loops.
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
sys.path[:0] = [str(HERE.parent)]

import srcad  # noqa: E402
from srcad.gradbench.ports import ba, ht  # noqa: E402

OUTPUTS = 40
RATIOS = (0.25, 0.5, 1.0, 2.0, 3.0, 4.0, 8.0, 16.0)


def dense_loops(y, x, A):
    m, n = A.shape
    for i in range(m):
        s = 0.0
        for j in range(n):
            s += A[i, j] * math.sin(x[j])
        y[i] = math.tanh(s)


def dense_numpy(x, A):
    return np.tanh(A @ np.sin(x))


def local_loops(y, x):
    n = x.shape[0]
    for i in range(y.shape[0]):
        a = x[i % n]
        b = x[(3 * i + 1) % n]
        y[i] = math.sin(a) * b + math.exp(-a * a) * x[(7 * i + 2) % n]


def _synthetic(name, ratio):
    """(label, f, args, primal) of a synthetic problem with n = ratio * OUTPUTS inputs."""
    m, n = OUTPUTS, int(ratio * OUTPUTS)
    rng = np.random.default_rng(n)
    x, A = rng.standard_normal(n), rng.standard_normal((m, n)) / math.sqrt(n)
    label = f"{name} {m}x{n}"
    if name == "dense-loops":
        args = (srcad.Output(np.zeros(m)), x, srcad.Constant(A))
        return label, dense_loops, args, lambda: dense_loops(np.zeros(m), x, A)
    if name == "dense-numpy":
        return label, dense_numpy, (x, srcad.Constant(A)), lambda: dense_numpy(x, A)
    args = (srcad.Output(np.zeros(m)), x)
    return label, local_loops, args, lambda: local_loops(np.zeros(m), x)


def _port(name):
    if name == "ht":
        theta, constants = ht.parse(ht.generate(**ht.SIZES["small"]))
        err = np.zeros(3 * len(constants[5]))
        args = (srcad.Output(err), theta) + tuple(srcad.Constant(c) for c in constants)
        primal = lambda: ht.ht_objective(np.zeros_like(err), theta, *constants)  # noqa: E731
        return f"ht small {err.size}x{theta.size}", ht.ht_objective, args, primal
    x, constants = ba.parse(ba.generate(**ba.SIZES["small"]), perturb=0.05)
    err = np.zeros(3 * constants[2])
    args = (srcad.Output(err), x) + tuple(srcad.Constant(c) for c in constants)
    primal = lambda: ba.ba_objective(np.zeros_like(err), x, *constants)  # noqa: E731
    return f"ba small {err.size}x{x.size}", ba.ba_objective, args, primal


def problems(names):
    for name in names:
        if name in ("ht", "ba"):
            yield _port(name)
        else:
            for ratio in RATIOS:
                yield _synthetic(name, ratio)


def side_by_side(calls, pairs):
    """Median CPU seconds of each call, the calls made in turn `pairs` times."""
    for call in calls:
        call()
    samples = [[] for _ in calls]
    for _ in range(pairs):
        for k, call in enumerate(calls):
            start = time.process_time()
            call()
            samples[k].append(time.process_time() - start)
    return [statistics.median(s) for s in samples]


def _central_differences(f, args, eps=1e-6):
    """The jacobian by central differences of the plain function."""
    k = next(i for i, a in enumerate(args) if isinstance(a, np.ndarray))
    plain = [a.value if isinstance(a, (srcad.Output, srcad.Constant)) else a for a in args]
    out = next((i for i, a in enumerate(args) if isinstance(a, srcad.Output)), None)

    def value(x):
        values = list(plain)
        values[k] = x
        if out is not None:
            values[out] = np.zeros_like(plain[out])
            f(*values)
            return values[out].copy()
        return np.asarray(f(*values))

    x = plain[k]
    columns = []
    for j in range(x.size):
        step = np.zeros_like(x)
        step.flat[j] = eps
        columns.append((value(x + step) - value(x - step)) / (2 * eps))
    return np.stack(columns, axis=1)


def measure(label, f, args, primal, backend, pairs):
    preps = {mode: srcad.prepare_jacobian(f, *args, mode=mode, backend=backend)
             for mode in ("forward", "reverse")}
    default = srcad.prepare_jacobian(f, *args, backend=backend)
    J = {mode: srcad.jacobian(f, *args, prep=p).copy() for mode, p in preps.items()}
    reference = _central_differences(f, args)
    scale = np.abs(reference).max()
    for mode, got in J.items():
        error = np.abs(got - reference).max() / scale
        assert error < 1e-6, (label, backend, mode, error)
    assert np.allclose(J["forward"], J["reverse"], rtol=1e-12, atol=1e-12 * scale)
    outs = {mode: np.empty_like(j) for mode, j in J.items()}
    calls = [lambda p=p, o=outs[mode]: srcad.jacobian(f, *args, prep=p, out=o)
             for mode, p in preps.items()] + [primal]
    forward, reverse, base = side_by_side(calls, pairs)
    m, n = J["forward"].shape
    chosen = forward if default.mode == "forward" else reverse
    print(f"| {label} | {n / m:.2f} | {backend} | {forward * 1e3:.2f} (W={preps['forward'].chunk})"
          f" | {reverse * 1e3:.2f} (W={preps['reverse'].chunk}) | {reverse / forward:.2f} | "
          f"{base * 1e3:.3f} | {default.mode} | {chosen / min(forward, reverse):.2f} |",
          flush=True)


def main(argv):
    pairs = int(argv[1]) if len(argv) > 1 else 5
    backends = argv[2].split(",") if len(argv) > 2 else ["python", "numba"]
    names = argv[3].split(",") if len(argv) > 3 else ["dense-loops", "dense-numpy",
                                                       "local-loops", "ht", "ba"]
    print(f"load average before: {os.getloadavg()}")
    print("| problem (m x n) | n / m | backend | forward ms (lanes) | reverse ms (lanes) | "
          "reverse / forward | primal ms | default mode | default / faster |")
    print("|---|---:|---|---:|---:|---:|---:|---|---:|")
    for backend in backends:
        for label, f, args, primal in problems(names):
            measure(label, f, args, primal, backend, pairs)
    print(f"load average after: {os.getloadavg()}")


if __name__ == "__main__":
    main(sys.argv)
