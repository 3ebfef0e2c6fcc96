"""Reverse mode: an index computed from a float array (`int(p[0])`) that the primal later
overwrites; the reverse must index with the value read at the time.

signature: reverse <J^T u, v> disagrees with finite differences (python and numba backends)

Reproduce: check_grads(f, *args(), backend=b) from srcad.testing, b in BACKENDS.
"""
# ruff: noqa
import numpy as np
from srcad import Duplicated

BACKENDS = ("python", "numba")


def f(x, p):
    total = 0.0
    for k in range(len(p)):
        total += x[int(p[0])] * x[int(p[0])] * x[k]
        tmp = p[0]
        for i in range(len(p) - 1):
            p[i] = p[i + 1]
        p[len(p) - 1] = tmp
    return total


def args():
    return (Duplicated(np.array([0.5, -1.5, 2.0]), np.zeros(3)), np.array([0.0, 1.0, 2.0]))
