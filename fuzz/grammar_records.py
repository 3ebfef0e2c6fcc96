"""Seeded random programs over records (`--records`): `f(layer, x, a)` where `layer` is a
`Layer` dataclass (float arrays `W`, `b`, a float `g`; fuzz/records_classes.py) passed as a
parameter pytree, its fields read as `layer.W[i]`; `State` dataclasses and `Pair`
NamedTuples built inside f from varied values and read (and, for `State`, assigned) by their
fields, rebuilt from their own fields in loops; and, in half the programs, f is a bound
method of a class the program defines, reading `self.scale` and `self.A[i]` as constants and
calling another method of self; blocks run inside `np.errstate(...)` (or, from a stream of
their own, `random.Random(f"context managers {seed}")`, `warnings.catch_warnings()` or
`contextlib.nullcontext()`), `try: k =
int(TEXTS[i]) except ValueError: k = 1` on constants, and random draws made inside f
(`np.random.default_rng(s).normal(size=n)`, `np.random.RandomState(s).randn(n)`).

`generate(seed)` returns a `Program` like fuzz/generator.py's; it draws from
`random.Random(f"records {seed}")`, a stream of its own, so the other grammars' seeds keep
their programs. Everything is smooth in the inputs.
"""

from __future__ import annotations

import random

from program import ArgKind, Program

HEADER = '''import contextlib  # noqa: F401
import math
import warnings  # noqa: F401

import numpy as np

from records_classes import Layer, Pair, State  # noqa: F401
from srcad import Active, Duplicated, tree_zeros_like  # noqa: F401  (args() annotates)

TEXTS = ("3", "x", "2")
'''


def _c(rng: random.Random) -> str:
    """A coefficient in (-0.9, 0.9), never 0."""
    return repr(round(rng.choice([-1, 1]) * rng.uniform(0.1, 0.9), 3))


def _blocks(rng, n, method, counter, managers=None):
    """Block makers: each returns lines updating the float `s`. `managers`: the stream
    that chooses the context manager of the `with` block (np.errstate, or
    warnings.catch_warnings() or contextlib.nullcontext(), which srcad accepts too), drawn
    after the block's own draws so the rest of the program is the seed's."""
    def fresh(base):
        counter[0] += 1
        return f"{base}{counter[0]}"

    def field_reads():
        i, j = rng.randrange(n), rng.randrange(-n, n)
        return [f"s += layer.g * layer.W[{i}] * x[{j}] * {_c(rng)} + layer.b[{i}] * a"]

    def field_loop():
        return [f"for i in range({n}):",
                f"    s = s * {_c(rng)} + layer.W[i] * x[i] + layer.b[i] * layer.g"]

    def local_state():
        st = fresh("st")
        i = rng.randrange(n)
        return [rng.choice([f"{st} = State(s * {_c(rng)}, x * layer.b)",
                            f"{st} = State(v=x * {_c(rng)}, h=s + a, k={_c(rng)})"]),
                f"{st}.h = {st}.h * {st}.k + a * {_c(rng)}",
                f"s = {st}.h + np.sum({st}.v) * {_c(rng)} + {st}.v[{i}]"]

    def state_in_loop():
        st = fresh("st")
        return [f"{st} = State(s, layer.W * {_c(rng)})",
                f"for i in range({n}):",
                f"    {st} = State({st}.h * {_c(rng)} + {st}.v[i] * x[i], {st}.v * {st}.k)",
                f"s = {st}.h + {st}.v[0]"]

    def local_pair():
        p = fresh("p")
        return [f"{p} = Pair(layer.W * s, c=a * {_c(rng)})",
                f"s = {p}.c * {p}.u[{rng.randrange(n)}] + s * {_c(rng)}"]

    def self_reads():
        i = rng.randrange(n)
        return [f"s = s * self.scale + self.A[{i}] * x[{i}] * {_c(rng)}",
                f"s += self.inner(x[{i}], a) * {_c(rng)}"]

    def errstate():
        setting = rng.choice(["divide", "over", "invalid", "all"])
        value = rng.choice(["ignore", "warn"])
        body = f"    s = s * {_c(rng)} + np.sum(np.log(x * x + 1.0)) * layer.g"
        manager = managers.choice([f"np.errstate({setting}={value!r})",
                                   "warnings.catch_warnings()", "contextlib.nullcontext()"]) \
            if managers is not None else f"np.errstate({setting}={value!r})"
        return [f"with {manager}:", body]

    def constant_try():
        k = fresh("k")
        return ["try:",
                f"    {k} = int(TEXTS[{rng.randrange(3)}])",
                "except ValueError:",
                f"    {k} = {rng.randint(1, 3)}",
                f"s = s * {_c(rng)} + {k} * x[{k} % {n}]"]

    def random_draws():
        eps, gen = fresh("eps"), fresh("gen")
        if rng.random() < 0.5:
            return [f"{gen} = np.random.default_rng({rng.randint(0, 99)})",
                    f"{eps} = {gen}.normal(size={n})",
                    f"s = s * {_c(rng)} + np.sum(x * {eps}) + {eps}[0] * a"]
        return [f"{eps} = np.random.RandomState({rng.randint(0, 99)}).randn({n})",
                f"s = s * {_c(rng)} + np.sum(layer.W * {eps}) * s"]

    blocks = [field_reads, field_loop, local_state, state_in_loop, local_pair, errstate,
              constant_try, random_draws]
    return blocks + [self_reads, self_reads] if method else blocks


def generate(seed: int) -> Program:
    rng = random.Random(f"records {seed}")
    n = rng.randint(2, 4)
    method = rng.random() < 0.5
    counter = [0]
    blocks = _blocks(rng, n, method, counter, random.Random(f"context managers {seed}"))
    indent = "        " if method else "    "
    if method:
        A = [round(rng.uniform(-1, 1), 3) for _ in range(n)]
        lines = ["class Model:",
                 "    def __init__(self, scale, A):",
                 "        self.scale, self.A = scale, A",
                 "",
                 "    def inner(self, v, a):",
                 f"        return v * self.scale * {_c(rng)} + a * self.A[0]",
                 "",
                 "    def f(self, layer, x, a):"]
    else:
        lines = ["def f(layer, x, a):"]
    lines.append(indent + "s = a * layer.g")
    for _ in range(rng.randint(3, 6)):
        for line in rng.choice(blocks)():
            lines.append(indent + line)
    lines.append(indent + "return s")
    if method:
        lines += ["", "", f"MODEL = Model({_c(rng)}, np.array({A!r}))", "f = MODEL.f"]
    spec = ("record", "Layer", {"W": n, "b": n, "g": "f"})
    args = [ArgKind("container", "layer", value=spec), ArgKind("dup", "x", (n,)),
            ArgKind("active", "a")]
    return Program(seed, HEADER + "\n\n" + "\n".join(lines) + "\n", "f", args, True)
