"""Arrays as loop state (`run.py --arrays --shapes loop-state`): statements added to an array
program after its own, drawn from their own stream (`random.Random(f"loop state {seed}")`),
so the rest of the program of a seed is the one it always was.

* double buffering: `v = np.empty_like(u)` (or np.zeros_like) at the top of an iteration,
  filled from `u` element by element or by slices (a three-point stencil), then `u = v`;
  or `v` made once before the loop and the names swapped, `u, v = v, u`;
* a row kept for the next iteration: `row = out[t]; row[:] = ...prev...; prev = row`;
* an array bound to a whole-array expression, then written element by element
  (`y = np.exp(x * a); y[0] = c; for i ...: y[i] = y[i] + c * y[i - 1]`);
* a local index array (`ix = np.array([k, j, j])`) read through (`x[ix]`).

Each binds a float the result adds up. A mixin of `generator.Generator`.
"""

from __future__ import annotations

import random

STARTS = ["x * a", "x.copy()", "np.sin(x)", "x + 0.5", "np.tanh(x) * a"]
TERMS = ["np.sin({0})", "{0} * {0}", "np.tanh({0}) * a", "{0}", "np.cos({0}) * 0.5"]


class LoopStateGrammar:
    def loop_state_lines(self) -> list:
        """1-2 statement groups (above), each ending in a float the result adds up."""
        rng = random.Random(f"loop state {self.seed}")
        n = self.arr_scope["x"][0]

        def c():
            return repr(rng.choice([0.5, 0.25, 0.3, 0.2, 0.1, 0.6]))

        lines = []
        for _ in range(rng.randint(1, 2)):
            kind = rng.choice(["buffer", "buffer", "swap", "row", "written", "index"])
            s = self.fresh("ls")
            if kind in ("buffer", "swap") and n >= 3:
                lines += self._buffered(rng, c, n, kind == "swap", s)
            elif kind == "row":
                lines += self._kept_row(rng, c, n, s)
            elif kind == "written" or n < 3:
                y = self.fresh("y")
                lines += [f"{y} = {rng.choice(['np.exp', 'np.tanh', 'np.sin'])}(x * {c()})",
                          f"{y}[0] = {c()}",
                          f"for i in range(1, {n}):",
                          f"    {y}[i] = {y}[i] + {c()} * {y}[i - 1]",
                          f"{s} = np.sum({y} * {y})"]
            else:
                ix = self.fresh("ix")
                picks = [rng.randrange(n) for _ in range(3)]
                lines += [f"{ix} = np.array([{picks[0]}, {picks[1]}, {picks[1]}])",
                          f"{s} = np.sum(np.sin(x[{ix}]) * {c()})"]
            self.arr_floats.append(s)
        return lines

    def _buffered(self, rng, c, n, swap, s) -> list:
        u, v = self.fresh("u"), self.fresh("v")
        term = rng.choice(TERMS).format(f"{u}[i]")
        lines = [f"{u} = {rng.choice(STARTS)}"]
        if swap:
            lines.append(f"{v} = np.zeros_like({u})")
        lines.append(f"for it in range({rng.randint(1, 3)}):")
        if not swap:
            lines.append(f"    {v} = np.{rng.choice(['empty_like', 'zeros_like'])}({u})")
        lines += [f"    {v}[0] = {u}[0]", f"    {v}[{n - 1}] = {u}[{n - 1}] * {c()}"]
        if rng.random() < 0.5:
            lines += [f"    for i in range(1, {n - 1}):",
                      f"        {v}[i] = {c()} * ({u}[i - 1] + {u}[i + 1]) + {c()} * {term}"]
        else:
            lines.append(f"    {v}[1:-1] = {c()} * ({u}[:-2] + {u}[2:]) + {c()} * "
                         f"np.sin({u}[1:-1])")
        lines.append(f"    {u}, {v} = {v}, {u}" if swap else f"    {u} = {v}")
        lines.append(f"{s} = np.sum({u} * {u})" + (f" + np.sum({v})" if swap else ""))
        return lines

    def _kept_row(self, rng, c, n, s) -> list:
        out, prev, row = self.fresh("out"), self.fresh("prev"), self.fresh("row")
        steps = rng.randint(2, 4)
        return [f"{out} = np.zeros(({steps}, {n}))",
                f"{prev} = x * a",
                f"for t in range({steps}):",
                f"    {row} = {out}[t]",
                f"    {row}[:] = np.tanh({c()} * {prev} + x * {c()})",
                f"    {prev} = {row}",
                f"{s} = np.sum({out} * {out}) + np.sum({prev}) * {c()}"]
