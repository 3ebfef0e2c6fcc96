"""Seeded random programs written the way people write Python around the math: sum/max/min
of generator expressions and list comprehensions (nested, filtered), zip, enumerate with a
start, reversed ranges, loop else, tuple locals, lists of known length, keyword arguments and
defaults, a nested def, an assigned lambda, functools.partial, list comprehensions over
constant ranges, lists grown by append, a local named like a global an inlined helper reads,
and (three programs in ten) a tuple returned.

`generate(seed)` returns a `generator.Program` (module source, entry `f`, argument kinds) like
fuzz/generator.py's, so fuzz/run.py's checks apply; everything is a pure function of the seed.
Every block is smooth in the inputs (branch and break tests compare integers only; max/min
compare values offset by multiples of 0.3719, which inputs rounded to 3 decimals never tie),
and values stay bounded (coefficients below 1 in magnitude, at most six loop trips).
"""

from __future__ import annotations

import random

from program import ArgKind, Program

HEADER = '''import functools
import math

import numpy as np

from srcad import Active, Duplicated  # noqa: F401  (fuzz/run.py's args() annotates)


def pair(u, v):
    return u * v, u + v


def scale(v, factor=1.0, *, offset=0.0):
    return v * factor + offset


HALF = functools.partial(scale, factor=0.5)
SHIFT = 0.25


def shifted(v):
    return v + SHIFT * v  # the module's SHIFT, also where f binds a local SHIFT
'''


def _c(rng: random.Random) -> str:
    """A coefficient in (-0.9, 0.9), never 0."""
    return repr(round(rng.choice([-1, 1]) * rng.uniform(0.1, 0.9), 3))


def _element(rng, var, index):
    """A smooth expression of one array element."""
    item = f"{var}[{index}]"
    return rng.choice([f"{item} * {_c(rng)}", f"{item} * {item}", f"math.sin({item})",
                       f"{item} * a", f"math.exp({_c(rng)} * {item})"])


def _blocks(rng):
    """Block makers: each returns lines updating the float `s` (reads x, y, a)."""
    def generator_sum():
        cond = rng.choice(["", f" if i % 2 == {rng.randint(0, 1)}"])
        body = _element(rng, "x", "i")
        brackets = rng.choice([("(", ")"), ("([", "])")])
        return [f"s += sum{brackets[0]}{body} for i in range(len(x)){cond}{brackets[1]}"]

    def nested_sum():
        return [f"s += {_c(rng)} * sum(sum(x[i] * y[j] for j in range(min(i, len(y)))) "
                "for i in range(len(x)))"]

    def extreme():
        kind = rng.choice(["max", "min"])
        return [f"s += {kind}(x[i] + 0.3719 * i for i in range(len(x)))"]

    def zipped():
        start, step = rng.randint(0, 2), rng.randint(1, 3)
        return [f"for u, v, k in zip(x, y, range({start}, 20, {step})):",
                f"    s += u * v * k * {_c(rng)}"]

    def enumerated():
        return [f"for i, v in enumerate(y, {rng.randint(-2, 3)}):",
                f"    s += {_c(rng)} * v * i"]

    def reversed_loop():
        return ["for i in reversed(range(len(x))):",
                f"    s = s * {_c(rng)} + x[i]"]

    def loop_else():
        return ["for i in range(len(x)):",
                f"    s = s * {_c(rng)} + x[i]",
                f"    if i == {rng.randint(1, 7)}:",
                "        break",
                "else:",
                f"    s += a * {_c(rng)}"]

    def tuple_local():
        return [f"t = (s * {_c(rng)}, s + a, {_c(rng)})",
                rng.choice(["s = t[0] + t[-1] * t[1]", "p, q, r = t\ns = p * r + q"])]

    def tuple_helper():
        return [rng.choice(["t = pair(s, a)", "t = (s, a * s)"]), f"s = t[0] * {_c(rng)} + t[1]",
                rng.choice(["", "t = pair(t[1], s)\ns = s + t[0] * t[1]"])]

    def fixed_list():
        return [f"ls = [s, a * {_c(rng)}, x[0]]",
                f"ls[1] += s * {_c(rng)}",
                f"s = {_c(rng)} * sum(ls) + len(ls) * ls[{rng.randint(-3, 2)}]",
                "for v in ls:",
                f"    s = s * {_c(rng)} + v"]

    def list_comprehension():
        return [f"zs = [x[k % len(x)] * {_c(rng)} + k for k in range({rng.randint(1, 4)})]",
                "s = s * 0.5 + sum(zs) * zs[-1]"]

    def keywords():
        return [rng.choice([f"s = scale(s, factor={_c(rng)}) + scale(a, offset=s * {_c(rng)})",
                            "s = HALF(s) + scale(offset=a, v=s)"])]

    def local_functions():
        return [rng.choice(["s = h(s) + g(a)", "s = h(s, p=1) * g(y[0])"])]

    return [generator_sum, nested_sum, extreme, zipped, enumerated, reversed_loop, loop_else,
            tuple_local, tuple_helper, fixed_list, list_comprehension, keywords, local_functions]


