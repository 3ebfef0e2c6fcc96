"""Programs that write through views (`run.py --views`, `generate(seed, views=True)`):
`f(X, w, a)` with `X` an (r, c) matrix and `w` a (c,) vector (Duplicated float arrays) and `a`
an Active float. The body copies X into a work array `A` and runs three to five blocks, each
writing `A` through a view of it, as NumPy programs do
(docs/arrays.md, transform/normalize/views.py):

* a row bound to a name in a loop and written element by element (`v = A[i]; v[k] = ...`),
  or updated as a whole (`v += w * a`, `v[:] = np.sin(v) * w`);
* a column (`col = A[:, j]`), a block (`blk = A[lo:lo + 2, 0:2]`), every other row
  (`ev = A[::2]`), a view of a view (`r = A[i]; t = r[1:]`);
* a row passed to a helper that writes it (`_update(A[i], A[i - 1], a)`);
* the rows of `for row in A` written, and an alias `out = A` written and then rebound to a
  second work array that is written too.

Each block's view has its own name; a view bound at the top level is sometimes read again in
the return value, after later blocks have written `A` through other views (it sees their
writes). Every expression is smooth (sin, tanh, products), so `check_grads` applies.
"""

from __future__ import annotations

import random

from program import PRELUDE, ArgKind, Program

HELPER = """

def _update(out, v, s):
    # writes the row it is given
    for k in range(len(out)):
        out[k] = math.tanh(out[k] * s + v[k])
"""

ELEMENT = ["math.sin({x}) * {y}", "{x} * {y} + a", "math.tanh({x} + {y} * a)",
           "{x} * {x} * 0.5 + {y}", "{x} * a - math.cos({y})"]


def _element(rng, x, y):
    return rng.choice(ELEMENT).format(x=x, y=y)


def _blocks(rng, r, c):
    """Each block: (lines, a top-level view name the return may read, or None)."""
    i0, j0 = rng.randrange(r), rng.randrange(c)

    def row_loop(n):
        return ["for i in range(len(A)):", f"    v{n} = A[i]", f"    for k in range({c}):",
                f"        v{n}[k] = {_element(rng, f'v{n}[k]', 'w[k]')}"], None

    def row_whole(n):
        update = rng.choice([f"v{n} += w * a", f"v{n}[:] = np.sin(v{n}) * w",
                             f"v{n} *= 0.5 + a * a"])
        return [f"v{n} = A[{i0}]", update], f"v{n}"

    def column(n):
        return [f"col{n} = A[:, {j0}]", f"for i in range(1, {r}):",
                f"    col{n}[i] = {_element(rng, f'col{n}[i]', f'col{n}[i - 1]')}"], f"col{n}"

    def block(n):
        lo = rng.randrange(r - 1)
        return [f"blk{n} = A[{lo}:{lo + 2}, 0:2]", "for p in range(2):",
                "    for q in range(2):",
                f"        blk{n}[p, q] = {_element(rng, f'blk{n}[p, q]', 'w[p + q]')}"], f"blk{n}"

    def strided(n):
        return [f"ev{n} = A[::2]", f"for p in range(ev{n}.shape[0]):",
                f"    ev{n}[p, {j0}] = {_element(rng, f'ev{n}[p, {j0}]', f'w[{j0}]')}"], \
            f"ev{n}"

    def nested(n):
        return [f"r{n} = A[{i0}]", f"t{n} = r{n}[1:]", f"for k in range({c - 1}):",
                f"    t{n}[k] = {_element(rng, f't{n}[k]', f'r{n}[0]')}"], f"t{n}"

    def helper(n):
        return ["for i in range(1, len(A)):", "    _update(A[i], A[i - 1], a)"], None

    def rows(n):
        return [f"for row{n} in A:", f"    row{n}[0] = {_element(rng, f'row{n}[-1]', 'a')}"], \
            None

    def alias(n):
        return [f"out{n} = A", f"out{n}[{i0}, {j0}] = {_element(rng, f'out{n}[{i0}, 0]', 'a')}",
                f"B{n} = np.zeros({c})", f"out{n} = B{n}", f"for k in range({c}):",
                f"    out{n}[k] = {_element(rng, f'A[{i0}, k]', 'w[k]')}",
                f"s = s + np.sum(B{n} * w)"], None

    return [row_loop, row_whole, column, block, strided, nested, helper, rows, alias]


def _chained(rng, r, c) -> list:
    """A write into a view made in the target itself (`--shapes chained-targets`): srcad
    composes it into one index of A (srcad/transform/normalize/sliced_elements.py)."""
    i, j = rng.randrange(r), rng.randrange(c)
    return rng.choice([
        [f"A[{i}][1:] = {_element(rng, f'A[{i}][1:]', 'w[1:]').replace('math.', 'np.')}"],
        [f"A[{i}][:] += w * a"],
        [f"for i in range({r}):", f"    A[i][{j}:] = A[i][{j}:] * a + w[{j}:]"],
        [f"A[:, {j}][1:] = A[:, {j}][:-1] * a"],
        [f"for i in range(1, {r}):", "    A[i][:2] -= A[i - 1][:2] * (0.5 * a)"],
    ])


def generate(seed: int, chained: bool = False) -> Program:
    """The program of `seed`; `chained` inserts one to two writes into views made in the
    target (`_chained`), drawn from a random stream of their own, so the rest of the
    program is the seed's program without them."""
    rng = random.Random(seed)
    r, c = rng.randint(3, 5), rng.randint(3, 5)
    lines = ["def f(X, w, a):", "    A = X.copy()", "    s = 0.0"]
    readable = []
    kinds = _blocks(rng, r, c)
    bodies = []
    for n in range(rng.randint(3, 5)):
        body, view = rng.choice(kinds)(n)
        bodies.append(body)
        if view is not None and rng.random() < 0.5:
            readable.append(view)
    if chained:
        extra = random.Random(f"chained targets {seed}")
        for _ in range(extra.randint(1, 2)):
            bodies.insert(extra.randint(0, len(bodies)), _chained(extra, r, c))
    for body in bodies:
        lines += ["    " + line for line in body]
    reads = "".join(f" + np.sum({v} * {v})" for v in readable)
    lines.append(f"    return s + np.sum(A * A){reads}")
    args = [ArgKind("dup", "X", (r, c)), ArgKind("dup", "w", (c,)), ArgKind("active", "a")]
    return Program(seed, PRELUDE + HELPER + "\n\n" + "\n".join(lines) + "\n", "f", args, True)
