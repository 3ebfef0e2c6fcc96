"""Floats bound in branches around arrays as loop state (`run.py --arrays --shapes
branch-floats`): statements added to an array program after its own, drawn from their own
stream (`random.Random(f"branch floats {seed}")`), so the rest of the program of a seed is the
one it always was.

Double buffering (`v = np.empty_like(u)` filled from `u`, then `u = v`) in an iteration that
first binds several floats, each in one branch of an `if` on an element of `u` (`s3 = 0.0;
if u[2] > c: s3 = 2.0 * u[2]`), and adds them to every new element: the sharing analysis
(srcad/analysis/array_sharing.py) follows a configuration per way the branches can go for the
names it tracks, and must not track the floats (2**k configurations for k of them). The
branches test values away from their thresholds only by chance: a seed whose input sits on
one is a non-differentiable point like any other `if`.

A mixin of `generator.Generator`.
"""

from __future__ import annotations

import random


class BranchFloatGrammar:
    def branch_float_lines(self) -> list:
        """One double-buffered loop with 4-10 floats bound in branches; its float is added
        to the result."""
        rng = random.Random(f"branch floats {self.seed}")
        n = self.arr_scope["x"][0]
        u, v, s = self.fresh("u"), self.fresh("v"), self.fresh("bf")
        floats = [self.fresh("t") for _ in range(rng.randint(4, 10))]
        lines = [f"{u} = x * a", f"for it in range({rng.randint(1, 3)}):",
                 f"    {v} = np.empty_like({u})"]
        for k, t in enumerate(floats):
            i = k % n
            lines += [f"    {t} = {rng.choice(['0.0', '0.5', '-0.25'])}",
                      f"    if {u}[{i}] > {rng.choice(['0.0', '0.3', '-0.2'])}:",
                      f"        {t} = {rng.choice(['2.0', '0.5', '-1.5'])} * {u}[{i}]"]
        total = " + ".join(floats)
        lines += [f"    for i in range({n}):",
                  f"        {v}[i] = np.sin({u}[i]) + 0.1 * ({total})",
                  f"    {u} = {v}",
                  f"{s} = np.sum({u} * {u})"]
        self.arr_floats.append(s)
        return lines
