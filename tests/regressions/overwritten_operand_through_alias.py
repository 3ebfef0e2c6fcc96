"""A float operand read from a constant array that the primal later changes through an alias
(`q = p`, then `q[0] += 1.0`): reverse mode read p[0] as still there (its final value), and
numba vector mode moved the lane loop reading p[0] below the write to q[0].

signature: reverse <J^T u, v> (python, numba) and vector lane 1 (numba) disagree with finite
differences

Writes through a second name for an array were then refused by name; they are now rewritten
as writes of the array itself (srcad/transform/normalize/views.py), and the derivative agrees.

Reproduce: check_grads(f, *args(), backend=b) from srcad.testing, b in BACKENDS.
"""
# ruff: noqa
import numpy as np
from srcad import Duplicated

BACKENDS = ("python", "numba")


def f(x, p):
    q = p
    s = 1.0
    for k in range(len(x)):
        s = s * p[0] * x[k] + x[k] * x[k] * p[0]
        q[0] = q[0] + 1.0
    return s


def args():
    return (Duplicated(np.array([0.5, -0.3, 0.8]), np.zeros(3)), np.array([1.0, 2.0]))
