"""Writes through an index array (`run.py --arrays --shapes index-writes`): statements added to
an array program after its own, drawn from their own stream (`random.Random(f"index writes
{seed}")`), so the rest of the program of a seed is the one it always was.

* `y[idx] op= v` (op one of + - *) and `y[idx] = v`, with `idx` the program's int argument
  (a repeated index) or a local `np.array([k, j, j])`, `v` a float or a vector of idx's
  length: NumPy's semantics, the last write of a repeated index wins, `+=` does not
  accumulate;
* sometimes in a loop, so the written array is loop state.

y is a copy of an expression of x (or of a gather of it), written, then summed into a float
the result adds up. A mixin of `generator.Generator`.

`--shapes mask-writes` (its own stream, `mask writes {seed}`): writes through a 1-D mask
(`y[x > c] = v`, `y[y > c] op= v`, `y[m] = x[m] * c` with a local mask) and through an
index array into a matrix (`Y[ix] = row`, `Y[ix, j] op= v`, `Y[j, ix] = v`).
"""

from __future__ import annotations

import random

STARTS = ["np.sin(x)", "x * a", "x.copy()", "np.tanh(x) + 0.5", "x * x"]
OPS = ["+=", "-=", "*=", "="]


class IndexWriteGrammar:
    def _drawing(self, stream: str) -> tuple:
        """(the stream `{stream} {seed}`, x's length, a maker of coefficients drawn from it)."""
        rng = random.Random(f"{stream} {self.seed}")
        return rng, self.arr_scope["x"][0], lambda: repr(
            rng.choice([0.5, 0.25, 0.3, 0.2, 0.1, 0.6]))

    def index_write_lines(self) -> list:
        """1-2 groups (above), each ending in a float the result adds up."""
        rng, n, c = self._drawing("index writes")

        lines = []
        for _ in range(rng.randint(1, 2)):
            y, s = self.fresh("iy"), self.fresh("iw")
            if rng.random() < 0.5 and self.idx_max < n:
                ix, count = "idx", self.n_idx
            else:
                ix = self.fresh("ix")
                picks = [rng.randrange(n) for _ in range(2)]
                count = 3
                lines.append(f"{ix} = np.array([{picks[0]}, {picks[1]}, {picks[1]}])")
            values = rng.choice([f"x[{ix}] * {c()}", f"a * {c()}", c()] + (
                [f"np.cos(x[:{count}]) * a", f"x[{n - count}:] + {c()}"] if count <= n else []))
            op = rng.choice(OPS)
            lines.append(f"{y} = {rng.choice(STARTS)}")
            if rng.random() < 0.4:
                lines += [f"for t in range({rng.randint(1, 3)}):",
                          f"    {y}[{ix}] {op} {values}",
                          f"    {y} = {y} * {c()} + np.sin({y})"]
            else:
                lines.append(f"{y}[{ix}] {op} {values}")
            lines.append(f"{s} = np.sum({y} * {y})")
            self.arr_floats.append(s)
        return lines

    def mask_write_lines(self) -> list:
        """1-2 mask or matrix writes (`--shapes mask-writes`), each ending in a float."""
        rng, n, c = self._drawing("mask writes")

        lines = []
        for _ in range(rng.randint(1, 2)):
            y, s = self.fresh("my"), self.fresh("mw")
            kind = rng.choice(["mask", "self-mask", "local-mask", "rows", "column", "row"])
            if kind in ("rows", "column", "row"):
                ix = self.fresh("mx")
                picks = [rng.randrange(n) for _ in range(2)]
                lines += [f"{ix} = np.array([{picks[0]}, {picks[1]}, {picks[1]}])",
                          f"{y} = np.outer(x, x) * {c()} + 1.0"]
                j = rng.randrange(n)
                target = {"rows": f"{y}[{ix}]", "column": f"{y}[{ix}, {j}]",
                          "row": f"{y}[{j}, {ix}]"}[kind]
                values = {"rows": f"x * {c()}", "column": f"np.sin(x[{ix}]) * a",
                          "row": f"a * {c()}"}[kind]
                op = "=" if kind == "rows" else rng.choice(OPS)
                lines.append(f"{target} {op} {values}")
            else:
                lines.append(f"{y} = {rng.choice(STARTS)}")
                if kind == "mask":
                    lines.append(f"{y}[x > {c()}] = {rng.choice([c(), f'a * {c()}'])}")
                elif kind == "self-mask":
                    lines.append(f"{y}[{y} > {c()}] {rng.choice(OPS)} {c()}")
                else:
                    m = self.fresh("mm")
                    lines += [f"{m} = x < {c()}",
                              f"{y}[{m}] = x[{m}] * {rng.choice([c(), 'a'])}"]
            lines.append(f"{s} = np.sum({y} * {y})")
            self.arr_floats.append(s)
        return lines
