"""Tuple and list literals passed to NumPy functions and library calls (`run.py --arrays
--shapes literal-arguments`; srcad/transform/normalize/literal_arguments.py): statements
added to an array program after its own, drawn from their own stream (`random.Random(f"literal
arguments {seed}")`), so the rest of the program of a seed is the one it always was.

Each binds a float summed into the result: a reduction, norm or product of a literal of
floats (`np.mean((x[0] * a, np.sin(x[1]), 0.5))`, `np.linalg.norm([x[0], a])`), of arrays of
one shape (`np.mean((x, np.sin(x)), axis=0)`), both operands of `np.dot` written out, an
elementwise call on a literal (`np.maximum([x * a, x ** 2], 0.3)`), the tuple or the list
form at random; and, rarely, a call srcad has no rule for on a literal (`np.nanstd((...))`,
`np.nanquantile([...], 0.5)`), which must be refused, never differentiated as 0. A mixin of
`generator.Generator`.
"""

from __future__ import annotations

import random

# calls without a rule (np.std, np.var, np.median, np.ptp, math.fsum and math.prod have one
# now); as many as before, so that a seed draws the same place in the list
NO_RULE = ["np.nanstd({0})", "np.nanvar({0})", "np.nanmedian({0})", "np.nanprod({0})",
           "np.nanquantile({0}, 0.5)", "np.nanpercentile({0}, 50.0)"]


class LiteralArgumentGrammar:
    def literal_argument_lines(self) -> list:
        """1-3 statements (above), each binding a float the result adds up."""
        rng = random.Random(f"literal arguments {self.seed}")
        n = self.arr_scope["x"][0]

        def c():
            return repr(rng.choice([0.5, 0.25, 1.5, 2.0, 0.3, 1.2]))

        def element():
            i = rng.randrange(n)
            return rng.choice([f"x[{i}] * a", f"np.sin(x[{i}])", f"x[{i}] ** 2", "a", c(),
                               f"b[{rng.randrange(self.arr_scope['b'][0])}] * {c()}"])

        def literal(items):
            text = ", ".join(items)
            return f"({text},)" if len(items) == 1 else f"({text})" \
                if rng.random() < 0.5 else f"[{text}]"

        def floats():
            return literal([element() for _ in range(rng.randint(1, 4))])

        def arrays():
            return literal([rng.choice(["x", "x * a", "np.sin(x)", "x ** 2", f"x * {c()}"])
                            for _ in range(rng.randint(2, 3))])

        lines = []
        for _ in range(rng.randint(1, 3)):
            s = self.fresh("lit")
            form = rng.choice(["mean", "norm", "sum", "max", "dot", "axis", "elementwise",
                               "no rule"] + ["mean", "norm"])
            if form == "no rule" and rng.random() < 0.5:
                form = "sum"  # rarely: a refusal sets the whole program aside
            if form in ("mean", "norm", "sum", "max"):
                call = {"mean": "np.mean", "norm": "np.linalg.norm", "sum": "np.sum",
                        "max": "np.max"}[form]
                value = f"{call}({floats()})"
            elif form == "dot":
                k = rng.randint(1, 3)
                value = f"np.dot({literal([element() for _ in range(k)])}, " \
                        f"{literal([element() for _ in range(k)])})"
            elif form == "axis":
                value = f"np.sum(np.mean({arrays()}, axis=0) * {c()})"
            elif form == "elementwise":
                value = f"np.sum(np.{rng.choice(['maximum', 'minimum'])}({arrays()}, {c()}))"
            else:
                value = rng.choice(NO_RULE).format(floats())
            lines.append(f"{s} = {value}")
            self.arr_floats.append(s)
        return lines
