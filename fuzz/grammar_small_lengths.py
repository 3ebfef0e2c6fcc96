"""Seeded random programs over short vectors whose length is known only at run time
(`python fuzz/small_lengths.py`): `f(x, w, A, a)` with `x` and `w` vectors of one length n,
`A` an (n, n) matrix and `a` a float, written for any n (`len(x)`, `x[-1]`, `np.eye(len(x))`),
so that one program runs at n = 1 .. 5. On the numba backend a float vector of at most 4
elements gets code made for its length (srcad/build/length_specialization.py: the arrays made
from it held as numbers, srcad/transform/small_arrays.py; nested gradients in kernels made for
the operands' lengths, srcad/operators/nested_number_kernels.py), a longer one the general
code. The statements are the forms those paths rewrite, and the ones srcad's own BLAS and
LAPACK calls take (srcad/runtime/numba_blas.py, numba_lapack.py):

* copies and elementwise arithmetic of the vectors (`y = x.copy()`, `y = np.sin(y) * w + a`,
  reversed views `y[::-1]`), element updates of a vector of its own (`y[0] += a * y[-1]`);
* matrix products with `A`, `A.T`, a column view `A[:, ::-1]` and vectors on either side
  (`A @ y`, `y @ A.T`, `np.dot(A, y)`), and a product added into an array that is one of its
  operands (`T = np.outer(y, w); T += T @ A`, `T += T.T @ T`);
* `np.linalg.solve` of a diagonally dominant matrix (`A + 3 I`, its transpose, its product
  with a vector's outer square) for a vector and for a matrix;
* a nested gradient `srcad.grad(g)(y, w)` of a helper, once or as the step of a descent;
* a running `max` or `min` over a vector's entries in a loop (numba keeps it in 4 lanes,
  srcad/transform/numba_extremum_lanes.py) and a loop adding products into a float.

The result is a float. `generate(seed)` draws from `random.Random(f"small lengths {seed}")`;
`layout(seed)` how the matrix argument is passed (C, F, transposed, strided view).
"""

from __future__ import annotations

import random

HEADER = "import math\n\nimport numpy as np\n\nimport srcad\n\n\n"

HELPERS = [  # g(p, q): smooth in both arguments, any length
    "def g(p, q):\n    return np.sum((p - q) ** 2 * (1.0 + 0.1 * p)) + p[0] * q[-1]\n",
    "def g(p, q):\n    return np.sum(np.sin(p) * q) + 0.5 * np.dot(p, p)\n",
    "def g(p, q):\n    s = 0.0\n    for i in range(len(p)):\n"
    "        s += (p[i] - 0.5 * q[i]) ** 2 + 0.1 * p[i] * p[0]\n    return s\n",
    "def g(p, q):\n    r = p * q + 0.2\n    return np.sum(r * r) + np.tanh(p[-1])\n",
]
LAYOUTS = ("C", "F", "transposed", "strided")


