"""Reverse mode: indices read from an int argument the same iteration then overwrites, in a
loop with a straight-line body (numba records it in slots) and a taped exp.

signature: reverse <J^T u, v> disagrees with finite differences (python and numba backends)

Reproduce: check_grads(f, *args(), backend=b) from srcad.testing, b in BACKENDS.
"""
# ruff: noqa
import numpy as np
from srcad import Duplicated

BACKENDS = ("python", "numba")


def f(x, idx):
    total = 0.0
    for k in range(len(idx)):
        total += np.exp(x[idx[k]]) * x[idx[k]] + x[idx[0]] * total
        idx[0] = idx[k]
        idx[k] = 0
    return total


def args():
    return (Duplicated(np.array([0.5, -1.5, 2.0, 0.3]), np.zeros(4)),
            np.array([3, 1, 2, 0, 1]))
