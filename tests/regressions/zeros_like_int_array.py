"""`np.zeros_like(idx)` of an int array is an int array, but srcad typed it as a float array:
values written into it (truncated to ints by NumPy, so without derivative) were given one.

signature: reverse <J^T u, v> and forward <u, J v> disagree with finite differences (python
and numba backends)

Reproduce: check_grads(f, *args(), backend=b) from srcad.testing, b in BACKENDS.
"""
# ruff: noqa
import numpy as np
from srcad import Duplicated

BACKENDS = ("python", "numba")


def f(x, idx):
    c = np.zeros_like(idx)
    s = 0.0
    for i in range(len(x)):
        c[i] = x[i] * 2.7  # truncated to an int: no derivative
        s += c[i] * x[i]
    return s


def args():
    return (Duplicated(np.array([0.51, -1.33, 2.87]), np.zeros(3)), np.zeros(3, dtype=np.int64))
