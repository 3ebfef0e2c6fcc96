"""The seed problems as test fixtures (../shared/reference/seed-problems.md), with hand-derived
derivatives to check srcad against. Imported by the test modules; not a test module itself."""

import math

import numpy as np


def seed002(y, x, c):
    """Writes y in place; c is scratch storage whose content on entry does not matter."""
    for i in range(len(x)):
        c[i] = x[i]
    c[0] = 0.0
    c[len(c) - 1] = 0.0
    for i in range(1, len(c) - 1):
        c[i] = math.exp(c[i]) - math.cos(c[i - 1])
    for i in range(len(y)):
        y[i] = 2.0 * c[i] + 1.0


def seed002_value_and_jacobian(x):
    """c_i = exp(x_i) - cos(c_{i-1}) (1 <= i <= n-2), c_0 = c_{n-1} = 0, y = 2c + 1, so
    dc_i = exp(x_i) e_i + sin(c_{i-1}) dc_{i-1}."""
    n = len(x)
    c, dc = np.zeros(n), np.zeros((n, n))
    for i in range(1, n - 1):
        c[i] = math.exp(x[i]) - math.cos(c[i - 1])
        dc[i] = math.sin(c[i - 1]) * dc[i - 1]
        dc[i, i] += math.exp(x[i])
    return 2.0 * c + 1.0, 2.0 * dc


def square(x):
    """Seed 000."""
    y = np.empty(len(x))
    for i in range(len(x)):
        y[i] = x[i] ** 2
    return y
