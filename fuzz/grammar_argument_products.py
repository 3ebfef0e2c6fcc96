"""Matrix products of two arguments as given (`fuzz/vmap_check.py --arrays`, `generate(seed,
arrays=True, shapes={"argument-products"})`): statements added to an array program after its
own, drawn from their own stream (`random.Random(f"argument products {seed}")`), so the rest
of the program of a seed is the one it always was.

Each binds a float summed into the result from a product of the arguments `W`, `x`, `b`
themselves (`np.sum(np.tanh(W @ x))`, `np.dot(W, x)`, `b @ W`, `np.matmul(W, x)`): where vmap
maps one of the two and not the other, the reverse code's product is made for the whole batch
before the loop over the examples (srcad/build/batched_products.py); `x @ W.T` (a transpose,
not an argument as given) keeps its product in the loop. A mixin of `generator.Generator`.
"""

from __future__ import annotations

import random

FORMS = ("W @ x", "np.dot(W, x)", "b @ W", "np.matmul(W, x)", "x @ W.T")
AROUND = ("np.sum(np.tanh({p}))", "np.sum(np.sin({p}) * {p})", "np.sum({p} ** 2) * 0.5",
          "np.sum(np.tanh({p}) * b)")


class ArgumentProductGrammar:
    def argument_product_lines(self) -> list:
        """1-2 statements (above), each binding a float the result adds up (the names in
        `self.product_floats`)."""
        rng = random.Random(f"argument products {self.seed}")
        lines, self.product_floats = [], []
        for _ in range(rng.randint(1, 2)):
            s = self.fresh("prod")
            form = rng.choice(FORMS)
            around = rng.choice(AROUND)
            if "* b" in around and form in ("b @ W", "x @ W.T"):  # an (n,) product
                around = AROUND[0]
            lines.append(f"{s} = {around.format(p=f'({form})')}")
            self.product_floats.append(s)
        return lines
