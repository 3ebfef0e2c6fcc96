"""Seeded random programs with recursive helpers (`--recursion`): `f(x, a)` calls
module-level helpers that call themselves, or each other, with an int deciding the depth and
floats and arrays flowing through (srcad/operators/recursion.py):

* a chain `h(x, t, k)`: `k` counts down, `t` carries a float, branches on the values inside;
* a tree `h(x, t, k)`: two recursive calls per level (joint reversal reruns each subtree);
* a split `h(x, lo, hi, t)`: the index interval halved until one element is left;
* a pair of helpers calling each other (`even -> odd -> even`);
* a scratch int array written before the recursive call and restored after it (as
  GradBench's det takes rows out and puts them back);
* a default argument (`scale=...`) passed or left;
* from seed 1000 on (`EXTRA_FROM`), from a stream of its own (`recursion extra {seed}`), so
  the seeds below keep their programs: a helper splitting an interval until a global
  tolerance is met (the depth decided by the values, the tolerance a module-level number:
  compiled in on numba), or a helper called on constants only.

`generate(seed)` returns a `Program` like fuzz/generator.py's; it draws from
`random.Random(f"recursion {seed}")`, a stream of its own, so the other grammars' seeds keep
their programs. Everything is smooth in the inputs away from the branch thresholds.
"""

from __future__ import annotations

import random

from program import ArgKind, Program

HEADER = '''import math

import numpy as np

from srcad import Active, Duplicated  # noqa: F401  (args() annotates)
'''


def _c(rng: random.Random) -> str:
    """A coefficient in (-0.9, 0.9), never 0."""
    return repr(round(rng.choice([-1, 1]) * rng.uniform(0.1, 0.9), 3))


def _smooth(rng, t: str) -> str:
    """A smooth float expression of `t`."""
    return rng.choice([f"math.sin({t})", f"{t} * {t} * {_c(rng)}", f"math.tanh({t})",
                       f"math.exp({_c(rng)} * {t} * {t})", f"{t} / (1.0 + {t} * {t})"])


def _chain(rng, name, n, default):
    scale = f", scale={_c(rng)}" if default else ""
    scaled = " * scale" if default else ""
    return [f"def {name}(x, t, k{scale}):",
            "    if k <= 0:",
            f"        return {_smooth(rng, 't')} + x[0]{scaled}",
            f"    u = t * {_c(rng)} + x[k % {n}] * {_c(rng)}",
            f"    if u > {_c(rng)}:",
            f"        u = {_smooth(rng, 'u')}",
            f"    return {name}(x, u, k - 1) * {_c(rng)} + {_smooth(rng, 't')}{scaled}"]


def _tree(rng, name, n):
    return [f"def {name}(x, t, k):",
            "    if k == 0:",
            f"        return {_smooth(rng, 't')} * x[k % {n}]",
            f"    left = {name}(x, t * {_c(rng)} + x[0], k - 1)",
            f"    right = {name}(x, {_smooth(rng, 't')}, k - 1)",
            f"    return left * {_c(rng)} + right * t"]


def _split(rng, name):
    return [f"def {name}(x, lo, hi, t):",
            "    if hi - lo == 1:",
            f"        return {_smooth(rng, 'x[lo]')} * t",
            "    mid = (lo + hi) // 2",
            f"    return {name}(x, lo, mid, t * {_c(rng)}) + {name}(x, mid, hi, t)"]


def _mutual(rng, even, odd, n):
    return [f"def {even}(x, t, k):",
            "    if k == 0:",
            f"        return {_smooth(rng, 't')}",
            f"    return {odd}(x, t * x[k % {n}] + {_c(rng)}, k - 1) + t * {_c(rng)}",
            "",
            "",
            f"def {odd}(x, t, k):",
            "    if k == 0:",
            "        return t * t",
            f"    return {even}(x, {_smooth(rng, 't')}, k - 1) * {_c(rng)}"]


def _scratch(rng, name, n):
    return [f"def {name}(x, rows, t, k):",
            "    if k == 0:",
            "        return x[rows[0]] * t",
            "    kept = rows[0]",
            f"    rows[0] = (kept + 1) % {n}",
            f"    value = {name}(x, rows, t * {_c(rng)} + x[kept], k - 1)",
            "    rows[0] = kept",
            f"    return value + {_smooth(rng, 't')}"]


