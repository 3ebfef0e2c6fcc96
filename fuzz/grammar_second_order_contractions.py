"""Second-order programs through contractions (`run.py --second-order --shapes
second-order-contractions`): `f(x)`, x a Duplicated float vector of length 2 to 4, returning
a float. Two to four blocks, each adding to a float `s` a contraction of matrices built from
x, so that several of its operands carry a derivative at once: np.einsum (a product, a trace,
a diagonal, a bilinear form, an implicit output), np.tensordot (an int and a pair of axis
lists), np.inner, np.linalg.multi_dot and `@` of a stack of matrices.

Checked like fuzz/grammar_second_order_reach.py's programs (Hessian against central
differences of srcad's gradient, hvp against the Hessian, jax.hessian of the same text with
`jnp` in place of `np`: `JAX_SOURCE`). Drawn from `random.Random(f"second order contractions
{seed}")`: without the shape `second-order-contractions` a seed gives the program it always
gave.
"""

from __future__ import annotations

import random

from program import PRELUDE, ArgKind, Program


def _k(rng) -> str:
    return repr(round(rng.choice([-1, 1]) * rng.uniform(0.2, 0.9), 3))


def _matrix(rng, name) -> list:
    """A square matrix of x (its length) with x in both factors."""
    inner = rng.choice(["np.sin(x)", "x * x", "np.tanh(x)"])
    return [f"{name} = np.outer(x, {inner}) * {_k(rng)} + {_k(rng)}"]


def _contraction(rng, n, size) -> list:
    M, N = f"M{n}", f"N{n}"
    lines = _matrix(rng, M) + [f"{N} = np.cos({M}) * {_k(rng)}"]
    kind = rng.choice(["product", "trace", "diagonal", "bilinear", "implicit", "tensordot",
                       "axes", "inner", "multi_dot", "stacked"])
    if kind == "product":
        term = f'np.sum(np.sin(np.einsum("ij,jk->ik", {M}, {N})))'
    elif kind == "trace":
        term = f'np.einsum("ii", {M} @ {N})'
    elif kind == "diagonal":
        term = f'np.sum(np.einsum("ii->i", {M}) * np.einsum("ij,ij->i", {M}, {N}))'
    elif kind == "bilinear":
        term = f'np.einsum("i,ij,j", x, {M}, np.sin(x))'
    elif kind == "implicit":
        term = f'np.sum(np.einsum("ij,kj", {M}, {N}) ** 2)'
    elif kind == "tensordot":
        term = f"np.tensordot({M}, {N}) * np.sum(x)"
    elif kind == "axes":
        term = f"np.sum(np.tanh(np.tensordot({M}, {N}, axes=([0], [1]))))"
    elif kind == "inner":
        term = f"np.sum(np.inner({M}, x * {_k(rng)}) ** 2)"
    elif kind == "multi_dot":
        term = f"np.sum(np.linalg.multi_dot([{M}, {N}.T, x]))"
    else:
        lines.append(f"S{n} = np.stack([{M}, {N}])")
        term = f"np.sum(np.sin(S{n} @ S{n}))"
    return lines + [f"s += {term} * {_k(rng)}"]


def generate(seed: int) -> Program:
    rng = random.Random(f"second order contractions {seed}")
    size = rng.randint(2, 4)
    body = ["s = 0.0"]
    for k in range(rng.randint(2, 4)):
        body += _contraction(rng, k, size)
    body.append(f"return s + np.sum(x ** 2) * {_k(rng)}")
    function = "def f(x):\n" + "".join(f"    {line}\n" for line in body)
    jax_function = function.replace("def f(", "def f_jax(").replace("np.", "jnp.")
    source = (PRELUDE + "\nSECOND_ORDER = True\n"
              f"JAX_SOURCE = {jax_function!r}\n\n\n" + function)
    return Program(seed, source, "f", [ArgKind("dup", "x", (size,))], True)
