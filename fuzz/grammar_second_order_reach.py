"""Second-order programs of what first order reaches (`run.py --second-order --shapes
second-order-reach`): `f(x)`, x a Duplicated float vector of length 2 to 4, returning a float.
Two to four blocks, each adding to a float `s`:

* a `while t < T:` loop carrying an array state rebound whole each step (an explicit Euler or
  midpoint step of an elementwise ODE in x);
* linear algebra of a symmetric positive definite matrix built from x: np.linalg.cholesky
  with np.diag and np.log (a log-determinant), np.linalg.solve,
  scipy.linalg.solve_triangular(L, ..., lower=True), np.linalg.det;
* np.where written inline (a Huber loss), the kink included.

Checked like fuzz/grammar_second_order.py's programs (Hessian against central differences of
srcad's gradient, hvp against the Hessian) and against jax.hessian of the same text with
`jnp` and `jax.scipy.linalg` in place of `np` and `scipy.linalg` (`JAX_SOURCE`,
fuzz/checking.py). Drawn from `random.Random(f"second order reach {seed}")`: without the
shape `second-order-reach` a seed gives the program it always gave.
"""

from __future__ import annotations

import random

from program import PRELUDE, ArgKind, Program


def _k(rng) -> str:
    return repr(round(rng.choice([-1, 1]) * rng.uniform(0.2, 0.9), 3))


def _positive(rng) -> str:
    return repr(round(rng.uniform(0.5, 2.0), 3))


def _while_state(rng, n, size):
    z, t, h = f"z{n}", f"t{n}", repr(rng.choice([0.1, 0.2, 0.25]))
    step = rng.choice([f"np.sin({z}) * x * {_k(rng)}", f"{z} * x * {_k(rng)} + {_k(rng)}",
                       f"np.tanh({z} * x) * {_k(rng)}"])
    lines = [f"{z} = x * {_k(rng)} + {_k(rng)}", f"{t} = 0.0",
             f"while {t} < {repr(rng.choice([0.45, 0.65, 0.95]))}:"]
    if rng.random() < 0.5:  # explicit Euler
        lines += [f"    d{n} = {step}", f"    {z} = {z} + {h} * d{n}"]
    else:  # midpoint: the step read at a half step
        half = step.replace(z, f"m{n}")
        lines += [f"    m{n} = {z} + 0.5 * {h} * ({step})", f"    {z} = {z} + {h} * ({half})"]
    lines += [f"    {t} += {h}", f"s += np.sum({z} ** 2) * {_k(rng)}"]
    return lines


def _linalg(rng, n, size):
    A = f"A{n}"
    lines = [f"{A} = np.outer(x, x) * {_positive(rng)} + {size + 1.0} * np.eye({size})"]
    kind = rng.choice(["logdet", "solve", "triangular", "det"])
    if kind == "logdet":
        lines += [f"L{n} = np.linalg.cholesky({A})",
                  f"s += np.sum(np.log(np.diag(L{n}))) * {_k(rng)}"]
    elif kind == "solve":
        lines += [f"s += np.sum(np.linalg.solve({A}, x) * x) * {_k(rng)}"]
    elif kind == "triangular":
        lines += [f"L{n} = np.linalg.cholesky({A})",
                  f"w{n} = scipy.linalg.solve_triangular(L{n}, np.sin(x), lower=True)",
                  f"s += np.sum(w{n} * w{n}) * {_k(rng)}"]
    else:
        lines += [f"s += np.linalg.det({A}) * {_k(rng)}"]
    return lines


def _huber(rng, n, size):
    d = _positive(rng)
    return [f"r{n} = x - {rng.choice(['0.0', _k(rng)])}",
            f"s += np.sum(np.where(np.abs(r{n}) < {d}, 0.5 * r{n} ** 2, "
            f"{d} * (np.abs(r{n}) - 0.5 * {d}))) * {_k(rng)}"]


def generate(seed: int) -> Program:
    rng = random.Random(f"second order reach {seed}")
    size = rng.randint(2, 4)
    body = ["s = 0.0"]
    for k in range(rng.randint(2, 4)):
        body += rng.choice([_while_state, _linalg, _huber])(rng, k, size)
    body.append(f"return s + np.sum(x ** 2) * {_k(rng)}")
    function = "def f(x):\n" + "".join(f"    {line}\n" for line in body)
    jax_function = function.replace("def f(", "def f_jax(").replace(
        "scipy.linalg.", "jax.scipy.linalg.").replace("np.", "jnp.")
    source = (PRELUDE + "import scipy.linalg  # noqa: F401\n\nSECOND_ORDER = True\n"
              f"JAX_SOURCE = {jax_function!r}\n\n\n" + function)
    return Program(seed, source, "f", [ArgKind("dup", "x", (size,))], True)
