"""GradBench `lse`: LogSumExp of a vector and its gradient.

The loop form follows cpp/gradbench/evals/lse.hpp (a max pass, then a sum of shifted
exponentials); the vectorized form is what a NumPy user writes. The reference gradient is the
softmax, derived by hand.
"""

import math

import numpy as np

from .common import (
    Eval,
    Implementation,
    autograd_or_unavailable,
    gradient_error,
    jax_or_unavailable,
    jax_timed,
    primal_implementation,
    srcad_implementation,
)


def lse_loops(x):
    a = x[0]
    for i in range(1, len(x)):
        a = max(a, x[i])
    s = 0.0
    for i in range(len(x)):
        s += math.exp(x[i] - a)
    return math.log(s) + a


def lse_vectorized(x):
    a = np.max(x)
    return np.log(np.sum(np.exp(x - a))) + a


def generate(n, seed=31337):
    # the eval seeds NumPy's global generator once and draws x uniform in [0, 1)
    rng = np.random.RandomState(seed)
    return {"x": rng.rand(n).tolist()}


def parse(data):
    return np.array(data["x"], dtype=float)


def reference_gradient(x):
    e = np.exp(x - np.max(x))
    return e / np.sum(e)


def reference_primal(x):
    a = np.max(x)
    return float(np.log(np.sum(np.exp(x - a))) + a)


FORMS = {"loops": lse_loops, "vectorized": lse_vectorized}


def _primal(form):
    return primal_implementation("primal", form, FORMS[form], lambda x: (x,))


def _srcad(backend, form, refused=None):
    return srcad_implementation("gradient", form, FORMS[form], backend,
                                lambda x: ((x,), ()), refused)


def _vectorized_in(xp):
    """The vectorized form written with the array module `xp` (jax.numpy, autograd.numpy)."""

    def f(v):
        a = xp.max(v)
        return xp.log(xp.sum(xp.exp(v - a))) + a

    return f


def _jax(x):
    jax = jax_or_unavailable()
    import jax.numpy as jnp

    g = jax.jit(jax.grad(_vectorized_in(jnp)))
    return jax_timed(jax, g, x)


def _autograd(x):
    autograd = autograd_or_unavailable()
    import autograd.numpy as anp

    g = autograd.grad(_vectorized_in(anp))
    return lambda: g(x)


EVAL = Eval(
    name="lse",
    primal="primal",
    derivative="gradient",
    sizes={"small": {"n": 50}, "quick": {"n": 10000}, "default": {"n": 80000}},
    generate=generate,
    parse=parse,
    reference={"primal": reference_primal, "gradient": reference_gradient},
    to_json={"primal": float, "gradient": lambda g: np.asarray(g).tolist()},
    fd_check=lambda x: gradient_error(lambda: reference_primal(x), (x,), reference_gradient(x)),
    implementations=(
        _primal("loops"),
        _primal("vectorized"),
        _srcad("python", "loops"),
        _srcad("numba", "loops"),
        _srcad("python", "vectorized"),
        _srcad("numba", "vectorized"),
        Implementation("gradient", "jax", "vectorized", _jax),
        Implementation("gradient", "autograd", "vectorized", _autograd),
    ),
)
