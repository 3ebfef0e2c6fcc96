"""Operators with preparation: seeds 002 and 000, and a Hessian-vector product.

Run with ``.venv/bin/python examples/operators.py``.
"""

import math
import time

import numpy as np

import srcad
from srcad import Cache, Constant, Output


def f(y, x, c):
    """Seed 002: writes y in place; c is scratch storage whose content on entry does not
    matter."""
    for i in range(len(x)):
        c[i] = x[i]
    c[0] = 0.0
    c[len(c) - 1] = 0.0
    for i in range(1, len(c) - 1):
        c[i] = math.exp(c[i]) - math.cos(c[i - 1])
    for i in range(len(y)):
        y[i] = 2.0 * c[i] + 1.0


def square(x):
    """Seed 000."""
    y = np.empty(len(x))
    for i in range(len(x)):
        y[i] = x[i] ** 2
    return y


def energy(x, k):
    """A float-valued function for the hvp: sum_i k_i (x_{i+1} - x_i)^2 + sum_i x_i^4 / 4."""
    s = 0.0
    for i in range(len(x) - 1):
        s += k[i] * (x[i + 1] - x[i]) ** 2
    for i in range(len(x)):
        s += 0.25 * x[i] ** 4
    return s


def seed_002():
    n = 100
    rng = np.random.default_rng(0)
    x = rng.random(n)
    y, c, J = np.zeros(n), np.zeros(n), np.zeros((n, n))
    # transform, compile, pick mode and chunk, allocate every seed and shadow: once
    prep = srcad.prepare_jacobian(f, Output(y), x, Cache(c))
    print(f"seed 002: prepared {prep.operator} in {prep.mode} mode, chunk {prep.chunk}")
    runs = 50
    start = time.perf_counter()
    for _ in range(runs):
        x[...] = rng.random(n)  # a new point, same buffers
        result = srcad.jacobian(f, Output(y), x, Cache(c), prep=prep, out=J)
        assert result is J  # filled in place
    per_call = (time.perf_counter() - start) / runs
    print(f"  {runs} prepared in-place jacobians, {per_call * 1e6:.0f} us each")
    # check the last one against central finite differences
    h, fd = 1e-6, np.zeros((n, n))
    yp, ym = np.zeros(n), np.zeros(n)
    for j in range(n):
        xp, xm = x.copy(), x.copy()
        xp[j] += h
        xm[j] -= h
        f(yp, xp, np.zeros(n))
        f(ym, xm, np.zeros(n))
        fd[:, j] = (yp - ym) / (2 * h)
    print(f"  max |J - finite differences| = {np.max(np.abs(J - fd)):.1e}")


def seed_000():
    x = np.linspace(-1.0, 1.0, 100)
    J = srcad.jacobian(square, x)
    print(f"seed 000: jacobian of square is diagonal 2x: {np.allclose(J, np.diag(2 * x))}")
    prep = srcad.prepare_jacobian(square, x)
    out = np.empty((100, 100))
    srcad.jacobian(square, x, prep=prep, out=out)
    print(f"  prepared, in place: {np.allclose(out, J)}")


def hessian_vector_product():
    n = 6
    x = np.linspace(-1.0, 1.0, n)
    k = np.linspace(1.0, 2.0, n - 1)
    v = np.ones(n)
    Hv = srcad.hvp(energy, x, Constant(k), tangent=v)
    # closed form: H = tridiagonal spring matrix + diag(3 x^2)
    H = np.diag(3 * x ** 2)
    for i in range(n - 1):
        H[i, i] += 2 * k[i]
        H[i + 1, i + 1] += 2 * k[i]
        H[i, i + 1] -= 2 * k[i]
        H[i + 1, i] -= 2 * k[i]
    print(f"hvp (forward over reverse) matches the closed form: {np.allclose(Hv, H @ v)}")
    print(f"hessian matches too: {np.allclose(srcad.hessian(energy, x, Constant(k)), H)}")


if __name__ == "__main__":
    seed_002()
    seed_000()
    hessian_vector_product()
