"""GradBench `saddle`: the saddle point min over x of max over y of f(x, y) by gradient
descent inside gradient descent; nested differentiation.

`r1_cost(p1, start)` runs the inner argmax (the GradBench solver, transliterated as a loop)
with the gradient of the objective in p taken by a nested `srcad.grad` (or
`srcad.gradient(..., mode="forward")`), and returns the maximum; the outer argmin needs the
gradient of r1_cost in p1, which srcad takes through the whole inner descent (reverse or
forward mode). Transliterated from cpp/gradbench/evals/saddle.hpp (the objective) and the
GradBench solver. The four functions name the modes: `rf` is the outer argmin in reverse mode
over an inner argmax in forward mode; step 2, the argmax at the found x, uses the outer mode.

As in `particle`, srcad computes every nested gradient as reverse code and its derivative as
forward over reverse (reverse over forward on numba), whichever mode the inner call names.
The reference is derived by hand: the objective separates, so the inner argmax
does not depend on p1 and the gradient of r1_cost is 2 p1.
"""

import functools
import math

import numpy as np

import srcad

from .common import (
    NESTED_GRADIENT_NOTES,
    Eval,
    Implementation,
    Refused,
    jax_or_unavailable,
)
from .compiled_primals import srcad_primal
from .particle import FUNCTIONS, multivariate_argmin


def objective(x1, y1, x2, y2):
    return (x1 * x1 + y1 * y1) - (x2 * x2 + y2 * y2)


def r2_cost(p1, p):
    return objective(p1[0], p1[1], p[0], p[1])


def neg_r2_cost(p, p1):
    return -r2_cost(p1, p)


def distance(u, v):
    return math.sqrt((u[0] - v[0]) ** 2 + (u[1] - v[1]) ** 2)


def r1_cost(p1, start):
    """max over p of r2_cost(p1, p) by the GradBench solver from `start`; the gradient in p
    by a nested reverse-mode gradient."""
    x = start.copy()
    fx = neg_r2_cost(x, p1)
    gx = srcad.grad(neg_r2_cost)(x, p1)
    eta = 1e-5
    i = 0
    while True:
        if math.sqrt(gx[0] * gx[0] + gx[1] * gx[1]) <= 1e-5:
            break
        if i == 10:
            eta = 2.0 * eta
            i = 0
            continue
        x_prime = x - eta * gx
        if distance(x, x_prime) <= 1e-5:
            break
        fx_prime = neg_r2_cost(x_prime, p1)
        if fx_prime < fx:
            x = x_prime
            fx = fx_prime
            gx = srcad.grad(neg_r2_cost)(x_prime, p1)
            i = i + 1
        else:
            eta = eta / 2.0
            i = 0
    return -fx


def r1_cost_forward_inner(p1, start):
    """r1_cost with the inner gradient in forward mode."""
    x = start.copy()
    fx = neg_r2_cost(x, p1)
    gx = srcad.gradient(neg_r2_cost, x, srcad.Constant(p1), mode="forward")
    eta = 1e-5
    i = 0
    while True:
        if math.sqrt(gx[0] * gx[0] + gx[1] * gx[1]) <= 1e-5:
            break
        if i == 10:
            eta = 2.0 * eta
            i = 0
            continue
        x_prime = x - eta * gx
        if distance(x, x_prime) <= 1e-5:
            break
        fx_prime = neg_r2_cost(x_prime, p1)
        if fx_prime < fx:
            x = x_prime
            fx = fx_prime
            gx = srcad.gradient(neg_r2_cost, x_prime, srcad.Constant(p1), mode="forward")
            i = i + 1
        else:
            eta = eta / 2.0
            i = 0
    return -fx


def r1_cost_by_hand(p1, start):
    """r1_cost with the inner gradient derived by hand (2 p): the reference primal."""
    p = multivariate_argmin(lambda p: neg_r2_cost(p, p1), lambda p: 2.0 * p, start)
    return r2_cost(p1, p)


