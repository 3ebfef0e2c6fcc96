"""Seeded random programs with independent loops longer than a block (`--parallel-blocks`):
`f(y, x, a)` fills `y` in a loop the python backend's forward code runs a block of
iterations at a time (srcad/transform/parallel_blocks.py; the program sets `LIFT_BLOCK = 4`,
which fuzz/checking.py makes the block size while the program is checked):

* 5 to 14 iterations over range(n), range(1, n), range(n - 1) or range(1, n - 1): one to
  four blocks, the last one partial;
* neighbours read through slices of the block (`x[i - 1]`, `x[i + 1]`) and stacked lanes
  read without the loop variable (`x_dot[:, 0]` through `x[0]`);
* a branch not taken taking the square root of a negative number in some blocks (those
  blocks run as the loop, the next blocks go on lifted);
* a name read after the loop (its last iteration's value).

Stacked lanes are checked against one forward call per lane (`STACKED_LANES = True`).
`generate(seed)` draws from `random.Random(f"parallel blocks {seed}")`, a stream of its own,
so the other grammars' seeds keep their programs.
"""

from __future__ import annotations

import random

from grammar_parallel_loops import _value
from grammar_recursion import HEADER, _c
from program import ArgKind, Program


def generate(seed: int) -> Program:
    rng = random.Random(f"parallel blocks {seed}")
    n = rng.randint(5, 14)
    low, high = rng.choice([(0, 0), (1, 0), (0, 1), (1, 1)])
    bounds = (f"{low}, " if low else "") + (f"{n} - {high}" if high else f"{n}")
    reads = ["i"] + (["i - 1"] if low else []) + (["i + 1"] if high else [])
    lines = ["def f(y, x, a):", "    t = 0.0", f"    for i in range({bounds}):",
             f"        u = x[{rng.choice(reads)}] * a",
             f"        v = x[{rng.choice(reads)}] + x[0] * {_c(rng)}"]
    names = ["u", "v", "a"]
    for k in range(rng.randint(1, 2)):
        lines.append(f"        w{k} = {_value(rng, names)}")
        names.append(f"w{k}")
    if rng.random() < 0.6:
        s, edge = rng.choice(names[:2]), round(rng.uniform(0.1, 0.6), 2)
        lines += [f"        if abs({s}) > {edge}:",
                  f"            q = math.sqrt(abs({s}) - {edge}) * {_c(rng)}",
                  "        else:",
                  f"            q = {s} * {_c(rng)}"]
        names.append("q")
    lines.append(f"        y[i{' - 1' if low and rng.random() < 0.5 else ''}] = "
                 f"{_value(rng, names)}")
    if rng.random() < 0.5:
        lines.append(f"        t = {rng.choice(names)}")
    lines.append("    y[n_last] = y[n_last] + t".replace("n_last", str(n - 1)))
    text = "\n".join(lines) + "\n"
    args = [ArgKind("dup", "y", (n,)), ArgKind("dup", "x", (n,)), ArgKind("active", "a")]
    return Program(seed, HEADER + "\nSTACKED_LANES = True\nLIFT_BLOCK = 4\n\n\n" + text, "f",
                   args, False)
