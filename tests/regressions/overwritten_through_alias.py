"""Reverse mode (and numba vector mode) missed writes through an alias: after `alias = idx`,
`alias[0] = ...` changes idx[0], yet the reverse sweep read idx[0] as still there and indexed
with its final value.

signature: reverse <J^T u, v> disagrees with finite differences (python and numba backends)

Writes through a second name for an array were then refused by name; they are now rewritten
as writes of the array itself (srcad/transform/normalize/views.py), and the derivative agrees.

Reproduce: check_grads(f, *args(), backend=b) from srcad.testing, b in BACKENDS.
"""
# ruff: noqa
import numpy as np
from srcad import Duplicated

BACKENDS = ("python", "numba")


def f(x, n):
    idx = np.zeros(n, dtype=np.int64)
    alias = idx
    total = 0.0
    for k in range(n):
        total += x[idx[0]] * x[idx[0]]
        alias[0] = (alias[0] + 1) % n
    return total


def args():
    return (Duplicated(np.array([1.0, 2.0, 3.0]), np.zeros(3)), 3)
