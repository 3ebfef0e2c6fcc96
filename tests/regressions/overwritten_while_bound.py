"""Reverse mode: a while loop whose trip count depends on an int array element that the
primal overwrites after the loop (the reverse must undo as many trips as ran).

signature: none (checked by the audit of values the reverse sweep reads; python and numba)

Reproduce: check_grads(f, *args(), backend=b) from srcad.testing, b in BACKENDS.
"""
# ruff: noqa
import numpy as np
from srcad import Duplicated

BACKENDS = ("python", "numba")


def f(x, n):
    limit = np.zeros(1, dtype=np.int64)
    limit[0] = 1
    total = 0.2
    for k in range(n):
        j = 0
        while j < limit[0]:
            total = total * x[j % n] + x[k]
            j += 1
        limit[0] += 1
    return total


def args():
    return (Duplicated(np.array([0.9, -0.4, 0.7, 1.1]), np.zeros(4)), 4)
