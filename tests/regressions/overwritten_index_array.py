"""Reverse mode read an index from an int array that the primal later overwrites.

signature: reverse <J^T u, v> disagrees with finite differences (python and numba backends)

`x[idx[0]]` taped `idx[0]` but the reverse sweep still indexed with `idx[0]`, the array's final
contents: the gradient of sum(x[k]**2) at x = [1, 2, 3] came out [6, 0, 0] instead of 2x.

Reproduce: check_grads(f, *args(), backend=b) from srcad.testing, b in BACKENDS.
"""
# ruff: noqa
import numpy as np
from srcad import Duplicated

BACKENDS = ("python", "numba")


def f(x, n):
    idx = np.zeros(n, dtype=np.int64)
    for i in range(n):
        idx[i] = i
    total = 0.0
    for k in range(n):
        total += x[idx[0]] * x[idx[0]]
        tmp = idx[0]  # rotate the index array
        for i in range(n - 1):
            idx[i] = idx[i + 1]
        idx[n - 1] = tmp
    return total


def args():
    return (Duplicated(np.array([1.0, 2.0, 3.0]), np.zeros(3)), 3)

