"""Seeded random programs with independent loops (`--parallel-loops`): `f(y, x, a)` fills
`y` in a loop whose iterations do not depend on each other, the forward code of which the
python backend runs on all iterations at once (srcad/transform/parallel_loops.py):

* element reads through index arithmetic (`x[(3 * i + 1) % n]`) and an int array (`idx[i]`);
* `math` functions and `abs`, conditional expressions, an `if` with both branches assigning
  (a branch computing a value the other does not need), a value that is zero at a point;
* one or two writes per iteration, `y[i]` or `y[2 * i]` and `y[2 * i + 1]`;
* sometimes a loop carrying a value or writing one element twice, which must stay a loop.

`generate(seed)` draws from `random.Random(f"parallel loops {seed}")`, a stream of its own,
so the other grammars' seeds keep their programs.
"""

from __future__ import annotations

import random

from grammar_recursion import HEADER, _c, _smooth
from program import ArgKind, Program


def _value(rng, names):
    a, b = rng.sample(names, 2) if len(names) > 1 else (names[0], names[0])
    return rng.choice([f"{a} * {b} * {_c(rng)}", f"{_smooth(rng, a)} + {b}",
                       f"math.sqrt({a} * {a} + {_c(rng)} ** 2) * {b}",
                       f"abs({a}) * {_c(rng)} + {b}",
                       f"({a} if {b} > {_c(rng)} else {b} * {_c(rng)})",
                       f"{a} / (1.0 + {b} * {b})"])


def generate(seed: int) -> Program:
    rng = random.Random(f"parallel loops {seed}")
    n = rng.randint(2, 5)
    pairs = rng.random() < 0.5
    m = 2 * n if pairs else n
    lines = ["def f(y, x, a):", f"    idx = np.array({[rng.randrange(n) for _ in range(n)]})",
             f"    for i in range({n}):",
             f"        u = x[{rng.choice(['i', f'(3 * i + 1) % {n}', 'idx[i]'])}] * a",
             f"        v = x[{rng.choice(['idx[i]', f'{n - 1} - i', 'i'])}] + {_c(rng)}"]
    names = ["u", "v", "a"]
    for k in range(rng.randint(1, 3)):
        lines.append(f"        w{k} = {_value(rng, names)}")
        names.append(f"w{k}")
    if rng.random() < 0.5:
        s = rng.choice(names)
        lines += [f"        if {s} * {s} != 0.0:",
                  f"            r = math.sqrt({s} * {s})",
                  f"            q = {s} / r + {_value(rng, names)}",
                  "        else:",
                  f"            q = {_value(rng, names)}"]
        names.append("q")
    dependent = rng.random() < 0.15
    if dependent:  # carried: must stay a loop
        lines.insert(2, "    carried = 0.0")
        lines.append(f"        carried = carried * {_c(rng)} + {names[-1]}")
        names.append("carried")
    if pairs:
        lines += [f"        y[2 * i] = {_value(rng, names)}",
                  f"        y[2 * i + 1] = {_value(rng, names)}"]
    else:
        lines.append(f"        y[i] = {_value(rng, names)}")
    text = "\n".join(lines) + "\n"
    args = [ArgKind("dup", "y", (m,)), ArgKind("dup", "x", (n,)), ArgKind("active", "a")]
    return Program(seed, HEADER + "\n\n" + text, "f", args, False)
