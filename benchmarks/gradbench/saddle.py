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

import math

import numpy as np

import srcad

from .common import NESTED_GRADIENT_NOTES, Eval, Implementation, Refused
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
        r1 = r1_cost if inner == "r" else r1_cost_forward_inner

        def argmax_gradient(p, x):
            return srcad.gradient(neg_r2_cost, p, srcad.Constant(x), mode=mode, backend=backend)

        return lambda: _saddle(r1, r1_gradient, argmax_gradient, start)

    return Implementation(function, f"srcad-{backend}", "loops", build)


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
    ),
    fd_check=fd_check,
    rtol=1e-6,
    notes=(*NESTED_GRADIENT_NOTES,
           "reference: derived by hand (the objective separates: the gradient of r1_cost is "
           "2 p1)."),
)
