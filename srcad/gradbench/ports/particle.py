"""GradBench `particle`: the control w that makes a charged particle, pushed by the field of
two fixed charges, reach the x axis at the origin; nested differentiation.

The trajectory (`naive_euler`) is Euler integration of the force, the gradient of the
potential `potential(x, w)` with respect to the position, computed by a nested
`srcad.grad(potential)(x, w)` (or `srcad.gradient(..., mode="forward")`); the outer derivative
d naive_euler / d w, which the argmin's gradient descent uses, differentiates through it.
Transliterated from the eval (cpp/gradbench/evals/particle.hpp for the potential, the
GradBench solver for the argmin). The four GradBench functions name the outer and inner modes:
`rf` is the argmin in reverse mode over an Euler loop whose force is taken in forward mode.

srcad differentiates the nested gradient as one primitive (srcad/operators/nested.py): whichever
mode the inner call names, the inner gradient runs as srcad's reverse code and its derivative as
forward over reverse (reverse over forward on numba, where the nested calls run as numba
kernels compiled into the outer code). So `ff` and `fr` (and `rf` and `rr`) run the same
code: the inner mode is recorded in the source, not in what runs.
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

FUNCTIONS = ("ff", "fr", "rf", "rr")


def potential(x, w):
    # unit charges at (10, 10 - w) and (10, 0): p(x; w) = sum of 1 / distance
    return 1.0 / math.sqrt((x[0] - 10.0) ** 2 + (x[1] - (10.0 - w)) ** 2) \
        + 1.0 / math.sqrt((x[0] - 10.0) ** 2 + x[1] ** 2)


def naive_euler(w):
    """x(t_f)[0]^2 where the path crosses the x axis; the force by a reverse-mode gradient."""
    x = np.array([0.0, 8.0])
    xdot = np.array([0.75, 0.0])
    delta_t = 1e-1
    while True:
        xddot = -1.0 * srcad.grad(potential)(x, w)
        x_new = x + delta_t * xdot
        if x_new[1] > 0.0:
            x = x_new
            xdot = xdot + delta_t * xddot
        else:
            break
    delta_t_f = -x[1] / xdot[1]
    x_t_f = x + delta_t_f * xdot
    return x_t_f[0] * x_t_f[0]


def naive_euler_forward_force(w):
    """naive_euler, the force by a forward-mode gradient."""
    x = np.array([0.0, 8.0])
    xdot = np.array([0.75, 0.0])
    delta_t = 1e-1
    while True:
        xddot = -1.0 * srcad.gradient(potential, x, srcad.Constant(w), mode="forward")
        x_new = x + delta_t * xdot
        if x_new[1] > 0.0:
            x = x_new
            xdot = xdot + delta_t * xddot
        else:
            break
    delta_t_f = -x[1] / xdot[1]
    x_t_f = x + delta_t_f * xdot
    return x_t_f[0] * x_t_f[0]


def naive_euler_by_hand(w):
    """naive_euler with the force derived by hand (no srcad): the central-differences and
    reference primal."""
    x = np.array([0.0, 8.0])
    xdot = np.array([0.75, 0.0])
    delta_t = 1e-1
    while True:
        force = np.zeros(2)
        for cx, cy in ((10.0, 10.0 - w), (10.0, 0.0)):
            d = np.array([x[0] - cx, x[1] - cy])
            force += d / math.sqrt(d @ d) ** 3  # -grad of 1/|d|
        x_new = x + delta_t * xdot
        if x_new[1] > 0.0:
            x = x_new
            xdot = xdot + delta_t * force
        else:
            break
    x_t_f = x + (-x[1] / xdot[1]) * xdot
    return x_t_f[0] * x_t_f[0]


def multivariate_argmin(f, g, x):
    """The GradBench solver: gradient descent with a step that doubles after 10 accepted steps
    and halves on a rejected one; stops when the gradient or the step is below 1e-5."""
    x = np.array(x, dtype=float)
    fx, gx = f(x), g(x)
    eta, i = 1e-5, 0
    while True:
        if math.sqrt(float(gx @ gx)) <= 1e-5:
            return x
        if i == 10:
            eta, i = 2.0 * eta, 0
            continue
        x_prime = x - eta * gx
        if math.sqrt(float((x - x_prime) @ (x - x_prime))) <= 1e-5:
            return x
        fx_prime = f(x_prime)
        if fx_prime < fx:
            x, fx, gx = x_prime, fx_prime, g(x_prime)
            i += 1
        else:
            eta, i = eta / 2.0, 0


def srcad_derivative(outer, inner, backend="python"):
    """d naive_euler / d w by srcad: outer "r" reverse or "f" forward mode, over an Euler loop
    whose force is taken by a nested gradient in `inner` mode."""
    function = naive_euler if inner == "r" else naive_euler_forward_force
    if outer == "r":
        return lambda w: srcad.autodiff(srcad.Reverse, function, srcad.Active(w),
                                        backend=backend)[0]
    return lambda w: srcad.autodiff(srcad.Forward, function, srcad.Duplicated(w, 1.0),
                                    backend=backend)


def generate(w=0.0):
    return {"w": float(w)}


def parse(data):
    return float(data["w"])


def _solve(primal, derivative, w0):
    return float(multivariate_argmin(lambda w: primal(w[0]),
                                     lambda w: np.array([derivative(w[0])]), [w0])[0])


def _srcad(function, backend):
    outer, inner = function

    def build(w0):
        derivative = srcad_derivative(outer, inner, backend)
        try:
            derivative(w0)
        except srcad.SrcadError as exc:
            raise Refused(f"{type(exc).__name__}: {exc}") from exc
        primal = srcad_primal(naive_euler if inner == "r" else naive_euler_forward_force,
                              backend)
        primal(w0)  # compiles
        return lambda: _solve(primal, derivative, w0)

    return Implementation(function, f"srcad-{backend}", "loops", build)


# Euler steps JAX's reverse mode runs: the eval's paths cross the axis after ~350 (w in
# [-0.2, 0.5]); the steps after the crossing are masked, and a path that has not crossed by
# then is an error, not a result
EULER_BOUND = 600


def _jax_euler(inner):
    """(jax, one Euler step (state -> state), initial state): the state is (x, xdot, going);
    the force by `jax.grad` (inner "r") or `jax.jacfwd` (inner "f") of the potential."""
    jax = jax_or_unavailable()
    import jax.numpy as jnp

    def p(x, w):
        return 1.0 / jnp.sqrt((x[0] - 10.0) ** 2 + (x[1] - (10.0 - w)) ** 2) \
            + 1.0 / jnp.sqrt((x[0] - 10.0) ** 2 + x[1] ** 2)

    force = jax.grad(p) if inner == "r" else jax.jacfwd(p)

    def step(state, w):
        x, xdot, going = state
        x_new = x + 0.1 * xdot
        go = going & (x_new[1] > 0.0)
        return (jnp.where(go, x_new, x), jnp.where(go, xdot - 0.1 * force(x, w), xdot), go)

    return jax, step, (jnp.array([0.0, 8.0]), jnp.array([0.75, 0.0]), jnp.array(True))


def _crossing(x, xdot):
    x_t_f = x + (-x[1] / xdot[1]) * xdot
    return x_t_f[0] * x_t_f[0]


@functools.lru_cache(maxsize=None)
def jax_derivative(inner="r"):
    """(naive_euler, d naive_euler / d w) by JAX: jvp (forward mode) through
    `lax.while_loop`, with `jax.grad` (inner "r") or `jax.jacfwd` (inner "f") for the force;
    jitted. JAX's reverse mode cannot differentiate a while loop (`jax_reverse_derivative`)."""
    jax, step, start = _jax_euler(inner)

    def euler(w):
        x, xdot, _ = jax.lax.while_loop(lambda s: s[2], lambda s: step(s, w), start)
        return _crossing(x, xdot)

    jvp = jax.jit(lambda w: jax.jvp(euler, (w,), (1.0,)))
    return lambda w: tuple(float(v) for v in jvp(w))


