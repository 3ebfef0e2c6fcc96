"""srcad fuzz failure (numba, `--shapes library-more`, minimized from seeds 105 and 109); crashed.

A straight-line loop adding into an element, `z[t % 3] += np.linalg.det(... np.outer(u, u))`,
computes arrays inside its expression (the outer product, the matrix). numba's reverse mode
records a straight-line loop's values in fixed slots of the iteration's record, which hold
floats and ints only, so taping those arrays stopped on srcad's assertion "a loop taping
arrays has no slots". A loop computing arrays inside an expression now records on stacks, as
a loop binding an array does (srcad/transform/reverse/control_flow.py).

Reproduce: check_grads(f, *args(), backend="numba") from srcad.testing.
"""
# ruff: noqa
import numpy as np
from srcad import Duplicated

BACKENDS = ("numba", "python")


def f(W, x):
    z = np.zeros(3)
    for t in range(2):
        z[t % 3] += np.linalg.det(2.0 * np.eye(2) + 0.1 * np.outer(W[1:].dot(x), W[1:].dot(x)))
    return np.sum(np.sin(z))


def args():
    W = np.array([[0.4, 1.4, -1.2], [-0.3, -0.8, 1.1], [0.3, -0.6, 0.1]])
    x = np.array([-0.9, -0.7, -0.5])
    return Duplicated(W, np.zeros_like(W)), Duplicated(x, np.zeros_like(x))
