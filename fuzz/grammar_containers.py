"""Seeded random programs over a parameter container, as JAX users keep model parameters:
`f(params, x, a)` where `params` is a dict holding a float array `w`, a float `c`, an int `k`,
a list of layer dicts `layers` (each a float array `v` and a float `g`) and a list `pair`
(an array and a float). The blocks read it the ways people write: constant keys and indices,
`for layer in params["layers"]`, `enumerate`/`zip` over its lists and arrays, unpacking,
helpers taking a layer (with keyword arguments and defaults), a nested def and a lambda
reading it (closures), lists literal and grown by append, list comprehensions, generator
sums and max over its layers, tuple helpers, an int leaf as a loop bound, and (three
programs in ten) a tuple returned, on one path or several.

`generate(seed)` returns a `Program` like fuzz/generator.py's; the container argument is an
`ArgKind("container", "params", value=spec)` (spec: the structure, each float leaf `"f"`, each
array leaf its length, each int leaf `("int", value)`), which `program.make_inputs` fills and
`program.module_text` writes as `Duplicated(params, tree_zeros_like(params))` or bare.
Everything is smooth in the inputs (branch tests compare ints only; max compares values
offset by multiples of 0.3719) and a pure function of the seed.
"""

from __future__ import annotations

import random

from program import ArgKind, Program

HEADER = '''import math

import numpy as np

from srcad import Active, Duplicated, tree_zeros_like  # noqa: F401  (args() annotates)


def dense(layer, v, scale=1.0, *, shift=0.0):
    return (layer["g"] * v + layer["v"][0]) * scale + shift


def pair(u, v):
    return u * v, u + v


def layer_terms(layer, x):
    return layer["g"] * x[0], layer["v"][-1] * x[-1]
'''


def _c(rng: random.Random) -> str:
    """A coefficient in (-0.9, 0.9), never 0."""
    return repr(round(rng.choice([-1, 1]) * rng.uniform(0.1, 0.9), 3))


def _blocks(rng, n, layers, counter):
    """Block makers: each returns lines updating the float `s` (reads params, x, a)."""
    def fresh(base):
        counter[0] += 1
        return f"{base}{counter[0]}"

    def leaf_reads():
        i, j = rng.randrange(n), rng.randrange(-n, n)
        return [f"s += params[\"c\"] * params[\"w\"][{i}] * x[{j}] * {_c(rng)}"]

    def layer_loop():
        return ["for layer in params[\"layers\"]:",
                f"    s = s * layer[\"g\"] * {_c(rng)} + sum(layer[\"v\"][i] * x[i] "
                "for i in range(len(x)))"]

    def enumerated_layers():
        return [f"for k, layer in enumerate(params[\"layers\"], {rng.randint(0, 2)}):",
                f"    s += k * layer[\"g\"] * {_c(rng)} + layer[\"v\"][k % len(x)] * a"]

    def zipped():
        return ["for u, v in zip(params[\"w\"], x):",
                f"    s = s * {_c(rng)} + u * v"]

    def unpacked():
        w, b = fresh("w"), fresh("b")
        return [f"{w}, {b} = params[\"pair\"]",
                f"s = s * {_c(rng)} + {b} * {w}[0] + {w}[-1] * x[0]"]

    def helper():
        which = rng.randrange(layers)
        return [rng.choice([f"s = dense(params[\"layers\"][{which}], s, scale={_c(rng)})",
                            "s = dense(params[\"layers\"][-1], s, shift=params[\"c\"] * a)",
                            f"s = s * {_c(rng)} + dense(params[\"layers\"][{which}], a)"])]

    def closures():
        return [rng.choice(["s = h(s) + g(a)", "s = h(s * a) * g(params['w'][0])"])]

    def fixed_list():
        ls = fresh("ls")
        return [f"{ls} = [params[\"c\"], s * {_c(rng)}, params[\"layers\"][0][\"g\"]]",
                f"s = sum({ls}) * {_c(rng)} + {ls}[{rng.randint(-3, 2)}] * len({ls})"]

    def grown_list():
        terms = fresh("terms")
        return [f"{terms} = []",
                "for i in range(len(x)):",
                f"    {terms}.append(params[\"w\"][i] * s * {_c(rng)})",
                f"s = s * {_c(rng)} + sum({terms}) + {terms}[-1]"]

    def comprehension():
        zs = fresh("zs")
        return [f"{zs} = [params[\"w\"][i] * a + x[i] for i in range({n})]",
                f"s = s * {_c(rng)} + sum({zs}) * {zs}[0]"]

    def generator_over_layers():
        kind = rng.choice(["sum", "max"])
        offset = " + 0.3719 * k" if kind == "max" else ""
        return [f"s += {_c(rng)} * {kind}(layer[\"g\"] * s{offset} "
                "for k, layer in enumerate(params[\"layers\"]))"]

    def tuple_helper():
        t = fresh("t")
        return [rng.choice([f"{t} = pair(s, params[\"c\"])",
                            f"{t} = layer_terms(params[\"layers\"][0], x)"]),
                f"s = {t}[0] * {_c(rng)} + {t}[1]"]

    def int_leaf():
        return ["for i in range(params[\"k\"]):",
                f"    s = s * {_c(rng)} + params[\"w\"][i % len(x)]"]

    return [leaf_reads, layer_loop, enumerated_layers, zipped, unpacked, helper, closures,
            fixed_list, grown_list, comprehension, generator_over_layers, tuple_helper,
            int_leaf]


def generate(seed: int) -> Program:
    rng = random.Random(f"containers {seed}")
    n, layers = rng.randint(2, 4), rng.randint(1, 3)
    counter = [0]
    blocks = _blocks(rng, n, layers, counter)
    lines = ["def f(params, x, a):",
             "    def h(v):",
             f"        return v * params[\"c\"] * {_c(rng)} + a * 0.1",
             "",
             f"    g = lambda v: v * {_c(rng)} + params[\"pair\"][1]",
             "    s = a * params[\"c\"]"]
    for _ in range(rng.randint(3, 6)):
        for line in rng.choice(blocks)():
            lines.append("    " + line)
    ending = rng.random()
    if ending < 0.15:  # a tuple returned on several paths
        lines += ["    if params[\"k\"] > 1:",
                  f"        return s, s * a + {_c(rng)}",
                  f"    return s * {_c(rng)}, s + a"]
    elif ending < 0.3:
        lines.append(f"    return s, s * params[\"c\"] + {_c(rng)}")
    else:
        lines.append("    return s")
    spec = {"w": n, "c": "f", "k": ("int", rng.randint(1, 3)),
            "layers": [{"v": n, "g": "f"} for _ in range(layers)], "pair": [n, "f"]}
    args = [ArgKind("container", "params", value=spec), ArgKind("dup", "x", (n,)),
            ArgKind("active", "a")]
    return Program(seed, HEADER + "\n\n" + "\n".join(lines) + "\n", "f", args, True)