@functools.lru_cache(maxsize=None)
def jax_reverse_derivative(inner="r"):
    """(naive_euler, d naive_euler / d w) by JAX's reverse mode (`jax.value_and_grad`): the
    Euler loop as a `lax.scan` of EULER_BOUND steps, those after the crossing masked; jitted.
    Raises when the path has not crossed the axis within the bound."""
    jax, step, start = _jax_euler(inner)

    def euler(w):
        (x, xdot, going), _ = jax.lax.scan(lambda s, _: (step(s, w), None), start, None,
                                           length=EULER_BOUND)
        return _crossing(x, xdot), going

    value_and_grad = jax.jit(jax.value_and_grad(euler, has_aux=True))

    def derivative(w):
        (value, going), grad = value_and_grad(w)
        if bool(going):
            raise RuntimeError(f"particle: the path from w={w} has not crossed the axis "
                               f"after {EULER_BOUND} Euler steps (raise EULER_BOUND)")
        return float(value), float(grad)

    return derivative


def fd_check(w):
    """Largest relative error of the reference derivative (JAX) against central differences
    of the hand-derived primal."""
    h = 1e-6
    want = (naive_euler_by_hand(w + h) - naive_euler_by_hand(w - h)) / (2 * h)
    return abs(jax_derivative()(w)[1] - want) / abs(want)


