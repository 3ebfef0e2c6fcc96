"""Reverse mode wrote into an element whose index comes from an int array that the primal
later overwrites: the adjoint of the target `y[idx[0]]` must be read where the primal wrote.

signature: reverse <J^T u, v> disagrees with finite differences (python and numba backends)

Reproduce: check_grads(f, *args(), backend=b) from srcad.testing, b in BACKENDS.
"""
# ruff: noqa
import numpy as np
from srcad import Duplicated

BACKENDS = ("python", "numba")


def f(x, y, n):
    idx = np.zeros(n, dtype=np.int64)
    for i in range(n):
        idx[i] = n - 1 - i
    for k in range(n):
        y[idx[0]] = y[idx[0]] * x[k] + x[k] * x[k]
        tmp = idx[0]
        for i in range(n - 1):
            idx[i] = idx[i + 1]
        idx[n - 1] = tmp


def args():
    return (Duplicated(np.array([0.5, -1.2, 0.8]), np.zeros(3)),
            Duplicated(np.array([1.5, 0.3, -0.7]), np.zeros(3)), 3)
