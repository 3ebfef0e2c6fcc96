"""GradBench `llsq`: a linear least-squares objective (a polynomial of degree m - 1 fitted to
the sign function at n points) and its gradient.

The loop form transliterates cpp/gradbench/evals/llsq.hpp (helpers `t` and `s`, a running
power `mul`); the vectorized form builds the Vandermonde matrix. The reference gradient is
derived by hand: with V[i, j] = t_i ** j and r = s - V x, y = |r|^2 / 2 and grad y = -V^T r.
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


def t(i, n):
    return -1.0 + i * 2.0 / (n - 1.0)


def s(ti):
    if ti > 0.0:
        return 1.0
    if ti < 0.0:
        return -1.0
    return 0.0


def llsq_loops(x, n):
    m = len(x)
    total = 0.0
    for i in range(n):
        ti = t(i, n)
        inner_sum = s(ti)
        mul = 1.0
        for j in range(m):
            inner_sum -= x[j] * mul
            mul *= ti
        total += inner_sum * inner_sum
    return total / 2.0


def llsq_vectorized(x, n):
    ts = -1.0 + np.arange(n) * 2.0 / (n - 1.0)
    powers = ts[:, None] ** np.arange(len(x))[None, :]
    r = np.sign(ts) - powers @ x
    return np.sum(r * r) / 2.0


class Problem:
    def __init__(self, data):
        self.x = np.array(data["x"], dtype=float)
        self.n = int(data["n"])

    def vandermonde(self):
        ts = -1.0 + np.arange(self.n) * 2.0 / (self.n - 1.0)
        return ts, ts[:, None] ** np.arange(len(self.x))[None, :]


def reference_primal(p):
    ts, v = p.vandermonde()
    r = np.sign(ts) - v @ p.x
    return float(r @ r / 2.0)


def reference_gradient(p):
    ts, v = p.vandermonde()
    return -(v.T @ (np.sign(ts) - v @ p.x))


def generate(n, m, seed=31337):
    rng = np.random.RandomState(seed)
    return {"x": rng.rand(m).tolist(), "n": n}


FORMS = {"loops": llsq_loops, "vectorized": llsq_vectorized}


_build = form_implementations("primal", "gradient", FORMS, lambda p, form: ((p.x,), (p.n,)))


def _vectorized_in(xp, n, m):
    """The vectorized form of size (n, m) written with the array module `xp` (autograd.numpy)."""

    def f(x):
        ts = -1.0 + xp.arange(n) * 2.0 / (n - 1.0)
        powers = ts[:, None] ** xp.arange(m)[None, :]
        r = xp.sign(ts) - xp.dot(powers, x)
        return xp.sum(r * r) / 2.0

    return f


def _jax(p):
    """JAX's gradient as GradBench's JAX tool computes it (its `tools/jax/llsq.py`, MIT
    License): each residual's powers of t_i by a cumulative product, mapped over i by `vmap`."""
    jax = jax_or_unavailable()
    import jax.numpy as jnp

    n, m = p.n, len(p.x)

    def f(x):
        def residual(i):
            ti = -1.0 + (i * 2.0) / (n - 1.0)
            muls = jnp.cumprod(jnp.full(m, ti).at[0].set(1))
            return (jnp.sign(ti) + jnp.sum(-x * muls)) ** 2

        return jnp.sum(jax.vmap(residual)(jnp.arange(n))) / 2.0

    return jax_timed(jax, jax.jit(jax.grad(f)), p.x)


def _autograd(p):
    autograd = autograd_or_unavailable()
    import autograd.numpy as anp

    g = autograd.grad(_vectorized_in(anp, p.n, len(p.x)))
    return lambda: g(p.x)


EVAL = Eval(
    name="llsq",
    primal="primal",
    derivative="gradient",
    sizes={
        "small": {"n": 9, "m": 4},
        "quick": {"n": 512, "m": 128},
        "default": {"n": 4096, "m": 128},
    },
    generate=generate,
    parse=Problem,
    reference={"primal": reference_primal, "gradient": reference_gradient},
    to_json={"primal": float, "gradient": lambda g: np.asarray(g).tolist()},
    fd_check=lambda p: gradient_error(lambda: reference_primal(p), (p.x,), reference_gradient(p)),
    implementations=(
        _build("primal", "loops"),
        _build("primal", "vectorized"),
        _build("python", "loops"),
        _build("numba", "loops"),
        _build("python", "vectorized"),
        _build("numba", "vectorized"),
        Implementation("gradient", "jax", "vectorized", _jax),
        Implementation("gradient", "autograd", "vectorized", _autograd),
    ),
)
