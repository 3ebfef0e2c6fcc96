"""Run one probe program in every mode srcad offers, on one backend, against references that do
not come from srcad: central differences of f (on copies, so f may write its input) for first
derivatives, four-point central differences of f for second derivatives, f itself (plain
Python and NumPy) for values.

Each outcome is one of: ok, refused (a SrcadError naming the probe's file and line),
refused-badly (a SrcadError that does not name the user's file, or that names srcad's own
generated names), wrong (a number differs), crash (any other exception).
"""
from __future__ import annotations

import math
import re
import traceback
from dataclasses import dataclass, field

import numpy as np

import srcad

INTERNAL = re.compile(r"_bar\b|_dot\b|<srcad|_poly_cs|\bxs_\d|_reverse #|srcad/|\b[a-z]\w*_v\d+\b"
                      r"|\barg\d+\[0\]|_of_array\b")


@dataclass
class Probe:
    name: str
    f: object
    x: object
    section: str
    refusal_allowed: bool = False
    second_order: bool = True
    numba: bool = True
    modes: tuple | None = None  # None: every mode
    notes: str = ""
    jax_nan: bool = False  # NaN at this point is JAX's answer (central differences differ)
    extra: dict = field(default_factory=dict)


def copy(x):
    return x.copy() if isinstance(x, np.ndarray) else x


def value(f, x):
    return f(copy(x))


def central(f, x, h=1e-6):
    h = h * max(1.0, float(np.max(np.abs(x))))
    if np.ndim(x) == 0:
        return (f(x + h) - f(x - h)) / (2 * h)
    g = np.zeros(x.size)
    for k in range(x.size):
        e = np.zeros(x.size)
        e[k] = h
        e = e.reshape(x.shape)
        g[k] = (f(x + e) - f(x - e)) / (2 * h)
    return g.reshape(x.shape)


def central_hessian(f, x, h=1e-4):
    h = h * max(1.0, float(np.max(np.abs(x))))
    if np.ndim(x) == 0:
        return (f(x + h) - 2 * f(x) + f(x - h)) / h ** 2
    n = x.size
    H = np.zeros((n, n))
    basis = np.eye(n) * h
    for i in range(n):
        for j in range(n):
            ei, ej = basis[i].reshape(x.shape), basis[j].reshape(x.shape)
            H[i, j] = (f(x + ei + ej) - f(x + ei - ej) - f(x - ei + ej)
                       + f(x - ei - ej)) / (4 * h * h)
    return H


def close(a, b, rtol=1e-5, atol=1e-5):
    a = np.asarray(a, dtype=float)
    b = np.asarray(b, dtype=float)
    if a.shape != b.shape:
        return False
    return bool(np.allclose(a, b, rtol=rtol, atol=atol, equal_nan=True))


