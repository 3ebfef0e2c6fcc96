"""Seeded random programs with nested gradients in the forms the numba kernels' rewrites
pair and merge (`--nested-forms`): srcad.grad of a helper `g(v, p)`, with

* the gradient rebinding its own operand (`v = 0.1 * srcad.grad(g)(v, p) + v`, and
  `v = srcad.grad(g)(v, p)` itself): the gradient and the tangent of the step must not share
  one call when the first statement writes what the second reads;
* two nested gradients in one expression, or of two helpers at the same operands;
* the same gradient taken twice in a row at the same operands;
* a gradient at a longer operand after one at v (the numba kernels' workspace grows inside
  one call of the outer derivative);
* an Euler loop on arrays of a constant length made in f (`np.array([...])`, `np.zeros(n)`),
  which numba's code holds as one number per element;
* a descent in a `while` loop whose step is a nested gradient, taken again where a branch
  keeps the step (numba writes it into the array its name owns, and the reverse sweep's
  adjoint resets into theirs);
* the same descent from a copy of the argument x, whose 2 to 4 elements numba's code learns
  at run time and is specialized for (srcad/build/length_specialization.py).

On numba the outer forward mode merges the tangents of every operand into one call
(srcad/operators/nested_tangent_sums.py) and a gradient with its tangent into one
(nested_gradient_pairs.py); the kernels carve their scratch arrays from one workspace
(nested_kernels.py). Everything is checked against central differences and across modes.

`generate(seed)` draws from `random.Random(f"nested forms {seed}")`, a stream of its own,
so the other grammars' seeds keep their programs. Everything is smooth in the inputs.
"""

from __future__ import annotations

import random

from grammar_nested import HEADER, _helper
from grammar_recursion import _c
from program import ArgKind, Program


def _grad(rng, name, operand, p):
    # srcad.grad only: an inner `srcad.gradient(..., mode="forward")` runs as the same
    # primitive (reverse code), whose value differs from the primal's forward-mode gradient
    # in the last bit, and the python backend's check wants the primal bit for bit
    return f"srcad.grad({name})({operand}, {p})"


def _statements(rng, names, n):
    """Lines of f's body (indented by 4) using the helpers `names`: a float `s` and an
    array `v` (both flowing from x and a) updated."""
    g = rng.choice(names)
    other = rng.choice(names)
    p = f"a * {_c(rng)} + s * {_c(rng)}"
    form = rng.randrange(6)
    if form == 0:  # the gradient rebinds its operand, in a loop
        return [f"    for k in range({rng.randint(1, 3)}):",
                f"        v = {_c(rng)} * {_grad(rng, g, 'v', p)} + v",
                "        s = s + v[0] * v[1]"]
    if form == 1:  # the operand becomes its gradient
        return [f"    v = {_grad(rng, g, 'v', p)}",
                f"    s = s + np.sum(v * v) * {_c(rng)}"]
    if form == 2:  # two gradients in one expression
        return [f"    d = {_grad(rng, g, 'v', p)} - {_c(rng)} * {_grad(rng, other, 'v', 'a')}",
                f"    s = s + d[{rng.randrange(n)}] * {_c(rng)}"]
    if form == 3:  # the same gradient twice at the same operands
        grad = _grad(rng, g, "v", "a")
        return [f"    d = {grad}",
                f"    e = {grad}",
                f"    s = s + d[0] * e[{n - 1}]"]
    if form == 5:  # a longer operand after v (the helpers read its first n entries)
        return [f"    d = {_grad(rng, g, 'v', p)}",
                f"    e = {_grad(rng, g, f'np.concatenate((v, v * {_c(rng)}))', p)}",
                f"    s = s + d[0] * e[{n - 1}] + e[{rng.randrange(n)}] * {_c(rng)}"]
    return [f"    d = {_grad(rng, g, 'v', p)}",  # a gradient, then the operand moved by it
            f"    v = v - {_c(rng)} * d",
            f"    s = s + d[0] * {_c(rng)}"]


