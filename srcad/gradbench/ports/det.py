"""GradBench `det`: the determinant of an ell x ell matrix by expansion by minors, and its
gradient.

The C++ (cpp/gradbench/evals/det.hpp) recurses: `det_of_minor` expands along the minor's first
row and calls itself on each sub-minor, with linked lists of rows and columns. That form is
kept here (`det_recursive`, transliterated): srcad differentiates it activation by
activation (docs/design.md, "Recursion"), ell! leaves, each activation's gradient
recomputing its sub-minors; on the numba backend as recursive numba functions. The loop form
computes the same
expansion bottom-up: `minors[mask]` is the determinant of the minor made of the last
popcount(mask) rows and the columns in `mask`, expanded along its first row; each minor is
computed once, so it costs ell 2^ell products instead of ell!. JAX and autograd run the same
expansion level by level with gathers. The reference gradient is derived by hand:
d det(A) / dA = det(A) inv(A)^T.
"""

import numpy as np

from .common import (
    Eval,
    Implementation,
    autograd_or_unavailable,
    form_implementations,
    gradient_error,
    jax_or_unavailable,
    jax_timed,
)


def det_of_minor(a, n, m, r, c):
    r0 = r[n]
    cj = c[n]
    if m == 1:
        return a[r0 * n + cj]
    detm = 0.0
    sign = 1
    r[n] = r[r0]  # remove row r0 from every sub-minor
    cj1 = n
    for _ in range(m):
        m0j = a[r0 * n + cj]
        c[cj1] = c[cj]  # remove column cj
        dets = det_of_minor(a, n, m - 1, r, c)
        c[cj1] = cj  # restore it
        if sign > 0:
            detm = detm + m0j * dets
        else:
            detm = detm - m0j * dets
        cj1 = cj
        cj = c[cj]
        sign = -sign
    r[n] = r0
    return detm


def det_recursive(a, ell):
    r = np.zeros(ell + 1, dtype=np.int64)
    c = np.zeros(ell + 1, dtype=np.int64)
    for i in range(ell):
        r[i] = i + 1
        c[i] = i + 1
    return det_of_minor(a, ell, ell, r, c)


def det_loops(a, ell):
    size = 1 << ell
    minors = np.zeros(size)
    minors[0] = 1.0
    for mask in range(1, size):
        count = 0
        for j in range(ell):
            if (mask >> j) & 1:
                count += 1
        row = ell - count
        total = 0.0
        sign = 1.0
        for j in range(ell):
            if (mask >> j) & 1:
                total += sign * a[row * ell + j] * minors[mask ^ (1 << j)]
                sign = -sign
        minors[mask] = total
    return minors[size - 1]


def level_tables(ell):
    """Per minor size k = 1..ell: for each k-column subset (in a fixed order) and each of its
    columns j, the position of the subset without j at level k - 1, the column j and the sign."""
    masks = [[m for m in range(1 << ell) if bin(m).count("1") == k] for k in range(ell + 1)]
    position = [{m: i for i, m in enumerate(level)} for level in masks]
    tables = []
    for k in range(1, ell + 1):
        sub, col, sign = [], [], []
        for m in masks[k]:
            cols = [j for j in range(ell) if (m >> j) & 1]
            sub.append([position[k - 1][m ^ (1 << j)] for j in cols])
            col.append(cols)
            sign.append([(-1.0) ** i for i in range(k)])
        tables.append((ell - k, np.array(sub), np.array(col), np.array(sign)))
    return tables


def det_levels(xp, a, ell, tables):
    """The bottom-up expansion with whole-array gathers (xp: numpy, jax.numpy, autograd.numpy)."""
    A = xp.reshape(a, (ell, ell))
    minors = xp.ones(1)
    for row, sub, col, sign in tables:
        minors = xp.sum(sign * A[row][col] * minors[sub], axis=1)
    return minors[0]


class Problem:
    def __init__(self, data):
        self.a = np.array(data["A"], dtype=float)
        self.ell = int(data["ell"])


def generate(ell, seed=31337):
    rng = np.random.RandomState(seed)
    return {"A": rng.rand(ell * ell).tolist(), "ell": ell}


def reference_primal(p):
    return float(np.linalg.det(p.a.reshape(p.ell, p.ell)))


def reference_gradient(p):
    m = p.a.reshape(p.ell, p.ell)
    return (np.linalg.det(m) * np.linalg.inv(m).T).ravel()


FORMS = {"loops": det_loops, "recursive": det_recursive}


_build = form_implementations("primal", "gradient", FORMS, lambda p, form: ((p.a,), (p.ell,)))


def _jax(p):
    jax = jax_or_unavailable()
    import jax.numpy as jnp

    tables = level_tables(p.ell)
    g = jax.jit(jax.grad(lambda a: det_levels(jnp, a, p.ell, tables)))
    return jax_timed(jax, g, p.a)


def _autograd(p):
    autograd = autograd_or_unavailable()
    import autograd.numpy as anp

    tables = level_tables(p.ell)
    g = autograd.grad(lambda a: det_levels(anp, a, p.ell, tables))
    return lambda: g(p.a)


EVAL = Eval(
    name="det",
    primal="primal",
    derivative="gradient",
    sizes={"small": {"ell": 4}, "quick": {"ell": 7}, "default": {"ell": 9}},
    generate=generate,
    parse=Problem,
    reference={"primal": reference_primal, "gradient": reference_gradient},
    to_json={"primal": float, "gradient": lambda g: np.asarray(g).tolist()},
    fd_check=lambda p: gradient_error(lambda: reference_primal(p), (p.a,), reference_gradient(p)),
    implementations=(
        _build("primal", "loops"),
        _build("primal", "recursive"),
        _build("python", "loops"),
        _build("numba", "loops"),
        _build("python", "recursive"),
        _build("numba", "recursive"),
        Implementation("gradient", "jax", "levels", _jax),
        Implementation("gradient", "autograd", "levels", _autograd),
    ),
    rtol=1e-7,
)
