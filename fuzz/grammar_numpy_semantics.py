"""Where numba's arithmetic differs from NumPy's and Python's (`run.py --arrays --shapes
numpy-semantics`): each array program ends with a block of

* augmented assignments whose right side overlaps the array written, on a copy of an argument
  or on the argument itself (`y[1:] += y[:-1]`, `y[:-2] -= y[2:]`, `y += y[::-1]`,
  `Z[1:, :] += Z[:-1, :]`, `y[1:] *= y[:-1]`), once or in a loop: NumPy reads the whole right
  side first, numba's loop did not (srcad copies it: numba_arrays.unshared);
* int powers (`2 ** k`, `(k + 1) ** 3`, `k ** 2` of an int `k` from `len` or an index) in
  float expressions, and a float base to a negative int power (`2.0 ** -k`): the values
  numba's int64 powers give as Python's ints do (a negative int exponent or a power beyond
  int64 is refused at run time: tests/numba_backend/test_numba_numpy_semantics.py).

Without `--arrays` (`generate`), a program of such blocks alone; with `--shapes
numpy-semantics,int-overflow` it also adds, from a stream of its own (`random.Random(f"int
overflow {seed}")`), a term whose int power Python computes and numba's int64 cannot (`2 **
-(k + 1)`, `3 ** (k + 40)`), which numba must refuse at run time naming the line, or one
that stays within int64 (`2 ** (k + 20)`), which it must compute; and, for half the programs
(a stream `random.Random(f"int product {seed}")`), a factorial kept across statements
(`n *= j` or `n = n * j` up to 15! or 22!), which numba must compute or refuse at run time
naming the line. The block draws from its own
stream, `random.Random(f"numpy semantics {seed}")`, so the rest of the program is the one the
seed gave. A mixin of `generator.Generator`.
"""

from __future__ import annotations

import random

from program import PRELUDE, ArgKind, Program
from scopes import indent

UPDATES = ["{y}[1:] += {y}[:-1]", "{y}[:-1] += {y}[1:]", "{y}[2:] -= {y}[:-2]",
           "{y}[:-2] -= {y}[2:]", "{y} += {y}[::-1]", "{y}[1:] *= {y}[:-1] * 0.5",
           "{y}[1:] *= {y}[:-1]", "{y}[::2] += {y}[:{half}]"]
MATRIX_UPDATES = ["{Z}[1:, :] += {Z}[:-1, :]", "{Z}[:, 1:] -= {Z}[:, :-1]",
                  "{Z}[:-1] += {Z}[1:] * 0.5"]
INTS = ["len(x) - 1", "idx[0]", "len(x) // 2", "idx[-1] + 1"]
POWERS = ["2 ** {k}", "({k} + 1) ** 3", "{k} ** 2", "3 ** ({k} + 1)", "2.0 ** -{k}",
          "0.5 ** {k}"]
# int powers of a Python int (NumPy refuses an int64 to a negative power) that numba's int64
# cannot compute as Python does (refused at run time), and one within int64
OVERFLOWS = ["x[0] * 2 ** -({k} + 1)", "x[-1] * ((3 ** ({k} + 40)) % 7)",
             "x[0] * x[-1] * ((2 ** ({k} + 20)) % 5)"]


# an int product kept across statements, up to 15! (within int64) or 22! (beyond: numba
# must refuse it at run time naming the line)
PRODUCTS = ["n_product *= j_product", "n_product = n_product * j_product"]


class NumpySemanticsGrammar:
    def numpy_semantics_block(self) -> list:
        """The block above; its sums join the floats the result adds up."""
        rng = random.Random(f"numpy semantics {self.seed}")
        n = self.arr_scope["x"][0]
        lines, s = [], self.fresh("s")
        k = self.fresh("k")
        lines.append(f"{k} = {rng.choice(INTS)}")
        power = rng.choice(POWERS).format(k=k)
        y = self.fresh("y")
        source = rng.choice(["x.copy()", "np.sin(x) + 1.0", "x * 0.5"])
        lines.append(f"{y} = {source}")
        updates = [u for u in UPDATES if n >= 3 or "2]" not in u and "[2:" not in u]
        update = rng.choice(updates).format(y=y, half=(n + 1) // 2)
        if rng.random() < 0.3:
            lines += [f"for {self.fresh('t')} in range({rng.randint(1, 3)}):"] + indent([update])
        else:
            lines.append(update)
        terms = [f"np.sum({y} * {y})"]
        if rng.random() < 0.4:
            Z = self.fresh("Z")
            lines += [f"{Z} = W.copy()", rng.choice(MATRIX_UPDATES).format(Z=Z)]
            terms.append(f"np.sum({Z} * W)")
        if rng.random() < 0.2 and "b" not in self.args_rebindable:  # the argument itself
            lines.append(rng.choice(UPDATES[:2]).format(y="b"))
            terms.append("np.sum(b * b)")
        lines.append(f"{s} = ({' + '.join(terms)}) * ({power}) * 0.1 * a")
        self.arr_floats.append(s)
        return lines


def generate(seed: int, overflow: bool = False) -> Program:
    """`run.py --shapes numpy-semantics` without `--arrays`: a program `f(x, W, a, idx)` of
    such blocks alone, written with what numba compiles in every mode (elementwise
    operations, slices, np.sum), so the numba backend runs it rather than refusing it."""
    rng = random.Random(f"numpy semantics program {seed}")
    n, m = rng.randint(3, 6), rng.randint(2, 4)
    body, terms = [], []
    for b in range(rng.randint(1, 3)):
        y, k = f"y{b}", f"k{b}"
        body += [f"{k} = {rng.choice(INTS)}",
                 f"{y} = {rng.choice(['x.copy()', 'np.sin(x) + 1.0', 'x * 0.5'])}"]
        update = rng.choice(UPDATES).format(y=y, half=(n + 1) // 2)
        if rng.random() < 0.3:
            body += [f"for t{b} in range({rng.randint(1, 3)}):"] + indent([update])
        else:
            body.append(update)
        terms.append(f"np.sum({y} * {y}) * ({rng.choice(POWERS).format(k=k)}) * 0.1")
    if rng.random() < 0.5:
        body += ["Z = W.copy()", rng.choice(MATRIX_UPDATES).format(Z="Z")]
        terms.append("np.sum(Z * W)")
    if rng.random() < 0.3:  # the argument itself
        body.append(rng.choice(UPDATES[:2]).format(y="x"))
        terms.append("np.sum(x * x)")
    if overflow:  # its own stream: the program above is the one the seed gave
        terms.append(random.Random(f"int overflow {seed}").choice(OVERFLOWS).format(k="len(x)"))
        products = random.Random(f"int product {seed}")
        if products.random() < 0.5:  # a product kept across statements: a factorial
            update = products.choice(PRODUCTS)
            body += ["n_product = 1",
                     f"for j_product in range(1, len(x) + {products.choice([10, 17])}):"]
            body += indent([update])
            terms.append("x[0] * (n_product % 1000003) * 1e-6")
    body.append(f"return ({' + '.join(terms)}) * a")
    source = PRELUDE + "\n\n" + "\n".join(["def f(x, W, a, idx):"] + indent(body)) + "\n"
    args = [ArgKind("dup", "x", (n,)), ArgKind("dup", "W", (m, n)), ArgKind("active", "a"),
            ArgKind("index", "idx", value=[rng.randrange(n) for _ in range(3)])]
    return Program(seed, source, "f", args, True)