def generate(seed: int) -> Program:
    rng = random.Random(seed)
    blocks = _blocks(rng)
    grown = rng.random() < 0.5  # a list grown by append, read after the blocks
    lines = ["def f(x, y, a):",
             "    def h(v, p=2):",
             f"        return v * {_c(rng)} + a * v ** p * 0.1",
             "",
             f"    g = lambda v: v * {_c(rng)} + a",
             "    s = a"]
    for _ in range(rng.randint(3, 6)):
        for line in rng.choice(blocks)():
            lines.extend("    " + part for part in line.split("\n") if part)
    if grown:  # at the function's top level, as srcad requires
        lines += ["    terms = []", f"    for i in range({rng.randint(0, 2)}, len(y)):",
                  f"        terms.append(y[i] * s * {_c(rng)})",
                  f"    s = s * {_c(rng)} + sum(terms) + max(terms) * len(terms)",
                  "    for v in terms:", "        s = s * 0.5 + v * terms[0]"]
    # a local named like a global a helper reads (drawn apart, like the tuple below): the
    # inlined helper must still read the module's value
    shadow = random.Random(f"shadow {seed}")
    if shadow.random() < 0.3:
        lines += [f"    SHIFT = s * {_c(shadow)}", "    s = shifted(s) + SHIFT * a"]
    # constant number tuples (drawn apart too): a default, a module's tuple or list
    module, signature, constants = _constant_tuples(random.Random(f"constants {seed}"))
    lines[0] = lines[0].replace("a):", f"a{signature}):")
    lines += constants
    # a tuple returned (drawn apart, so each seed's body is what it always was): checked
    # value by value, one seed (reverse) and one tangent (forward) per value
    if random.Random(seed + 7919).random() < 0.3:
        lines.append(f"    return s, s * a + {_c(rng)}, {_c(rng)}")
    else:
        lines.append("    return s")
    n, m = rng.randint(3, 6), rng.randint(3, 6)
    args = [ArgKind("dup", "x", (n,)), ArgKind("dup", "y", (m,)), ArgKind("active", "a")]
    globals_ = "\n".join(module) + "\n\n\n" if module else ""
    return Program(seed, HEADER + "\n\n" + globals_ + "\n".join(lines) + "\n", "f", args, True)


def _numbers(rng, brackets) -> str:
    items = ", ".join(_c(rng) for _ in range(rng.randint(1, 4)))
    return brackets[0] + items + ("," if brackets[0] == "(" and "," not in items else "") \
        + brackets[1]


def _constant_tuples(rng) -> tuple:
    """(module lines, f's extra parameter, f's lines) reading constant number tuples as
    Python does: a default `cs=(...)`, the module's COEFFS (a tuple or a list) and its int
    tuple ORDER, by constant and variable index, len, a loop, enumerate, zip and sum
    (srcad/frontend/constant_sequences.py); in half the programs none."""
    if rng.random() < 0.5:
        return [], "", []
    module = [f"COEFFS = {_numbers(rng, rng.choice(['()', '[]']))}", "ORDER = (2, 0, 1)"]
    default = _numbers(rng, "()")
    reads = [["for k in range(len(cs)):", "    s = s * 0.5 + cs[k] * x[k % len(x)]"],
             ["for c in COEFFS:", "    s = s * c + a * 0.5"],
             ["for k, c in enumerate(cs):", "    s = s + c * y[k % len(y)] * 0.3"],
             ["for c, v in zip(COEFFS, y):", "    s = s * 0.5 + c * v"],
             ["s = s + COEFFS[-1] * a + cs[0] * x[ORDER[0]] * x[ORDER[len(ORDER) - 1]]"],
             ["s = s * 0.5 + sum(cs) * a + len(COEFFS) * x[ORDER[1]]"]]
    lines = []
    for _ in range(rng.randint(1, 3)):
        lines += ["    " + line for line in rng.choice(reads)]
    return module, f", cs={default}", lines