def _small_arrays(rng, names, n):
    """An Euler loop on arrays of a constant length (literals, np.zeros), the force a nested
    gradient: on numba each element is a number of its own (srcad/transform/small_arrays.py)."""
    literal = ", ".join(f"{_c(rng)}" for _ in range(n))
    p = f"a * {_c(rng)} + s * {_c(rng)}"
    return ["    u = np.array([" + literal + "])",
            f"    u_v = np.zeros({n})",
            f"    for k in range({rng.randint(1, 4)}):",
            f"        u_a = {_c(rng)} * {_grad(rng, rng.choice(names), 'u', p)}",
            f"        u = u + {_c(rng)} * u_v",
            "        u_v = u_v + 0.1 * u_a",
            f"    s = s + u[0] * {_c(rng)} + u_v[{n - 1}] * {_c(rng)}"]


def _descent(rng, names, n):
    """A descent in a `while` loop: a step taken from a nested gradient, kept or blended
    under a branch that does not depend on the inputs (smooth), the gradient taken again
    at the kept point. On numba the gradient is written into the array its name owns and
    the reverse sweep's adjoint resets into theirs (srcad/operators/nested_result_reuse.py,
    srcad/transform/numba_array_reuse.py)."""
    g = rng.choice(names)
    p = f"a * {_c(rng)} + s * {_c(rng)}"
    return ["    w = v * 1.0",
            f"    gw = {_grad(rng, g, 'w', p)}",
            "    k = 0",
            f"    while k < {rng.randint(1, 4)}:",
            f"        w_new = w - {_c(rng)} * gw",
            f"        if k % {rng.randint(2, 3)} == 0:",
            "            w = w_new",
            f"            gw = {_grad(rng, g, 'w_new', p)}",
            "        else:",
            f"            w = w + {_c(rng)} * w_new",
            "        k = k + 1",
            f"    s = s + w[0] * {_c(rng)} + gw[{n - 1}] * {_c(rng)}"]


def _copied_start(rng, names, n):
    """The descent of `_descent` started from a copy of the argument x, whose length numba
    learns only at run time: its code is specialized for that length, the descent's arrays
    and their adjoints held as numbers (srcad/build/length_specialization.py), the reverse
    sweep's recording of them as tuples (srcad/transform/small_array_tapes.py)."""
    g = rng.choice(names)
    p = f"a * {_c(rng)} + s * {_c(rng)}"
    return ["    y = x.copy()",
            f"    gy = {_grad(rng, g, 'y', p)}",
            "    k = 0",
            f"    while k < {rng.randint(1, 4)}:",
            f"        y_new = y - {_c(rng)} * gy",
            f"        if k % {rng.randint(2, 3)} == 0:",
            "            y = y_new",
            f"            gy = {_grad(rng, g, 'y_new', p)}",
            "        else:",
            f"            y = y + {_c(rng)} * y_new",
            "        k = k + 1",
            f"    s = s + y[0] * {_c(rng)} + gy[{n - 1}] * {_c(rng)}"]


def generate(seed: int) -> Program:
    rng = random.Random(f"nested forms {seed}")
    n = rng.randint(2, 4)
    names = [f"g{k}" for k in range(rng.randint(1, 2))]
    helpers = [_helper(rng, name, n) for name in names]
    lines = ["def f(x, a):", f"    s = a * {_c(rng)}", f"    v = x * {_c(rng)}"]
    for _ in range(rng.randint(1, 3)):
        lines += _statements(rng, names, n)
    if rng.random() < 0.5:  # drawn last: the forms above keep their seeds' programs
        lines += _small_arrays(rng, names, n)
    if rng.random() < 0.5:  # drawn after: the programs above keep their seeds
        lines += _descent(rng, names, n)
    if rng.random() < 0.5:  # drawn after these too
        lines += _copied_start(rng, names, n)
    lines.append("    return s + v[0]")
    text = "\n\n\n".join("\n".join(h) for h in helpers) + "\n\n\n" + "\n".join(lines) + "\n"
    args = [ArgKind("dup", "x", (n,)), ArgKind("active", "a")]
    return Program(seed, HEADER + "\n\n" + text, "f", args, True)
