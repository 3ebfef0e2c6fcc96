"""Seeded random programs with independent loops nested in loops and holding loops
(`--parallel-nests`): `f(y, x, a)` in the shape of a skinned mesh, the forward code of which
the python backend runs a loop at a time on all its iterations (srcad/transform/
parallel_loops.py):

* a loop over "bones" accumulating (`acc[r, v] += ...`: it stays a loop) around an
  independent loop over vertices, or the vertex loop at the top;
* inner loops over constant ranges: an inner product carried from pass to pass
  (`s += w[k] * x[(v + k) % n]`), an `if` inside them, `acc[r, v] = ...` or `+= ...`;
* a last loop writing `y[R * v + j]` for `j` in range(R) (sometimes range(R + 1), whose
  passes collide with the next vertex's: it must stay a loop, `y` read back);
* sometimes a value carried from one vertex to the next, or set only in an inner loop and
  read after the loop: those loops must stay loops.

The module sets `STACKED_LANES = True`: besides the usual modes, every Duplicated array gets
lanes stacked in NumPy vectors, checked against one forward call per lane
(fuzz/stacked_check.py), with as many lanes as vertices half the time.

`generate(seed)` draws from `random.Random(f"parallel nests {seed}")`, a stream of its own,
so the other grammars' seeds keep their programs.
"""

from __future__ import annotations

import random

from grammar_recursion import HEADER, _c, _smooth
from program import ArgKind, Program


def _term(rng, a, b):
    return rng.choice([f"{a} * {b}", f"{_smooth(rng, a)} * {b}", f"abs({a}) * {b}",
                       f"({a} if {b} > {_c(rng)} else {b} * {_c(rng)})",
                       f"{a} / (1.0 + {b} * {b})"])


def generate(seed: int) -> Program:
    rng = random.Random(f"parallel nests {seed}")
    n, bones, rows, depth = rng.randint(2, 5), rng.randint(1, 3), rng.randint(1, 3), \
        rng.randint(2, 4)
    weights = [[round(rng.uniform(0.1, 1.0), 2) for _ in range(n)] for _ in range(bones)]
    op = rng.choice(["+=", "="])
    carried, leaked = rng.random() < 0.12, rng.random() < 0.12
    lines = ["def f(y, x, a):", f"    w = np.array({weights})",
             f"    acc = np.zeros(({rows}, {n}))", "    c = 0.0", "    last = 1.0"]
    vertex = [f"for v in range({n}):",
              f"    for r in range({rows}):",
              f"        s = x[(v + r) % {n}] * {_c(rng)}",
              f"        for k in range({depth}):",
              f"            s += {_term(rng, f'x[(v + k) % {n}]', 'a')}"]
    if rng.random() < 0.4:
        vertex += ["            if s > 0.0:",
                   f"                s = s * {_c(rng)}",
                   "            else:",
                   f"                s = s + {_c(rng)}"]
    if leaked:
        vertex.append("            last = s")  # read after the loop: the loop stays
    if carried:
        vertex.append("        c = c * 0.5 + s")  # carried to the next vertex
    vertex.append(f"        acc[r, v] {op} s * w[b, v]" + (" + c" if carried else ""))
    if rng.random() < 0.7:
        lines.append(f"    for b in range({bones}):")
        lines += ["        " + line for line in vertex]
    else:
        vertex = [line.replace("w[b, v]", "w[0, v]") for line in vertex]
        lines += ["    " + line for line in vertex]
    span = rows + 1 if rng.random() < 0.15 else rows  # R + 1 passes over a stride of R
    lines += [f"    for v in range({n}):",
              f"        t = acc[0, v] * a + {_c(rng)}",
              f"        for j in range({span}):",
              f"            y[{rows} * v + j] = {_term(rng, 'acc[j % ' + str(rows) + ', v]', 't')}"]
    lines.append("    y[0] = y[0] * last")
    text = "\n".join(lines) + "\n"
    args = [ArgKind("dup", "y", (rows * n + 1,)), ArgKind("dup", "x", (n,)),
            ArgKind("active", "a")]
    return Program(seed, HEADER + "\nSTACKED_LANES = True\n\n\n" + text, "f", args, False)