def srcad_r1_gradient(outer, inner, backend="python"):
    """p1 -> the gradient of r1_cost in p1 by srcad (outer "r" reverse, "f" forward mode)."""
    function = r1_cost if inner == "r" else r1_cost_forward_inner
    mode = "reverse" if outer == "r" else "forward"
    return lambda p1, start: srcad.gradient(function, p1, srcad.Constant(start), mode=mode,
                                            backend=backend)


def generate(start=(1.0, 1.0)):
    return {"start": [float(s) for s in start]}


def parse(data):
    return np.array(data["start"], dtype=float)


def _saddle(r1, r1_gradient, argmax_gradient, start):
    """[x, y]: x the argmin of r1 (the inner maximum), y the argmax of r2_cost(x, .)."""
    x = multivariate_argmin(lambda p1: r1(p1, start), lambda p1: r1_gradient(p1, start), start)
    y = multivariate_argmin(lambda p: neg_r2_cost(p, x), lambda p: argmax_gradient(p, x), start)
    return np.concatenate([x, y])


def fd_check(start):
    """Largest relative error of the hand-derived gradient of r1_cost (2 p1) against central
    differences of r1_cost (inner gradient by hand), at p1 = start / 2."""
    p1, h = start / 2.0, 1e-6
    want = np.array([(r1_cost_by_hand(p1 + h * e, start) - r1_cost_by_hand(p1 - h * e, start))
                     / (2 * h) for e in np.eye(2)])
    return float(np.max(np.abs(2.0 * p1 - want)) / np.max(np.abs(want)))


def reference_saddle(start):
    return _saddle(r1_cost_by_hand, lambda p1, s: 2.0 * p1, lambda p, x: 2.0 * p, start)


def _srcad(function, backend):
    outer, inner = function
    mode = "reverse" if outer == "r" else "forward"

    def build(start):
        r1_gradient = srcad_r1_gradient(outer, inner, backend)
        try:
            r1_gradient(start, start)
        except srcad.SrcadError as exc:
            raise Refused(f"{type(exc).__name__}: {exc}") from exc
        r1 = srcad_primal(r1_cost if inner == "r" else r1_cost_forward_inner, backend)
        r1(start, start)  # compiles

        def argmax_gradient(p, x):
            return srcad.gradient(neg_r2_cost, p, srcad.Constant(x), mode=mode, backend=backend)

        return lambda: _saddle(r1, r1_gradient, argmax_gradient, start)

    return Implementation(function, f"srcad-{backend}", "loops", build)


# Iterations of the inner argmax JAX's reverse mode runs: the eval's takes 170 from (1, 1)
# (the inner problem does not depend on p1); the iterations after it stops are masked, and an
# argmax that has not stopped by then is an error, not a result
INNER_BOUND = 400