def modes_of(probe, backend):
    f, x = probe.f, probe.x
    b = backend
    n = np.size(x)
    v = np.linspace(0.3, 1.1, n).reshape(np.shape(x)) if np.ndim(x) else 0.7

    def vag():
        val, g = srcad.value_and_grad(f, backend=b)(copy(x))
        return (val, g), (value(f, x), central(f, x))

    def grad():
        return srcad.grad(f, backend=b)(copy(x)), central(f, x)

    def jacfwd():
        return srcad.jacfwd(f, backend=b)(copy(x)), central(f, x)

    def jacrev():
        return srcad.jacrev(f, backend=b)(copy(x)), central(f, x)

    def push():
        return (srcad.pushforward(f, copy(x), tangent=v, backend=b),
                np.sum(central(f, x) * v))

    def gforward():
        return srcad.gradient(f, copy(x), mode="forward", backend=b), central(f, x)

    def greverse():
        return srcad.gradient(f, copy(x), mode="reverse", backend=b), central(f, x)

    def vector():
        if np.ndim(x) == 0:
            lanes = srcad.BatchDuplicated(copy(x), [1.0, 1.0])
            ref = np.array([central(f, x)] * 2)
        else:
            lanes = srcad.BatchDuplicated(copy(x), [e.reshape(x.shape) for e in np.eye(n)])
            ref = central(f, x).reshape(-1)
        out = srcad.autodiff(srcad.Forward, f, lanes, backend=b)
        return np.asarray(out).reshape(-1), ref

    def prepared_gradient():
        x0 = copy(x) * 0.9 + 0.05 if np.ndim(x) else x * 0.9 + 0.05
        prep = srcad.prepare_gradient(f, x0, backend=b)
        g1 = srcad.gradient(f, copy(x), prep=prep)
        g2 = srcad.gradient(f, copy(x), prep=prep)
        return (g1, g2), (central(f, x), central(f, x))

    def hessian():
        return srcad.hessian(f, copy(x), backend=b), central_hessian(f, x)

    def hessian_transform():
        H = srcad.hessian(f, backend=b)(copy(x))
        return np.reshape(H, (n, n)) if np.ndim(x) else H, central_hessian(f, x)

    def hessian_rof():
        return (srcad.hessian(f, copy(x), mode="reverse-over-forward", backend=b),
                central_hessian(f, x))

    def hvp():
        H = central_hessian(f, x)
        return srcad.hvp(f, copy(x), tangent=v, backend=b), (H @ v.reshape(-1)).reshape(
            np.shape(x)) if np.ndim(x) else H * v

    def second_derivative():
        return srcad.second_derivative(f, copy(x), backend=b), central_hessian(f, x)

    def prepared_hessian():
        x0 = copy(x) * 0.9 + 0.05 if np.ndim(x) else x * 0.9 + 0.05
        prep = srcad.prepare_hessian(f, x0, backend=b)
        H1 = srcad.hessian(f, copy(x), prep=prep)
        H2 = srcad.hessian(f, copy(x), prep=prep)
        ref = central_hessian(f, x)
        return (H1, H2), (ref, ref)

    def prepared_hvp():
        prep = srcad.prepare_hvp(f, copy(x), tangent=v, backend=b)
        H = central_hessian(f, x)
        ref = (H @ v.reshape(-1)).reshape(np.shape(x)) if np.ndim(x) else H * v
        return srcad.hvp(f, copy(x), tangent=v, prep=prep), ref

    first = dict(value_and_grad=vag, grad=grad, jacfwd=jacfwd, jacrev=jacrev, pushforward=push,
                 gradient_forward=gforward, gradient_reverse=greverse, vector=vector,
                 prepared_gradient=prepared_gradient)
    second = dict(hessian=hessian, hessian_transform=hessian_transform,
                  hessian_reverse_over_forward=hessian_rof, hvp=hvp,
                  prepared_hessian=prepared_hessian, prepared_hvp=prepared_hvp)
    if np.ndim(x) == 0:
        second["second_derivative"] = second_derivative
    modes = dict(first)
    if probe.second_order:
        modes.update(second)
    if probe.modes is not None:
        modes = {k: m for k, m in modes.items() if k in probe.modes}
    return modes


def agree(got, ref, rtol, atol):
    if isinstance(got, tuple) and isinstance(ref, tuple):
        return all(agree(g, r, rtol, atol) for g, r in zip(got, ref))
    return close(got, ref, rtol, atol)


def classify_refusal(err, probe_file):
    text = str(err)
    names_file = probe_file in text and re.search(r":\d+", text) is not None
    if names_file and not INTERNAL.search(text):
        return "refused"
    return "refused-badly"


def run_mode(probe, backend, mode_name, call, probe_file):
    try:
        got, ref = call()
    except srcad.SrcadError as err:
        kind = classify_refusal(err, probe_file)
        return kind, f"{type(err).__name__}: {str(err)[:300]}"
    except Exception as err:  # noqa: BLE001 -- a probe records every crash
        tb = traceback.format_exc().strip().splitlines()[-3:]
        return "crash", f"{type(err).__name__}: {str(err)[:200]} | {' / '.join(tb)[:300]}"
    scale = max(1.0, float(np.max(np.abs(np.asarray(ref if not isinstance(ref, tuple)
                                                     else ref[-1], dtype=float)))))
    rtol = 1e-4 if mode_name.startswith(("hess", "hvp", "second", "prepared_h")) else 1e-5
    if agree(got, ref, rtol, rtol * scale):
        return "ok", ""
    if probe.jax_nan and not is_finite(got[-1] if isinstance(got, tuple) else got):
        return "jax-convention", f"got {got!r}: NaN where JAX (float64) gives NaN too"[:400]
    return "wrong", f"got {got!r} want {ref!r}"[:400]


def run_probe(probe, backends, probe_file):
    rows = []
    for backend in backends:
        if backend == "numba" and not probe.numba:
            continue
        for mode_name, call in modes_of(probe, backend).items():
            kind, detail = run_mode(probe, backend, mode_name, call, probe_file)
            if kind == "refused" and not probe.refusal_allowed:
                kind = "refused-not-allowed"
            rows.append((probe.section, probe.name, backend, mode_name, kind, detail))
    return rows


def is_finite(v):
    return all(math.isfinite(t) for t in np.ravel(np.asarray(v, dtype=float)))
