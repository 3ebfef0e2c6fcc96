"""JAX-style transforms on the second-order programs (fuzz/grammar_second_order.py: `f(x)`
of a float vector, returning a float): `srcad.jvp` against central differences of f along a
direction, `srcad.vjp`'s pullback (called twice, reused) against `srcad.grad`, and the
`hessian` transform against the `hessian` operator reshaped, `argnums=(0,)` giving `((H,),)`.
Every call gets its own copy of x (the programs may write their input).
"""

from __future__ import annotations

import os
import signal

import numpy as np

import srcad


def _central(f, x, v, h):
    with np.errstate(all="ignore"):
        return (f((x + h * v).copy()) - f((x - h * v).copy())) / (2 * h)


def check(f, x, timeout, alarm):
    """Raises AssertionError on a disagreement (SrcadError on a refusal)."""
    backend = os.environ.get("SRCAD_FUZZ_BACKEND", "python")
    signal.signal(signal.SIGALRM, alarm)
    signal.setitimer(signal.ITIMER_REAL, timeout, 1.0)
    try:
        with np.errstate(all="ignore"):
            v = np.linspace(-1.0, 1.0, x.size) + 0.3
            value, tangent = srcad.jvp(f, (x.copy(),), (v,), backend=backend)
            if not np.isclose(value, f(x.copy()), rtol=1e-12, atol=1e-12):
                raise AssertionError(f"jvp's value {value} != f(x) {f(x.copy())}")
            scale = max(1.0, abs(tangent))
            if not any(np.isclose(tangent, _central(f, x, v, h), rtol=1e-5, atol=1e-6 * scale)
                       for h in (1e-5, 1e-4, 1e-6)):
                raise AssertionError(f"jvp tangent {tangent} != central differences "
                                     f"{_central(f, x, v, 1e-5)}")
            _, vjp_fun = srcad.vjp(f, x.copy(), backend=backend)
            g = srcad.grad(f, backend=backend)(x.copy())
            for u in (1.0, -2.5):
                (pulled,) = vjp_fun(u)
                if not np.allclose(pulled, u * g, rtol=1e-9, atol=1e-9 * max(1.0, abs(u))):
                    raise AssertionError(f"vjp_fun({u}) {pulled.tolist()} != {u} * grad "
                                         f"{g.tolist()}")
            H = srcad.hessian(f, backend=backend)(x.copy())
            ((H_tuple,),) = srcad.hessian(f, argnums=(0,), backend=backend)(x.copy())
            expected = srcad.hessian(f, x.copy(), backend=backend).reshape(x.shape * 2)
            if not (np.allclose(H, expected, rtol=1e-9, atol=1e-9)
                    and np.allclose(H_tuple, expected, rtol=1e-9, atol=1e-9)):
                raise AssertionError("the hessian transform disagrees with the operator")
    finally:
        signal.setitimer(signal.ITIMER_REAL, 0)
