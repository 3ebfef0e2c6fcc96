"""Problem 9: per-example gradients, `srcad.vmap(srcad.grad(loss), in_axes=(None, 0, 0))`,
against a Python loop of `srcad.grad` calls and against `jax.jit(jax.vmap(jax.grad(loss)))`.

The loss is a small neural layer per example (d=20 inputs, h=16 hidden units, a squared
error), N examples (N=1000; the first call is timed apart). Every contender's gradients are
checked against a hand-written NumPy reference before it is timed. Targets: on the numba
backend the vmap <= 0.2x the Python loop, and <= 2x jax.jit(vmap(grad)) (ratios timed
interleaved). Results: suite.extra["vmap"] as (what, value, unit, note) rows;
`markdown_lines(suite)` renders them.
"""

from __future__ import annotations

import importlib.util

import numpy as np
from harness import Suite, installed, interleaved_medians, rows_table, run_case

S9 = "9. per-example gradients (srcad.vmap of srcad.grad)"
N, D, H = 1000, 20, 16


def layer_loss(w, x, y):
    """One example: a tanh layer of H units (weights w, H x D) and a squared error against
    y."""
    hidden = np.tanh(w @ x)
    return (np.sum(hidden) - y) ** 2


def reference(w, X, Y):
    """Per-example gradients by hand: d/dw (sum tanh(w x) - y)^2."""
    hidden = np.tanh(X @ w.T)  # (N, H)
    residual = 2.0 * (hidden.sum(axis=1) - Y)  # (N,)
    return (residual[:, None] * (1.0 - hidden ** 2))[:, :, None] * X[:, None, :]


def make_problem(seed=3):
    rng = np.random.default_rng(seed)
    return (rng.normal(size=(H, D)) / np.sqrt(D), rng.normal(size=(N, D)),
            rng.normal(size=N))


def section_vmap(suite: Suite, srcad):
    print(f"\n{S9}")
    w, X, Y = make_problem()
    ref = reference(w, X, Y)
    case = f"N={N}, {H}x{D} weights"
    rows = {}

    def vmapped(backend):
        def setup():
            if backend == "numba":
                installed("numba")
            per_example = srcad.vmap(srcad.grad(layer_loss, backend=backend),
                                     in_axes=(None, 0, 0))
            return (lambda: per_example(w, X, Y)), np.asarray
        return setup

    def loop(backend):
        def setup():
            if backend == "numba":
                installed("numba")
            gradient = srcad.grad(layer_loss, backend=backend)

            def call():
                return [gradient(w, x, y) for x, y in zip(X, Y)]
            return call, np.asarray
        return setup

    def jax_vmap():
        installed("jax")
        import jax
        import jax.numpy as jnp
        jax.config.update("jax_enable_x64", True)

        def loss(w, x, y):
            return (jnp.sum(jnp.tanh(w @ x)) - y) ** 2
        per_example = jax.jit(jax.vmap(jax.grad(loss), in_axes=(None, 0, 0)))
        wj, Xj, Yj = jnp.asarray(w), jnp.asarray(X), jnp.asarray(Y)
        return (lambda: per_example(wj, Xj, Yj).block_until_ready()), np.asarray

    numba = importlib.util.find_spec("numba") is not None
    contenders = [("srcad.vmap(grad), python backend (lifted)", vmapped("python")),
                  ("Python loop of srcad.grad, python backend", loop("python"))]
    if numba:
        contenders += [("srcad.vmap(grad), numba backend", vmapped("numba")),
                       ("Python loop of srcad.grad, numba backend", loop("numba"))]
    contenders.append(("jax.jit(jax.vmap(jax.grad))", jax_vmap))
    for name, setup in contenders:
        rows[name] = run_case(suite, S9, case, name, setup, ref=ref,
                              not_implemented=(TypeError, srcad.SrcadError))
    setups = dict(contenders)
    results = []

    def interleaved(what, a, b, target, note):
        if not (rows[a].ok and rows[b].ok):
            results.append((what, None, "x", "not measured: a contender failed"))
            return
        call_a, call_b = setups[a]()[0], setups[b]()[0]
        for _ in range(5):  # past the first calls (jax.jit's first calls run slower)
            call_a(), call_b()
        time_a, time_b = interleaved_medians(call_a, call_b, 9 if suite.cfg.quick else 41)
        value = time_a / time_b
        verdict = "" if target is None else (" (met)" if value <= target else " (missed)")
        results.append((what, value, "x", note + verdict))
        print(f"  {what}: {value:.3f}x{verdict}")

    vmap_python = "srcad.vmap(grad), python backend (lifted)"
    loop_python = "Python loop of srcad.grad, python backend"
    jax_row = "jax.jit(jax.vmap(jax.grad))"
    interleaved("python backend: vmap(grad) / loop of grad", vmap_python, loop_python, None,
                "no target")
    interleaved("python backend: vmap(grad) / jax.jit(vmap(grad))", vmap_python, jax_row,
                None, "no target")
    if numba:
        vmap_numba = "srcad.vmap(grad), numba backend"
        interleaved("numba: vmap(grad) / loop of grad", vmap_numba,
                    "Python loop of srcad.grad, numba backend", 0.2, "target <= 0.2x")
        interleaved("numba: vmap(grad) / jax.jit(vmap(grad))", vmap_numba, jax_row, 2.0,
                    "target <= 2x")
    suite.extra["vmap"] = results


def markdown_lines(suite) -> list:
    return rows_table(S9, suite.extra.get("vmap"))
