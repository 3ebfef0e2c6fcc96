"""`round(v, 1)` is a float, but srcad typed every round(...) as an int: a value the reverse
sweep needs (`r` in t * r, overwritten later) went on the int tape, and the numba backend's
int64 tape truncated it.

signature: reverse <J^T u, v> disagrees with finite differences (numba backend)

Reproduce: check_grads(f, *args(), backend=b) from srcad.testing, b in BACKENDS.
"""
# ruff: noqa
import numpy as np
from srcad import Duplicated

BACKENDS = ("python", "numba")


def f(x):
    t = 0.5
    r = round(x[0], 1)
    for i in range(len(x)):
        r = round(x[i] * 3.7, 1)
        t = t * r + x[i] * t
        r = round(x[0] * 1.3, 2)
    return t


def args():
    return (Duplicated(np.array([0.51, -0.33, 0.87]), np.zeros(3)),)
