"""Array locals whose shape changes from one loop iteration to the next (`run.py --arrays`):
a slice whose length depends on the loop index, bound to a local in the loop body and summed
into a float (`w = np.sin(x[0:t + 1]) * a`, `w = x[t:] * x[t]`, `w = b[:m - t] ** 2`),
sometimes read by a second local of the same changing shape. The reverse sweep resets each
such local's adjoint to the shape of the previous iteration's value
(srcad/transform/reverse/loop_shapes.py). A mixin of `generator.Generator`.
"""

from __future__ import annotations

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