class SmallLengths:
    def __init__(self, seed: int):
        self.rng = random.Random(f"small lengths {seed}")
        self.vectors = ["x", "w"]
        self.own = []  # vectors bound to arrays of their own (element writes allowed)
        self.lines = []
        self.count = 0
        self.nested = False

    def fresh(self, prefix="v"):
        self.count += 1
        return f"{prefix}{self.count}"

    def c(self):
        return f"{self.rng.choice([0.3, 0.5, 0.7, 1.1, -0.4, 0.25])}"

    # -- expressions ----------------------------------------------------------------------

    def vec(self, depth=2) -> str:
        """An expression of a vector of length n."""
        rng = self.rng
        leaf = rng.choice(self.vectors)
        if depth <= 0 or rng.random() < 0.25:
            return rng.choice([leaf, leaf, f"{leaf}[::-1]"])
        e, e2 = self.vec(depth - 1), self.vec(depth - 1)
        return "(" + rng.choice([
            f"np.sin({e})", f"np.tanh({e}) * {self.c()}", f"{e} * {e2}",
            f"{e} + {self.c()} * {e2}", f"a * {e}", f"{e} / (1.5 + {e2} * {e2})",
            f"np.exp(0.3 * {e})", f"A @ {e}", f"A.T @ {e}", f"{e} @ A", f"np.dot(A, {e})",
            f"{e} @ A.T", f"A[:, ::-1] @ {e}", f"np.outer({e}, {e2}) @ {leaf}",
            f"np.linalg.solve(A + 3.0 * np.eye(len(x)), {e})",
            f"np.linalg.solve(A.T + 3.0 * np.eye(len(x)), {e})",
            f"np.linalg.solve(np.outer({e}, {e}) + 2.0 * np.eye(len(x)), {e2})",
            f"srcad.grad(g)({e}, {e2})" if self.nested else f"{e} - {e2}",
        ]) + ")"

    def num(self) -> str:
        """A float expression."""
        rng = self.rng
        v, u, v2 = rng.choice(self.vectors), rng.choice(self.vectors), self.vec(1)
        return "(" + rng.choice([
            f"np.sum({v2})", f"np.dot({v}, {v2})", f"{v} @ {v2}", f"{v}[0] * {u}[-1]",
            f"{v}[len(x) - 1]", f"np.sum({v} * {v})", f"math.sin({v}[-1])",
            f"np.sum(np.linalg.solve(A + 3.0 * np.eye(len(x)), np.outer({v}, {v2})))",
            f"{v} @ A @ {v2}",
        ]) + ")"

    # -- statements -----------------------------------------------------------------------

    def statement(self):
        rng = self.rng
        kind = rng.choice(["bind", "bind", "copy", "write", "product_into", "solve_matrix",
                           "extremum", "loop_sum", "descent" if self.nested else "bind"])
        name = self.fresh()
        if kind == "bind":
            self.lines.append(f"{name} = {self.vec()}")
            self.vectors.append(name)
            if not any(f"{name} = {v}" == self.lines[-1] for v in self.vectors):
                self.own.append(name)
        elif kind == "copy":
            self.lines.append(f"{name} = {rng.choice(self.vectors)}.copy()")
            self.vectors.append(name)
            self.own.append(name)
        elif kind == "write" and self.own:
            v = rng.choice(self.own)
            op = rng.choice(["+=", "-=", "*=", "="])
            i, j = rng.choice(["0", "-1", "len(x) - 1"]), rng.choice(["0", "-1"])
            value = rng.choice([f"a * {v}[{j}]", f"0.5 * {rng.choice(self.vectors)}[{j}]",
                                f"np.sum({self.vec(1)}) * 0.3"])
            if op == "*=":
                value = f"(1.0 + 0.2 * math.sin({value}))"
            self.lines.append(f"{v}[{i}] {op} {value}")
        elif kind == "product_into":
            u, t = rng.choice(self.vectors), rng.choice(self.vectors)
            self.lines.append(f"{name} = np.outer({u}, {t})")
            self.lines.append(f"{name} += " + rng.choice(
                [f"{name} @ A", f"A @ {name}", f"{name}.T @ {name}", f"{name} @ {name}",
                 f"{name} @ A.T", f"np.outer({u}, A @ {t})"]) + f" * {self.c()}")
            self.result_terms.append(f"np.sum({name} * {rng.choice(['A', name + '.T', name])})")
        elif kind == "solve_matrix":
            u = rng.choice(self.vectors)
            self.lines.append(f"{name} = np.linalg.solve(A @ A.T + 2.0 * np.eye(len(x)), "
                              f"np.outer({u}, {self.vec(1)}){rng.choice(['', '.T', '[:, ::-1]'])})")
            self.result_terms.append(f"np.sum(np.sin({name}))")
        elif kind == "extremum":
            v = rng.choice(self.vectors)
            op = rng.choice(["max", "min"])
            self.lines.append(f"{name} = {v}[0]")
            start = rng.choice(["1, ", ""])
            self.lines.append(f"for i in range({start}len(x)):")
            self.lines.append(f"    {name} = {op}({name}, {v}[i] * {self.c()})")
            self.result_terms.append(f"{name} * {rng.choice(self.vectors)}[0]")
        elif kind == "loop_sum":
            v, u = rng.choice(self.vectors), rng.choice(self.vectors)
            self.lines.append(f"{name} = 0.0")
            self.lines.append("for i in range(len(x)):")
            self.lines.append(f"    {name} += {v}[i] * {u}[i] + 0.1 * {v}[i] ** 2")
            self.result_terms.append(name)
        elif kind == "descent":
            start = rng.choice(self.vectors)
            self.lines.append(f"{name} = {start}.copy()")
            self.lines.append(f"for k in range({rng.randint(1, 3)}):")
            self.lines.append(f"    {name} = {name} - 0.1 * srcad.grad(g)({name}, "
                              f"{rng.choice(['w', 'x'])})")
            self.vectors.append(name)
        else:
            self.lines.append(f"{name} = {self.vec()}")
            self.vectors.append(name)

    def program(self) -> str:
        rng = self.rng
        self.nested = rng.random() < 0.4
        self.result_terms = []
        for _ in range(rng.randint(2, 5)):
            self.statement()
        terms = self.result_terms + [self.num() for _ in range(rng.randint(1, 2))]
        body = "\n".join("    " + line for line in self.lines)
        helper = rng.choice(HELPERS) + "\n\n" if self.nested else ""
        return (HEADER + helper + "def f(x, w, A, a):\n" + body + "\n    return "
                + " + ".join(terms) + "\n")


def generate(seed: int) -> str:
    """The source of program `seed`: a module defining `f(x, w, A, a)` (and `g`)."""
    return SmallLengths(seed).program()


def layout(seed: int) -> str:
    """How program `seed` passes its matrix A: C, F, transposed (a C array's `.T`) or a
    strided view (every other row of a taller array)."""
    return random.Random(f"small lengths layout {seed}").choice(LAYOUTS)
