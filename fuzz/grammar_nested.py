"""Seeded random programs with nested gradients (`--nested`): `f(x, a)` calls
`srcad.grad(g)(...)` or `srcad.grad(g, argnums=1)(...)` of a module-level helper `g(v, p)`
(an array and a float, both flowing from f's arguments), once or in a loop whose later
iterations feed the gradient back in, and uses the gradient's entries. The outer derivative
of such a call needs the adjoints of every operand of the inner gradient at once: on numba one
second-order kernel call gives a run of them (srcad/operators/nested_adjoint_runs.py), each
checked here against central differences.

`generate(seed)` draws from `random.Random(f"nested {seed}")`, a stream of its own, so the
other grammars' seeds keep their programs. Everything is smooth in the inputs.
"""

from __future__ import annotations

import random

from grammar_recursion import HEADER as RECURSION_HEADER
from grammar_recursion import _c, _smooth
from program import ArgKind, Program

HEADER = "\n".join(["import srcad", RECURSION_HEADER])


def _helper(rng, name, n):
    """g(v, p): a float of an array and a float, both entering nonlinearly."""
    terms = [f"p * v[i] ** 3 * {_c(rng)}", "math.sin(v[i] * p)", "v[i] * v[i] * p * p",
             f"{_smooth(rng, 'v[i]')} * p", f"math.exp({_c(rng)} * v[i] * p)"]
    body = " + ".join(rng.sample(terms, rng.randint(1, 3)))
    return [f"def {name}(v, p):",
            "    s = 0.0",
            f"    for i in range({n}):",
            f"        s += {body}",
            f"    return s + {_smooth(rng, 'p')}"]


def _use(rng, d, argnum, n):
    """A float of the gradient `d` (an array for argnums=0, a float for argnums=1)."""
    if argnum == 1:
        return f"{d} * {_c(rng)}"
    return rng.choice([f"{d}[{rng.randrange(n)}] * {_c(rng)}",
                       f"np.sum({d} * {d}) * {_c(rng)}",
                       f"{d}[0] * {d}[{n - 1}]"])


def generate(seed: int) -> Program:
    rng = random.Random(f"nested {seed}")
    n = rng.randint(2, 4)
    helpers, lines = [], ["def f(x, a):", f"    s = a * {_c(rng)}"]
    for index in range(rng.randint(1, 2)):
        name = f"g{index}"
        helpers.append(_helper(rng, name, n))
        argnum = rng.choice([0, 0, 1])
        grad = f"srcad.grad({name})" if argnum == 0 else f"srcad.grad({name}, argnums=1)"
        operand = rng.choice(["x", f"x * {_c(rng)}", f"x + s * {_c(rng)}"])
        d, v = f"d{index}", f"v{index}"  # an array (argnums=0) or a float: names apart
        if rng.random() < 0.4:  # in a loop, the gradient fed back
            lines += [f"    {v} = x.copy()",
                      f"    for k in range({rng.randint(1, 3)}):",
                      f"        {d} = {grad}({v}, a * {_c(rng)} + s * {_c(rng)})",
                      f"        s = s + {_use(rng, d, argnum, n)}",
                      f"        {v} = {v} + {_c(rng)} * {d if argnum == 0 else d + ' * x'}"]
        else:
            lines += [f"    {d} = {grad}({operand}, a + s * {_c(rng)})",
                      f"    s = s + {_use(rng, d, argnum, n)}"]
    lines.append("    return s")
    text = "\n\n\n".join("\n".join(h) for h in helpers) + "\n\n\n" + "\n".join(lines) + "\n"
    args = [ArgKind("dup", "x", (n,)), ArgKind("active", "a")]
    return Program(seed, HEADER + "\n\n" + text, "f", args, True)
