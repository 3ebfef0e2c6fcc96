"""Constructs the docs promise, written as a new user writes them: a helper's tuple and list
defaults, a view of a view written through, a comprehension of dot products over a list of
arrays, `sum` of a module-level list of floats, an int constant matrix times a float vector,
a helper taking `*args` (refused by line)."""

import numpy as np

WEIGHTS = [0.5, 1.5, -2.0]
INT_MATRIX = np.array([[1, 2, 0], [0, 1, -1]])


def poly(t, cs=(1.0, 2.0, 3.0)):
    s = 0.0
    for c in cs:
        s = s * t + c
    return s


def with_defaults(x):
    return poly(x[0]) + poly(x[1], [0.5, 1.5])


def view_of_a_view(x):
    a = x.copy()
    v = a[1:]
    t = v[1:]
    t[0] = t[0] * 3.0 + x[0]
    return np.sum(a * a)


def dot_comprehension(x):
    ys = [x * 1.0, x * 2.0, x + 1.0]
    w = np.array([0.5, -1.0, 2.0])
    zs = [np.dot(y, w) for y in ys]
    return zs[0] * zs[1] + zs[2]


def sum_of_a_global_list(x):
    return sum(WEIGHTS) * x[0] + x[1]


def int_matrix_product(x):
    y = INT_MATRIX @ x
    return y[0] * y[1]


def total(*args):
    s = 0.0
    for v in args:
        s = s + v
    return s


def calls_a_star_args_helper(x):
    return total(x[0], x[1] * x[2])
