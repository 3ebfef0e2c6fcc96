"""Array locals whose shape changes from one loop iteration to the next (`run.py --arrays`):
a slice whose length depends on the loop index, bound to a local in the loop body and summed
into a float (`w = np.sin(x[0:t + 1]) * a`, `w = x[t:] * x[t]`, `w = b[:m - t] ** 2`),
sometimes read by a second local of the same changing shape. The reverse sweep resets each
such local's adjoint to the shape of the previous iteration's value
(srcad/transform/reverse/loop_shapes.py). A mixin of `generator.Generator`.

With `--arrays --shapes widened` (`widened_carried_loop`), each array program ends with a loop
carrying an array that broadcasting widens: `y = x[:1] * a` (1,) or `y = W[:1] * a` (1, n),
then `y = y + x * c`, `y = np.maximum(y, x) * c`, ... in the loop (in the first iteration, or
the second through a second carried array), read by locals summed into a float, the binding
before or after the reads, in a `for` or a counted `while`; a fifth start at the full shape
(nothing widens: reverse mode's in-place path). It draws from its own stream,
`random.Random(f"widened {seed}")`, so the rest of the program is the one the seed gave.
"""

from __future__ import annotations

import random

from scopes import indent

SLICES = ["{v}[0:{t} + 1]", "{v}[{t}:]", "{v}[:{n} - {t}]", "{v}[{t} // 2:{t} + 1]"]
FORMS = ["np.sin({s}) * {k}", "{s} * {v}[{t}]", "np.tanh({s} + {k})", "({s}) ** 2 * {k}"]


class LoopShapeGrammar:
    def varying_slice_loop(self, depth):
        """`sK = 0.0; for tK in range(n): wK = f(v[0:tK + 1]); sK += np.sum(...)`."""
        rng = self.rng
        vectors = [name for name, s in self.arr_scope.items() if len(s) == 1 and s[0] >= 2]
        if not vectors:
            return self.new_float(depth)
        v = rng.choice(vectors)
        n = self.arr_scope[v][0]
        s, w, t = self.fresh("s"), self.fresh("w"), self.fresh("t")
        part = rng.choice(SLICES).format(v=v, t=t, n=n)
        body = [f"{w} = " + rng.choice(FORMS).format(s=part, v=v, t=t, k=self._scalar_leaf())]
        read = w
        if self.chance(0.4):  # a second local of the same changing shape
            u = self.fresh("w")
            body.append(f"{u} = np.exp(np.sin({w})) * {v}[{t}] + {w}")
            read = u
        body.append(f"{s} += np.sum({read} * {w}) * {self.const()}")
        self.arr_floats.append(s)
        return [f"{s} = 0.0", f"for {t} in range({rng.randint(1, n)}):"] + indent(body)

    def widened_carried_loop(self) -> list:
        """A loop carrying an array that its binding may widen (above); its sum joins the
        floats the result adds up."""
        rng = random.Random(f"widened {self.seed}")
        two_d = rng.random() < 0.3
        wide, start = ("W", "W[:1]") if two_d else ("x", "x[:1]")
        if rng.random() < 0.2:  # already at its full shape: nothing widens
            start = "W[:]" if two_d else "x[:]"
        y, s, w = self.fresh("y"), self.fresh("s"), self.fresh("w")
        k, c = rng.choice(["a", "0.5", "1.5"]), rng.choice(["0.1", "0.3", "a * 0.2"])
        lines = [f"{y} = {start} * {k}", f"{s} = 0.0"]
        partner = wide
        if rng.random() < 0.3:  # widened in the second iteration, through a second array
            partner = self.fresh("z")
            lines.append(f"{partner} = {start} * 2.0")
        binding = rng.choice([f"{y} = {y} + {partner} * {c}",
                              f"{y} = np.maximum({y}, {partner}) * 0.9",
                              f"{y} = {y} * 0.8 + np.sin({partner}) * {c}",
                              f"{y} = np.tanh({y} + {partner} * {c})"])
        reads = [f"{w} = " + rng.choice(["np.sin({0}) * ({0} + 1.0)", "np.tanh({0}) * a",
                                         "{0} * {0} * 0.5", "np.exp(np.sin({0})) * {0}"]
                                        ).format(y),
                 f"{s} += np.sum({w} * {w}) * {rng.choice(['0.5', '0.25', '1.0'])}"]
        body = reads + [binding] if rng.random() < 0.7 else [binding] + reads
        if partner != wide:
            body.append(f"{partner} = {partner} + {wide} * 0.1")
        trips = rng.randint(1, 4)
        if rng.random() < 0.3:
            i = self.fresh("i")
            loop = [f"{i} = 0", f"while {i} < {trips}:"] + indent(body + [f"{i} += 1"])
        else:
            loop = [f"for {self.fresh('t')} in range({trips}):"] + indent(body)
        self.arr_floats.append(s)
        return lines + loop + [f"{s} += np.sum({y}) * 0.3"]
