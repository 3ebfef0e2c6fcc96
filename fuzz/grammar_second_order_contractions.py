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

from grammar_second_order_reach import _k
from program import PRELUDE, ArgKind, Program

# each kind of contraction: a float of the matrices M and N made of x (and their stack S)
TERMS = {
    "product": 'np.sum(np.sin(np.einsum("ij,jk->ik", {M}, {N})))',
    "trace": 'np.einsum("ii", {M} @ {N})',
    "diagonal": 'np.sum(np.einsum("ii->i", {M}) * np.einsum("ij,ij->i", {M}, {N}))',
    "bilinear": 'np.einsum("i,ij,j", x, {M}, np.sin(x))',
    "implicit": 'np.sum(np.einsum("ij,kj", {M}, {N}) ** 2)',
    "tensordot": "np.tensordot({M}, {N}) * np.sum(x)",
    "axes": "np.sum(np.tanh(np.tensordot({M}, {N}, axes=([0], [1]))))",
    "inner": "np.sum(np.inner({M}, x * {k}) ** 2)",
    "multi_dot": "np.sum(np.linalg.multi_dot([{M}, {N}.T, x]))",
    "stacked": "np.sum(np.sin({S} @ {S}))",
}


def _contraction(rng, n) -> list:
    M, N, S = f"M{n}", f"N{n}", f"S{n}"
    inner = rng.choice(["np.sin(x)", "x * x", "np.tanh(x)"])
    lines = [f"{M} = np.outer(x, {inner}) * {_k(rng)} + {_k(rng)}",
             f"{N} = np.cos({M}) * {_k(rng)}", f"{S} = np.stack([{M}, {N}])"]
    term = TERMS[rng.choice(sorted(TERMS))].format(M=M, N=N, S=S, k=_k(rng))
    return lines + [f"s += {term} * {_k(rng)}"]


def generate(seed: int) -> Program:
    rng = random.Random(f"second order contractions {seed}")
    size = rng.randint(2, 4)
    body = ["s = 0.0"]
    for k in range(rng.randint(2, 4)):
        body += _contraction(rng, k)
    body.append(f"return s + np.sum(x ** 2) * {_k(rng)}")
    function = "def f(x):\n" + "".join(f"    {line}\n" for line in body)
    jax_function = function.replace("def f(", "def f_jax(").replace("np.", "jnp.")
    source = (PRELUDE + "\nSECOND_ORDER = True\n"
              f"JAX_SOURCE = {jax_function!r}\n\n\n" + function)
    return Program(seed, source, "f", [ArgKind("dup", "x", (size,))], True)
