"""Interface cost: what the operator interface adds over the call it wraps.

* an unprepared operator call against the same call with a preparation (the preparation is
  kept for the next call like it, srcad/operators/prep_cache.py): target <= 1.2x;
* a prepared jacobian (n = 10, 100, 400) with the default chunk and lane style against the raw
  `autodiff(Forward, f, BatchDuplicated(x, eye))` call: target <= 1.1x.

Both sides of each ratio are called alternately (same drift: this machine is shared), and each
result is checked against an exact reference first. Results: suite.extra["interface cost"], a
list of (case, numerator, denominator, numerator median s, denominator median s, ratio);
`markdown_lines(suite)` renders them.
"""

from __future__ import annotations

import importlib.util

import kernels
import numpy as np
from harness import interleaved_medians
from mixture import make_problem, mixture_gradient_numpy, mixture_loglikelihood

TOL = 1e-6


def _agrees(got, ref) -> bool:
    got, ref = np.asarray(got, dtype=float), np.asarray(ref, dtype=float)
    return got.shape == ref.shape and \
        float(np.max(np.abs(got - ref))) <= TOL * max(float(np.max(np.abs(ref))), 1e-300)


def _row(suite, case, names, a, b, ref, pairs):
    """Check a() and b() against ref (a callable's result, or read back by `ref`), then time
    them interleaved."""
    results = suite.extra.setdefault("interface cost", [])
    for name, call in zip(names, (a, b)):
        if not _agrees(call(), ref):
            print(f"  {case}: {name} DISAGREES with the reference: not timed")
            results.append((case, *names, None, None, None))
            return
    ta, tb = interleaved_medians(a, b, pairs)
    results.append((case, *names, ta, tb, ta / tb))
    print(f"  {case:<46} {names[0]} / {names[1]}: {ta * 1e6:9.1f} us / {tb * 1e6:9.1f} us"
          f" = {ta / tb:5.2f}x")


def section_interface_cost(suite, srcad):
    print("\n5. interface cost (interleaved ratios)")
    quick = suite.cfg.quick
    pairs = 9 if quick else 61
    backends = ["python"] + (["numba"] if importlib.util.find_spec("numba") else [])
    constant, gradient = srcad.Constant, srcad.gradient

    # unprepared / prepared: the mixture's gradient, as an optimizer callback calls it
    params, data = make_problem(500, 4)
    ref = mixture_gradient_numpy(params, data)
    f = mixture_loglikelihood
    for backend in backends:
        prep = srcad.prepare_gradient(f, params, constant(data), backend=backend)
        _row(suite, f"mixture gradient N=500 K=4, {backend}", ("unprepared", "prepared"),
             lambda b=backend: gradient(f, params, constant(data), backend=b),
             lambda p=prep: gradient(f, params, constant(data), prep=p),
             ref, pairs)

    # default prepared jacobian / the best raw call (one call of every lane), n = 10, 100, 400
    for n in (10, 100) if quick else (10, 100, 400):
        _jacobian_rows(suite, srcad, backends, n, pairs if n <= 100 else max(9, pairs // 3))


def _jacobian_rows(suite, srcad, backends, n, pairs):
    output, cache = srcad.Output, srcad.Cache
    forward, batch = srcad.Forward, srcad.BatchDuplicated
    jacobian = srcad.jacobian
    x = np.random.default_rng(0).random(n)
    eye = np.eye(n)
    square = kernels.square
    for backend in backends:
        J = np.zeros((n, n))
        prep = srcad.prepare_jacobian(square, x, backend=backend)
        _row(suite, f"elementwise x**2 n={n}, {backend} (chunk {prep.chunk})",
             ("jacobian default", "raw BatchDuplicated"),
             lambda p=prep, J=J: jacobian(square, x, prep=p, out=J),
             lambda b=backend: np.asarray(srcad.autodiff(forward, square, batch(x, eye),
                                                         batch="stacked", backend=b)),
             np.diag(2.0 * x), pairs)

    g = kernels.scratch_cache_f
    ref = kernels.scratch_cache_jacobian_reference(x)
    for backend in backends:
        y, c, J = np.zeros(n), np.zeros(n), np.zeros((n, n))
        dY, dC = np.zeros((n, n)), np.zeros((n, n))
        prep = srcad.prepare_jacobian(g, output(y), x, cache(c), backend=backend)

        def raw(b=backend, y=y, c=c, dY=dY, dC=dC):
            srcad.autodiff(forward, g, batch(y, dY), batch(x, eye), batch(c, dC),
                           batch="stacked", backend=b)
            return dY.T  # lane k is column k
        _row(suite, f"scratch-cache jacobian n={n}, {backend} (chunk {prep.chunk})",
             ("jacobian default", "raw BatchDuplicated"),
             lambda p=prep, y=y, c=c, J=J: jacobian(g, output(y), x, cache(c), prep=p, out=J),
             raw, ref, pairs)
        if backend == "python" and n == 100:
            _row(suite, f"scratch-cache jacobian n={n}, {backend}", ("unprepared", "prepared"),
                 lambda y=y, c=c, J=J: jacobian(g, output(y), x, cache(c), out=J),
                 lambda p=prep, y=y, c=c, J=J: jacobian(g, output(y), x, cache(c), prep=p,
                                                        out=J),
                 ref, max(5, pairs // 4))


def markdown_lines(suite) -> list:
    rows = suite.extra.get("interface cost", [])
    if not rows:
        return []
    lines = ["## 6. interface cost", "",
             "Both sides called alternately (interleaved medians); targets: unprepared / "
             "prepared <= 1.2x, default jacobian / best raw call <= 1.1x.", "",
             "| case | ratio | numerator | denominator |", "|---|---:|---:|---:|"]
    for case, a, b, ta, tb, r in rows:
        if r is None:
            lines.append(f"| {case} | DISAGREES | {a} | {b} |")
        else:
            lines.append(f"| {case} | {a} / {b} = {r:.2f}x | {ta * 1e6:.1f} us | "
                         f"{tb * 1e6:.1f} us |")
    return lines + [""]
