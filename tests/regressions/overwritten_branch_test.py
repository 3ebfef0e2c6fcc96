"""Reverse mode: branch tests (an `if` statement and a conditional expression) on an int array
element that the primal overwrites after the test (the reverse must take the branch the
forward sweep took).

signature: none (checked by the audit of values the reverse sweep reads; python and numba)

Reproduce: check_grads(f, *args(), backend=b) from srcad.testing, b in BACKENDS.
"""
# ruff: noqa
import numpy as np
from srcad import Duplicated

BACKENDS = ("python", "numba")


def f(x, n):
    flag = np.zeros(1, dtype=np.int64)
    total = 0.3
    for k in range(n):
        if flag[0] == 0:
            total = total * x[k]
        else:
            total = total + x[k] * x[k]
        total = total * x[k] if flag[0] == 1 else total + x[k] * total
        flag[0] = 1 - flag[0]
    return total


def args():
    return (Duplicated(np.array([0.9, -0.4, 0.7, 1.1, 0.6]), np.zeros(5)), 5)