def reference_solution(w0):
    """The argmin with JAX's derivative and the primal with the hand-derived force."""
    derivative = jax_derivative()
    return _solve(naive_euler_by_hand, lambda w: derivative(w)[1], w0)


def _jax(function):
    """JAX's derivative in the outer mode the function names (the first letter): forward
    mode through `lax.while_loop`, reverse mode through a masked `lax.scan`."""
    outer, inner = function

    def build(w0):
        derivative = (jax_derivative if outer == "f" else jax_reverse_derivative)(inner)
        derivative(w0)  # compiles
        return lambda: _solve(lambda w: derivative(w)[0], lambda w: derivative(w)[1], w0)

    return Implementation(function, "jax", "while_loop" if outer == "f" else "scan", build)


EVAL = Eval(
    name="particle",
    primal="naive_euler",
    derivative="rr",
    # the eval's one input is w = 0 (~8 s per srcad solve); at w = 0.21, near the optimum
    # 0.2072, the first step is already below the solver's tolerance: one derivative, the
    # nested one, and no descent; from w = 0.2 the descent takes ~7 s
    sizes={"small": {"w": 0.21}, "quick": {"w": 0.2}, "default": {"w": 0.0}},
    generate=generate,
    parse=parse,
    reference={"naive_euler": naive_euler_by_hand,
               **{name: reference_solution for name in FUNCTIONS}},
    to_json={"naive_euler": float, **{name: float for name in FUNCTIONS}},
    implementations=(
        Implementation("naive_euler", "primal", "loops", lambda w0: lambda: naive_euler(w0)),
        *(_srcad(name, "python") for name in FUNCTIONS),
        *(_srcad(name, "numba") for name in FUNCTIONS),
        *(_jax(name) for name in FUNCTIONS),
    ),
    fd_check=fd_check,
    rtol=1e-6,
    notes=(*NESTED_GRADIENT_NOTES,
           "jax: the same Euler loop jitted, the force by jax.grad (inner r) or jax.jacfwd "
           "(inner f); ff and fr by jax.jvp through lax.while_loop, rf and rr by "
           f"jax.value_and_grad through lax.scan over {EULER_BOUND} steps, those after the "
           "crossing masked (JAX's reverse mode cannot differentiate a while_loop; the run "
           "fails if the path has not crossed by then); the argmin in Python, as srcad's."),
)
