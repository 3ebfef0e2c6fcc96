"""GradBench `ode`: s steps of fourth-order Runge-Kutta on y0' = x0, yi' = xi y(i-1), from
y = 0 to t = 2, and the gradient of the last component of the solution with respect to x.

The loop form transliterates cpp/gradbench/evals/ode.hpp (`primal` writes the solution into
`yf`, a helper `ode_fun` writes into work arrays k1..k4 and y_tmp); the vectorized form writes
each stage as one array expression. The reference is JAX's gradient of the vectorized form (a
`lax.scan` over the steps, as the GradBench JAX tool writes it).
"""

import numpy as np

from .common import (
    Eval,
    Implementation,
    autograd_or_unavailable,
    form_implementations,
    gradient_error,
    jax_or_unavailable,
    jax_timed,
)


def ode_fun(x, y, z):
    z[0] = x[0]
    for i in range(1, len(x)):
        z[i] = x[i] * y[i - 1]


def primal(x, s, yf):
    """The C++ `primal`: the solution is written into `yf`."""
    n = len(x)
    tf = 2.0
    h = tf / s
    k1 = np.zeros(n)
    k2 = np.zeros(n)
    k3 = np.zeros(n)
    k4 = np.zeros(n)
    y_tmp = np.zeros(n)
    for i in range(n):
        yf[i] = 0.0
    for _ in range(s):
        ode_fun(x, yf, k1)
        for i in range(n):
            y_tmp[i] = yf[i] + h * k1[i] / 2.0
        ode_fun(x, y_tmp, k2)
        for i in range(n):
            y_tmp[i] = yf[i] + h * k2[i] / 2.0
        ode_fun(x, y_tmp, k3)
        for i in range(n):
            y_tmp[i] = yf[i] + h * k3[i]
        ode_fun(x, y_tmp, k4)
        for i in range(n):
            yf[i] += h * (k1[i] + 2.0 * k2[i] + 2.0 * k3[i] + k4[i]) / 6.0


def ode_last_loops(x, s):
    yf = np.zeros(len(x))
    primal(x, s, yf)
    return yf[len(x) - 1]


def ode_solve(x, s):
    yf = np.zeros(len(x))
    primal(x, s, yf)
    return yf


def ode_last_returned(x, s):
    """A helper returning the array it filled (the caller binds the finished array)."""
    yf = ode_solve(x, s)
    return yf[len(x) - 1]


def ode_fun_vectorized(x, y):
    return np.concatenate((x[:1], x[1:] * y[:-1]))


def ode_solve_vectorized(x, s):
    h = 2.0 / s
    yf = np.zeros(len(x))
    for _ in range(s):
        k1 = ode_fun_vectorized(x, yf)
        k2 = ode_fun_vectorized(x, yf + h * k1 / 2.0)
        k3 = ode_fun_vectorized(x, yf + h * k2 / 2.0)
        k4 = ode_fun_vectorized(x, yf + h * k3)
        yf = yf + h * (k1 + 2.0 * k2 + 2.0 * k3 + k4) / 6.0
    return yf


def ode_last_vectorized(x, s):
    yf = ode_solve_vectorized(x, s)
    return yf[len(x) - 1]


class Problem:
    def __init__(self, data):
        self.x = np.array(data["x"], dtype=float)
        self.s = int(data["s"])


def generate(n, s, seed=31337):
    rng = np.random.RandomState(seed)
    return {"x": rng.rand(n).tolist(), "s": s}


def _jax_gradient(p):
    """JAX's gradient for problem p, made (and jitted) once per problem."""
    if getattr(p, "jax_gradient", None) is None:
        p.jax_gradient = _make_jax_gradient(p)
    return p.jax_gradient


def _make_jax_gradient(p):
    jax = jax_or_unavailable()
    import jax.numpy as jnp

    s = p.s

    def last(x):
        h = 2.0 / s

        def fun(y):
            return jnp.concatenate((x[:1], x[1:] * y[:-1]))

        def step(yf, _):
            k1 = fun(yf)
            k2 = fun(yf + h * k1 / 2.0)
            k3 = fun(yf + h * k2 / 2.0)
            k4 = fun(yf + h * k3)
            return yf + h * (k1 + 2.0 * k2 + 2.0 * k3 + k4) / 6.0, None

        yf, _ = jax.lax.scan(step, jnp.zeros_like(x), None, length=s)
        return yf[-1]

    return jax, jax.jit(jax.grad(last))


def reference_gradient(p):
    _, g = _jax_gradient(p)
    return np.asarray(g(p.x))


def reference_primal(p):
    return ode_solve_vectorized(p.x, p.s)


def _jax(p):
    jax, g = _jax_gradient(p)
    return jax_timed(jax, g, p.x)


def _autograd(p):
    autograd = autograd_or_unavailable()
    import autograd.numpy as anp

    s = p.s

    def last(x):
        h = 2.0 / s
        yf = anp.zeros(len(x))
        for _ in range(s):
            k1 = anp.concatenate((x[:1], x[1:] * yf[:-1]))
            k2 = anp.concatenate((x[:1], x[1:] * (yf + h * k1 / 2.0)[:-1]))
            k3 = anp.concatenate((x[:1], x[1:] * (yf + h * k2 / 2.0)[:-1]))
            k4 = anp.concatenate((x[:1], x[1:] * (yf + h * k3)[:-1]))
            yf = yf + h * (k1 + 2.0 * k2 + 2.0 * k3 + k4) / 6.0
        return yf[-1]

    g = autograd.grad(last)
    return lambda: g(p.x)


FORMS = {"loops": (ode_solve, ode_last_loops),
         "loops-return": (ode_solve, ode_last_returned),
         "vectorized": (ode_solve_vectorized, ode_last_vectorized)}


_build = form_implementations("primal", "gradient", FORMS, lambda p, form: ((p.x,), (p.s,)))


EVAL = Eval(
    name="ode",
    primal="primal",
    derivative="gradient",
    sizes={
        "small": {"n": 6, "s": 3},
        "quick": {"n": 1000, "s": 10},
        "default": {"n": 10000, "s": 10},
    },
    generate=generate,
    parse=Problem,
    reference={"primal": reference_primal, "gradient": reference_gradient},
    to_json={"primal": lambda y: np.asarray(y).tolist(),
             "gradient": lambda g: np.asarray(g).tolist()},
    fd_check=lambda p: gradient_error(lambda: reference_primal(p)[-1], (p.x,),
                                      reference_gradient(p)),
    implementations=(
        _build("primal", "loops"),
        _build("primal", "vectorized"),
        _build("python", "loops"),
        _build("numba", "loops"),
        _build("python", "loops-return"),
        _build("python", "vectorized"),
        _build("numba", "vectorized"),
        Implementation("gradient", "jax", "vectorized", _jax),
        Implementation("gradient", "autograd", "vectorized", _autograd),
    ),
)
