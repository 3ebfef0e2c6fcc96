"""Transforms of a function closing over a pytree (srcad/transform/normalize/free_containers.py,
text_arguments.py) on the second-order programs (fuzz/grammar_second_order.py: `f(x)` of a
float vector, returning a float). For half of the programs (their own stream,
`random.Random(f"compose closures {crc32 of the program}")`, so no program of any seed
changes) the program is read through

    g(t) = f(t * H[0]["s"] + H[1][0])     if H[0]["kind"] == "affine" (else f(t))

with `H = ({"s": s, "kind": kind, "off": None}, [c])` a global of g: srcad must read H's
entries as constants. `srcad.grad(g)` must be s * grad f(t s + c), `jacfwd(grad(g))` s^2 times
the Hessian of f there, `jvp(g)` the gradient along a direction, and after `H[1][0]` is
rebound (the code built again) the gradient at the new shift. The same programs are also
read through `n(t) = (v, (2 v, v * v))` with v = f(t) (srcad/api/nested_results.py):
`jacfwd(n)` and `jacrev(n)` must be nested as n's result, `(grad, (2 grad, 2 v grad))`, and
`jvp(n)` the same products with the direction.
"""

from __future__ import annotations

import random
import zlib

import numpy as np

import srcad
from srcad.frontend.source_functions import compile_source

_SOURCE = ("def g(t):\n"
           "    if H[0]['kind'] == 'affine' and H[0]['off'] is None:\n"
           "        return f(t * H[0]['s'] + H[1][0])\n"
           "    return f(t)\n")


_NESTED = ("def n(t):\n"
           "    v = f(t)\n"
           "    return v, (2.0 * v, v * v)\n")


def closures_drawn(text: str) -> bool:
    return random.Random(f"compose closures {zlib.crc32(text.encode())}").random() < 1 / 2


def _close(ours, want, what, tol=1e-8):
    scale = max(1.0, float(np.max(np.abs(want))))
    if not np.allclose(ours, want, rtol=tol, atol=tol * scale):
        raise AssertionError(f"{what} {np.asarray(ours).tolist()} != "
                             f"{np.asarray(want).tolist()}")


def check_closure(f, x, H, gradient, backend, text):
    """The transforms of g against f's (module docstring); H: the Hessian of f at x."""
    rng = random.Random(f"compose closures values {zlib.crc32(text.encode())}")
    kind = rng.choice(["affine", "affine", "plain"])
    s = 1.0 if kind == "plain" else rng.choice([1.0, 0.5, -1.5])
    H_tree = ({"s": s, "kind": kind, "off": None}, [0.0])
    g = compile_source(_SOURCE, "g", {"f": f, "H": H_tree})
    t = (x / s) if kind == "affine" else x.copy()  # g at t is f at x: H is f's Hessian there
    factor = s if kind == "affine" else 1.0
    _close(srcad.grad(g, backend=backend)(t.copy()), factor * gradient(x.copy()),
           "grad of a closure over a pytree")
    _close(srcad.jacfwd(srcad.grad(g, backend=backend), backend=backend)(t.copy()),
           factor ** 2 * H, "jacfwd(grad) of a closure over a pytree", tol=1e-7)
    v = np.linspace(-1.0, 1.0, x.size) + 0.3
    _, tangent = srcad.jvp(g, (t.copy(),), (v,), backend=backend)
    _close(tangent, factor * gradient(x.copy()) @ v, "jvp of a closure over a pytree")
    if kind == "affine":
        H_tree[1][0] = 0.25  # rebound: the code is built again, at the new shift
        _close(srcad.grad(g, backend=backend)(t.copy()), s * gradient(x + 0.25),
               "grad after an entry of the pytree is rebound")


def check_nested_results(f, x, gradient, backend):
    """jacfwd, jacrev and jvp of n (module docstring) against srcad's gradient of f."""
    n = compile_source(_NESTED, "n", {"f": f})
    value, g = f(x.copy()), gradient(x.copy())
    want = (g, (2.0 * g, 2.0 * value * g))
    for transform in ("jacfwd", "jacrev"):
        ours = getattr(srcad, transform)(n, backend=backend)(x.copy())
        if not (type(ours) is tuple and len(ours) == 2 and type(ours[1]) is tuple
                and len(ours[1]) == 2):
            raise AssertionError(f"{transform} of a nested result: {ours!r} is not nested "
                                 "as (a, (b, c))")
        for got, expected in zip((ours[0], *ours[1]), (want[0], *want[1])):
            _close(got, expected, f"{transform} of a nested result")
    v = np.linspace(-1.0, 1.0, x.size) + 0.3
    _, tangent = srcad.jvp(n, (x.copy(),), (v,), backend=backend)
    for got, expected in zip((tangent[0], *tangent[1]), (want[0] @ v, *(w @ v for w in want[1]))):
        _close(got, expected, "jvp of a nested result")
