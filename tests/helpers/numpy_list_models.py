"""NumPy functions applied to lists, for tests/lists/test_numpy_lists.py (srcad reads their source
from this file)."""

import numpy as np


def literal_sum(a):
    return np.sum([1.0, a * a, 2.0]) + np.max([a, 0.5]) * np.min((a, 3.0))


def fixed_list(a):
    xs = [a, 2.0 * a, 1.0]
    return np.sum(xs) * np.max(xs) + np.min(xs)


def fixed_list_as_array(a):
    xs = [a, 2.0 * a, 1.0]
    return np.sum(np.array(xs) * a)


def appended(a, n):
    lst = []
    for i in range(n):
        lst.append(a * i)
    arr = np.array(lst)
    return np.sum(lst) + arr[1] * a + np.max(lst)


def comprehension_lists(x, a):
    ys = [x[i] * a for i in range(len(x))]
    zs = [v * v for v in x]
    return sum(ys) + ys[-1] * zs[0] + max(zs) + np.sum(zs)


def arrays_appended(x, a):
    hs = []
    for i in range(3):
        hs.append(x * a * i)
    return np.sum(hs[2] * hs[1])


def literal_then_appends(x, a):
    xs = [1.0, a * a]
    xs.append(x[0] * a)
    s = 0.0
    for v in xs:
        s += v * v
    xs.append(s)
    return s + sum(xs) + len(xs) * xs[-1] + np.sum([1.0, a * a, 2.0])


def appended_through_alias(a):
    xs = [a]
    ys = xs
    xs.append(2.0 * a)
    return ys[1]


def aliased_in_one_branch(a):
    xs = [a]
    if a > 0.0:
        ys = xs
    else:
        ys = [a, a]
    xs.append(2.0 * a)
    return ys[1]