@functools.lru_cache(maxsize=None)
def jax_functions(outer, inner):
    """(r1_cost, its gradient in p1, the gradient of neg_r2_cost in p) by JAX, jitted: the
    inner argmax (the GradBench solver as a state machine, one step per iteration: stop,
    double the step, accept or reject) with the gradient in p by `jax.grad` (inner "r") or
    `jax.jacfwd` (inner "f"); the gradient of r1_cost by `jax.jacfwd` through
    `lax.while_loop` (outer "f") or `jax.grad` through a `lax.scan` of INNER_BOUND steps,
    the steps after the stop masked (outer "r": JAX's reverse mode cannot differentiate a
    while_loop)."""
    jax = jax_or_unavailable()
    import jax.numpy as jnp

    def neg_r2(p, p1):
        return -((p1[0] * p1[0] + p1[1] * p1[1]) - (p[0] * p[0] + p[1] * p[1]))

    inner_gradient = jax.grad(neg_r2) if inner == "r" else jax.jacfwd(neg_r2)
    outer_gradient = jax.grad if outer == "r" else jax.jacfwd

    def step(state, p1):
        x, fx, gx, eta, i, going = state
        small_gradient = jnp.sqrt(gx[0] * gx[0] + gx[1] * gx[1]) <= 1e-5
        double = i == 10
        x_prime = x - eta * gx
        small_step = jnp.sqrt((x[0] - x_prime[0]) ** 2 + (x[1] - x_prime[1]) ** 2) <= 1e-5
        fx_prime = neg_r2(x_prime, p1)
        stop = small_gradient | (~double & small_step)
        moves = going & ~stop & ~double
        accept, reject = moves & (fx_prime < fx), moves & ~(fx_prime < fx)
        doubles = going & ~small_gradient & double
        return (jnp.where(accept, x_prime, x), jnp.where(accept, fx_prime, fx),
                jnp.where(accept, inner_gradient(x_prime, p1), gx),
                jnp.where(doubles, 2.0 * eta, jnp.where(reject, eta / 2.0, eta)),
                jnp.where(doubles | reject, 0, jnp.where(accept, i + 1, i)), going & ~stop)

    def start_state(p1, start):
        return (start, neg_r2(start, p1), inner_gradient(start, p1), 1e-5, 0, jnp.array(True))

    def r1_while(p1, start):
        state = jax.lax.while_loop(lambda s: s[5], lambda s: step(s, p1),
                                   start_state(p1, start))
        return -state[1]

    def r1_scan(p1, start):
        state, _ = jax.lax.scan(lambda s, _: (step(s, p1), None), start_state(p1, start),
                                None, length=INNER_BOUND)
        return -state[1], state[5]

    if outer == "f":
        gradient = jax.jit(outer_gradient(r1_while))
    else:
        scanned = jax.jit(jax.grad(r1_scan, has_aux=True))

        def gradient(p1, start):
            g, going = scanned(p1, start)
            if bool(going):
                raise RuntimeError(f"saddle: the inner argmax from {start} has not stopped "
                                   f"after {INNER_BOUND} iterations (raise INNER_BOUND)")
            return g

    r1, argmax_gradient = jax.jit(r1_while), jax.jit(outer_gradient(neg_r2))
    return (lambda p1, start: float(r1(p1, start)),
            lambda p1, start: np.asarray(gradient(p1, start)),
            lambda p, x: np.asarray(argmax_gradient(p, x)))


def _jax(function):
    def build(start):
        r1, r1_gradient, argmax_gradient = jax_functions(*function)
        r1_gradient(start, start)  # compiles
        return lambda: _saddle(r1, r1_gradient, argmax_gradient, start)

    return Implementation(function, "jax", "while_loop" if function[0] == "f" else "scan", build)


EVAL = Eval(
    name="saddle",
    primal="r1_cost",
    derivative="rr",
    # the eval's input is start = (1, 1), ~155 outer steps each running ~155 inner steps; from
    # (0.3, 0.3) the first step is already below the solver's tolerance: one gradient of
    # r1_cost, the nested derivative, and no descent
    sizes={"small": {"start": (0.3, 0.3)}, "quick": {"start": (0.3, 0.3)},
           "default": {"start": (1.0, 1.0)}},
    generate=generate,
    parse=parse,
    reference={"r1_cost": lambda start: r1_cost_by_hand(start, start),
               **{name: reference_saddle for name in FUNCTIONS}},
    to_json={"r1_cost": float, **{name: lambda r: np.asarray(r).tolist() for name in FUNCTIONS}},
    implementations=(
        Implementation("r1_cost", "primal", "loops", lambda s: lambda: r1_cost(s, s)),
        *(_srcad(name, "python") for name in FUNCTIONS),
        *(_srcad(name, "numba") for name in FUNCTIONS),
        *(_jax(name) for name in FUNCTIONS),
    ),
    fd_check=fd_check,
    rtol=1e-6,
    notes=(*NESTED_GRADIENT_NOTES,
           "jax: the same solvers jitted, the inner gradient by jax.grad (inner r) or "
           "jax.jacfwd (inner f); the gradient of r1_cost by jax.jacfwd through lax.while_loop "
           f"(ff, fr) or jax.grad through lax.scan over {INNER_BOUND} iterations, those after "
           "the inner argmax stops masked (rf, rr: JAX's reverse mode cannot differentiate a "
           "while_loop; the run fails if it has not stopped by then); the outer argmin in "
           "Python, as srcad's.",
           "reference: derived by hand (the objective separates: the gradient of r1_cost is "
           "2 p1)."),
)
