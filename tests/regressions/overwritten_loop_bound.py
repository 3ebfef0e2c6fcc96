"""Reverse mode: an inner loop's trip count read from an int array element that the primal
overwrites after the loop (the reverse loop must run as many trips as the forward one did).

signature: none (checked by the audit of values the reverse sweep reads; python and numba)

Reproduce: check_grads(f, *args(), backend=b) from srcad.testing, b in BACKENDS.
"""
# ruff: noqa
import numpy as np
from srcad import Duplicated

BACKENDS = ("python", "numba")


def f(x, n):
    count = np.zeros(1, dtype=np.int64)
    count[0] = 1
    total = 0.5
    for k in range(n):
        for j in range(count[0]):
            total = total * x[j] + x[k]
        count[0] = count[0] + 1
    return total


def args():
    return (Duplicated(np.array([0.9, -0.4, 0.7, 1.1]), np.zeros(4)), 4)
