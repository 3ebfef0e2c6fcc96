"""Programs with calls made for their effect (`run.py --effects`, `generate(seed,
effects=True)`): `f(x, w, a, idx)` with `x`, `w` (n,) float arrays and `a` a float (all
varied: no annotation mix) and `idx` an int index array with a repeated index. The body
fills a work array `z` from the inputs, makes one call for its effect, and reads what it
left:

* on values that carry a derivative: `np.copyto(z, x * a)`, `z.fill(a * 2.0)`, `y.sort()`
  on `y = x * w` -- srcad cannot see what such a call writes, so every mode must refuse the
  program with an error naming the call's line (srcad/analysis/type_refusals.py);
* `np.add.at(z, idx, v)` with v carrying a derivative: forward and vector mode
  differentiate it (it must agree with central differences), reverse mode must refuse it
  naming its line (srcad/transform/reverse/transform.py);
* the same calls on constants (`c.fill(0.5)`, `np.copyto(c, np.ones(n))`, `c.sort()` of a
  constant array, `np.add.at(c, idx, np.ones(3))`) run as they are: every mode must agree.

`Program.refusals` maps each mode to the line its refusal must name (None: the mode must
agree); `judge` turns a program's outcomes per mode into its category.
"""

from __future__ import annotations

import random
import re

from program import PRELUDE, ArgKind, Program

SCALAR = ["a * 2.0", "math.sin(x[0]) * a", "x[1] * w[0] + a", "math.tanh(w[2]) * x[0]"]
ARRAY = ["x * a", "np.sin(x) * w", "x * w + a", "np.tanh(w * a) * x"]
ADDED = ["x[:3] * a", "np.sin(w[:3]) * x[1:4]", "w[1:4] * a + x[:3]"]
EVERY_MODE = ("fwd", "vec", "rev")


def _effect(rng, n):
    """(lines, index of the effect call among them, modes that must refuse it)."""
    kind = rng.choice(["copyto", "fill", "sort", "add.at", "constant"])
    if kind == "copyto":
        return [f"np.copyto(z, {rng.choice(ARRAY)})"], 0, EVERY_MODE
    if kind == "fill":
        return [f"z.fill({rng.choice(SCALAR)})"], 0, EVERY_MODE
    if kind == "sort":
        return [f"y = {rng.choice(ARRAY)}", "y.sort()", f"for k in range({n}):",
                "    z[k] += y[k]"], 1, EVERY_MODE
    if kind == "add.at":
        return [f"np.add.at(z, idx, {rng.choice(ADDED)})"], 0, ("rev",)
    call = rng.choice(["c.fill(0.5)", f"np.copyto(c, np.ones({n}))",
                       "c.sort()", "np.add.at(c, idx, np.ones(3))"])
    return [f"c = np.linspace(1.0, -1.0, {n})", call, f"for k in range({n}):",
            "    z[k] += c[k] * a"], 1, ()


def generate(seed: int) -> Program:
    rng = random.Random(seed)
    n = rng.randint(4, 6)
    head = ["def f(x, w, a, idx):", f"    z = np.zeros({n})", f"    for k in range({n}):",
            f"        z[k] = {rng.choice(['math.sin(x[k]) * w[k]', 'x[k] * a + w[k]'])}"]
    effect, at, refusing = _effect(rng, n)
    tail = ["    s = 0.0", f"    for k in range({n}):", "        s += z[k] * x[k] + z[k] * a",
            "    return s"]
    source = PRELUDE + "\n\n" + "\n".join(head + ["    " + e for e in effect] + tail) + "\n"
    line = PRELUDE.count("\n") + 2 + len(head) + at + 1  # the effect call's line in the module
    repeated = rng.randrange(3)
    idx = [repeated, rng.randrange(n), repeated]
    args = [ArgKind("dup", "x", (n,)), ArgKind("dup", "w", (n,)), ArgKind("active", "a"),
            ArgKind("index", "idx", value=idx)]
    return Program(seed, source, "f", args, True,
                   refusals={mode: line if mode in refusing else None for mode in EVERY_MODE})


def judge(refusals: dict, per_mode: dict, backend: str = "python"):
    """(category, signature, detail) of a program whose refusals are required: "refused"
    when every mode that must refuse did, naming the line, and every other mode agreed (on
    numba, or was refused because numba cannot compile a call: np.add.at, np.copyto);
    "disagreed" naming the first mode that did otherwise (a refusal at another line, an
    answer where a refusal was required, a refusal where an answer was)."""
    for mode, line in refusals.items():
        category, signature, detail = per_mode[mode]
        numba_cannot = backend == "numba" and category == "refused" \
            and "numba cannot compile" in (detail or "")
        if line is None and category not in ("agreed", "fd-noise") and not numba_cannot:
            return "disagreed", f"{mode}: effect call on constants or forward np.add.at: " \
                f"{category} ({signature})", detail
        named = re.match(r"^\S*?:(\d+):", detail or "")
        if line is not None and (category != "refused" or not named
                                 or int(named.group(1)) != line):
            got = f"line {named.group(1)}" if named else category
            return "disagreed", f"{mode}: effect call on derivative values: a refusal " \
                f"naming line {line} required, got {got} ({signature})", detail
    if any(line is not None for line in refusals.values()):
        return "refused", "effect call on derivative values, refused by line as required", ""
    return "agreed", None, ""
