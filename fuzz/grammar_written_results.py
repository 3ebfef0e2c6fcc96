"""A rule's result written in place afterwards, and a rule given one operand twice (`run.py
--arrays --shapes written-results`): statements added to an array program after its own,
drawn from their own stream (`random.Random(f"written results {seed}")`), so the rest of the
program of a seed is the one it always was.

* `w = np.exp(x * a)` (or tanh, sqrt, expit, a shifted or scaled argument...), then an
  in-place write of `w`: a slice or element augmented by a constant or by `x`'s elements, the
  whole array augmented, a slice set. The adjoints of exp, sqrt, tanh and expit read their
  result: the reverse sweep must read it as it was before the write; forward mode must give
  `w` a tangent of its own (`w = x + 0.5`: not x's tangent, written through);
* `np.outer(v, v)` of one operand twice (its adjoint's shape `v_shape + v_shape` stays a
  tuple), maybe inside `np.linalg.solve(2.0 * np.eye(n) + 0.1 * np.outer(v, v), ...)`.

Each binds a float the result adds up. A mixin of `generator.Generator`.
"""

from __future__ import annotations

import random

RESULTS = ["np.exp({0})", "np.tanh({0})", "np.sqrt({0} * {0} + 1.0)",
           "scipy.special.expit({0})", "{0} + 0.5", "1.0 * {0}", "np.sin({0})",
           "np.log({0} * {0} + 1.0)", "1.0 / ({0} * {0} + 1.0)", "np.cumsum({0})"]


class WrittenResultGrammar:
    def written_result_lines(self) -> list:
        """1-2 statement groups (above), each ending in a float the result adds up."""
        rng = random.Random(f"written results {self.seed}")
        n = self.arr_scope["x"][0]

        def c():
            return repr(rng.choice([0.5, 0.25, 1.5, 2.0, 0.3, 1.2]))

        lines = []
        for _ in range(rng.randint(1, 2)):
            w, s = self.fresh("w"), self.fresh("wr")
            operand = rng.choice(["x", "x * a", "np.sin(x)", "x[::-1]", "x"])
            if rng.random() < 0.25:
                v = self.fresh("v")
                lines.append(f"{v} = {rng.choice(RESULTS).format(operand)}")
                outer = f"np.outer({v}, {v})"
                if rng.random() < 0.5:
                    lines.append(f"{s} = np.sum(np.sin({c()} * {outer}))")
                else:
                    right = rng.choice(["b[:1] * x", f"np.ones({n})"])
                    lines.append(f"{s} = np.sum(np.linalg.solve(2.0 * np.eye({n}) + 0.1 * "
                                 f"{outer}, {right}) ** 2)")
                self.arr_floats.append(s)
                continue
            lines.append(f"{w} = {rng.choice(RESULTS).format(operand)}")
            k = rng.randrange(n)
            lines += rng.choice([
                [f"{w}[1:] *= {c()}"], [f"{w}[1:] += {c()}"], [f"{w}[:-1] -= {c()}"],
                [f"{w}[{k}] *= {c()}"], [f"{w}[{k}] = {c()}"], [f"{w} *= {c()}"],
                [f"{w}[1:] *= x[:-1]"], [f"{w}[{k}] += x[{(k + 1) % n}] * a"],
                [f"{w}[:1] = {c()}"], [f"{w} += x"]])
            use = rng.choice(["np.sum({0} ** 2)", "np.sum({0} * x)", "np.sum(np.sin({0}))"])
            lines.append(f"{s} = {use.format(w)}")
            self.arr_floats.append(s)
        return lines
