"""Transforms of transforms on the second-order programs (fuzz/grammar_second_order.py: `f(x)`
of a float vector, returning a float; srcad/api/composed.py): `jacfwd(grad(f))` against
central differences of srcad's gradient, `jacrev(grad(f))` and `jvp(grad(f), ...)` against
it, and for a third of the programs (drawn from their own stream,
`random.Random(f"compose {crc32 of the program}")`, so no program of any seed changes) the
third derivative `jacfwd(hessian(f))` against central differences of the `hessian`
transform. For half of the programs (their own stream, `random.Random(f"compose containers
{crc32}")`) the composition is also taken over a dict of parameters,
`g(p) = f(p["x"] * p["s"])` at s = 1 (srcad/api/chain_trees.py): `jacfwd(grad(g))` must be
JAX's nesting of blocks, ["x"]["x"] the Hessian H of f, ["x"]["s"] and ["s"]["x"] the
gradient plus H x, ["s"]["s"] x.H x, and `jvp`/`vjp` of grad(g) the matching products. For
half (fuzz/closure_check.py) f is also read through a function closing over a pytree. Every
call gets its own copy of x (the programs may write their input).
"""

from __future__ import annotations

import os
import random
import signal
import zlib

import numpy as np
from closure_check import check_closure, check_nested_results

import srcad
from srcad.frontend.source_functions import compile_source


def _central(function, x, h):
    """Central differences of an array-valued function along every element of x."""
    with np.errstate(all="ignore"):
        return np.stack([(function((x + h * e).copy()) - function((x - h * e).copy())) / (2 * h)
                         for e in np.eye(x.size)], axis=-1)


def _close_to_differences(ours, function, x, what):
    for h in (1e-5, 1e-4, 1e-6):
        expected = _central(function, x, h)
        scale = max(1.0, float(np.abs(expected).max()))
        if np.allclose(ours, expected, rtol=1e-5, atol=1e-6 * scale):
            return
    raise AssertionError(f"{what} {np.asarray(ours).tolist()} != central differences "
                         f"{expected.tolist()}")


def third_order_drawn(text: str) -> bool:
    return random.Random(f"compose {zlib.crc32(text.encode())}").random() < 1 / 3


def containers_drawn(text: str) -> bool:
    return random.Random(f"compose containers {zlib.crc32(text.encode())}").random() < 1 / 2


def _check_containers(f, x, H, gradient, backend):
    """The composition over a dict of parameters against the blocks of H (module docstring)."""
    g = compile_source("def g(p):\n    return f(p['x'] * p['s'])\n", "g", {"f": f})
    params = {"s": 1.0, "x": x.copy()}
    blocks = srcad.jacfwd(srcad.grad(g, backend=backend), backend=backend)(params)
    if sorted(blocks) != ["s", "x"] or sorted(blocks["x"]) != ["s", "x"]:
        raise AssertionError(f"jacfwd(grad(g)) over a dict: keys {list(blocks)}")
    scale = max(1.0, float(np.abs(H).max()))
    mixed = gradient(x.copy()) + H @ x
    expected = {("x", "x"): H, ("x", "s"): mixed, ("s", "x"): mixed, ("s", "s"): x @ H @ x}
    for (i, j), value in expected.items():
        if not np.allclose(blocks[i][j], value, rtol=1e-8, atol=1e-8 * scale * (1 + x @ x)):
            raise AssertionError(f"jacfwd(grad(g))[{i!r}][{j!r}] {blocks[i][j]!r} != {value!r}")
    tangent = {"s": 0.5, "x": np.linspace(-1.0, 1.0, x.size)}
    _, product = srcad.jvp(srcad.grad(g, backend=backend), (params,), (tangent,),
                           backend=backend)
    _, pull = srcad.vjp(srcad.grad(g, backend=backend), params, backend=backend)
    (pulled,) = pull(tangent)
    for key in ("s", "x"):
        want = blocks[key]["s"] * tangent["s"] + blocks[key]["x"] @ tangent["x"]
        if not np.allclose(product[key], want, rtol=1e-8, atol=1e-8 * scale * (1 + x @ x)):
            raise AssertionError(f"jvp(grad(g))[{key!r}] {product[key]!r} != {want!r}")
        if not np.allclose(pulled[key], want, rtol=1e-8, atol=1e-8 * scale * (1 + x @ x)):
            raise AssertionError(f"vjp(grad(g))[{key!r}] {pulled[key]!r} != {want!r}")


def check(f, x, timeout, alarm, third_order=False, containers=False, closures=""):
    """Raises AssertionError on a disagreement (SrcadError on a refusal)."""
    backend = os.environ.get("SRCAD_FUZZ_BACKEND", "python")
    signal.signal(signal.SIGALRM, alarm)
    signal.setitimer(signal.ITIMER_REAL, timeout, 1.0)
    try:
        with np.errstate(all="ignore"):
            gradient = srcad.grad(f, backend=backend)
            H = srcad.jacfwd(gradient, backend=backend)(x.copy())
            _close_to_differences(H, gradient, x, "jacfwd(grad(f))")
            H_reverse = srcad.jacrev(gradient, backend=backend)(x.copy())
            scale = max(1.0, float(np.abs(H).max()))
            if not np.allclose(H_reverse, H, rtol=1e-9, atol=1e-9 * scale):
                raise AssertionError("jacrev(grad(f)) disagrees with jacfwd(grad(f))")
            v = np.linspace(-1.0, 1.0, x.size) + 0.3
            g, Hv = srcad.jvp(gradient, (x.copy(),), (v,), backend=backend)
            if not (np.allclose(g, gradient(x.copy()), rtol=1e-12, atol=1e-12)
                    and np.allclose(Hv, H @ v, rtol=1e-9, atol=1e-9 * scale)):
                raise AssertionError(f"jvp(grad(f)) {Hv.tolist()} != H v {(H @ v).tolist()}")
            if containers:
                _check_containers(f, x, H, gradient, backend)
            if closures:  # the program's text: its own stream (fuzz/closure_check.py)
                check_closure(f, x, H, gradient, backend, closures)
                check_nested_results(f, x, gradient, backend)
            if third_order:
                hessian = srcad.hessian(f, backend=backend)
                T = srcad.jacfwd(hessian, backend=backend)(x.copy())
                _close_to_differences(T, hessian, x, "jacfwd(hessian(f))")
    finally:
        signal.setitimer(signal.ITIMER_REAL, 0)