EXTRA_FROM = 1000


def _bisect(rng, name, tolerance):
    return [f"def {name}(x, lo, hi, t, depth):",
            "    m = 0.5 * (lo + hi)",
            f"    whole = ({_smooth(rng, 't * lo')} + {_smooth(rng, 't * hi')}) * (hi - lo)",
            f"    halves = ({_smooth(rng, 't * lo')} + {_smooth(rng, 't * m')}) * (m - lo)",
            f"    if depth <= 0 or abs(whole - halves) <= {tolerance}:",
            f"        return halves + x[depth % len(x)] * {_c(rng)}",
            f"    return {name}(x, lo, m, t, depth - 1) + {name}(x, m, hi, t * {_c(rng)},"
            " depth - 1)"]


def _constant(rng, name):
    return [f"def {name}(t, k):",
            "    if k == 0:",
            "        return t",
            f"    return {name}({_smooth(rng, 't')}, k - 1) * {_c(rng)} + 0.5"]


def _extra(seed: int) -> tuple:
    """(module lines, helper lines, a call) of one extra helper, or None."""
    rng = random.Random(f"recursion extra {seed}")
    kind = rng.choice(["bisect", "bisect", "constant", None])
    if kind == "bisect":
        tolerance = f"TOL_{seed}"
        call = f"h_extra(x, 0.0, {rng.choice(['1.0', '2.0'])}, s * {_c(rng)} + a, " \
               f"{rng.randint(1, 5)})"
        return ([f"{tolerance} = {rng.choice(['1e-3', '1e-2', '0.05'])}"],
                _bisect(rng, "h_extra", tolerance), call)
    if kind == "constant":
        return [], _constant(rng, "h_extra"), f"h_extra({_c(rng)}, {rng.randint(0, 4)})"
    return None


def generate(seed: int) -> Program:
    rng = random.Random(f"recursion {seed}")
    n = rng.randint(2, 5)
    helpers, calls = [], []
    for index in range(rng.randint(1, 3)):
        kind = rng.choice(["chain", "chain", "tree", "split", "mutual", "scratch"])
        name = f"h{index}"
        depth = rng.randint(0, 4)
        if kind == "chain":
            default = rng.random() < 0.4
            helpers.append(_chain(rng, name, n, default))
            extra = f", scale={_c(rng)}" if default and rng.random() < 0.5 else ""
            calls.append(f"{name}(x, s * {_c(rng)} + a, {depth}{extra})")
        elif kind == "tree":
            helpers.append(_tree(rng, name, n))
            calls.append(f"{name}(x, s + x[{rng.randrange(n)}], {min(depth, 3)})")
        elif kind == "split":
            helpers.append(_split(rng, name))
            lo = rng.randrange(n)
            calls.append(f"{name}(x, {lo}, {n}, s * {_c(rng)} + a)")
        elif kind == "mutual":
            helpers.append(_mutual(rng, f"{name}_even", f"{name}_odd", n))
            calls.append(f"{name}_even(x, a * {_c(rng)} + s, {depth})")
        else:
            helpers.append(_scratch(rng, name, n))
            calls.append(f"{name}(x, rows, s + a, {depth})")
    added = _extra(seed) if seed >= EXTRA_FROM else None
    if added is not None:
        helpers.append(added[1])
        calls.append(added[2])
    lines = ["def f(x, a):",
             f"    rows = np.array([{rng.randrange(n)}])",
             f"    s = a * {_c(rng)}"]
    for call in calls:
        if rng.random() < 0.3:
            lines += [f"    for i in range({rng.randint(1, 3)}):",
                      f"        s = s * {_c(rng)} + {call} + x[i % {n}]"]
        else:
            lines.append(f"    s = s + {call} * {_c(rng)}")
    lines.append("    return s")
    text = "\n\n\n".join("\n".join(h) for h in helpers) + "\n\n\n" + "\n".join(lines) + "\n"
    if added is not None and added[0]:
        text = "\n".join(added[0]) + "\n\n\n" + text
    args = [ArgKind("dup", "x", (n,)), ArgKind("active", "a")]
    return Program(seed, HEADER + "\n\n" + text, "f", args, True)
