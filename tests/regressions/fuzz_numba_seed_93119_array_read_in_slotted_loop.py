"""srcad fuzz failure (numba, `--arrays --shapes library-forms`, seed 93119, minimized); crashed.

A straight-line loop `z2[t % 3] += np.dot(b[::2], z2[::2])` reads a slice of the array it
writes. numba's reverse mode records a straight-line loop's values in fixed slots of the
iteration's record, which hold floats and ints only, so taping the slice (its values before
the write, for b's adjoint) stopped on srcad's assertion "a loop taping arrays has no slots".
A loop reading an array (whole, a row or a slice) that its reverse cannot read as it was now
records on stacks (srcad/transform/reverse/control_flow.py `_reads_changing_arrays`); the
second loop reads whole arrays changed after it.

Reproduce: check_grads(f, *args(), backend="numba") from srcad.testing.
"""
# ruff: noqa
import numpy as np
from srcad import Active, Duplicated

BACKENDS = ("numba", "python")


def f(W, x, b, a, idx):
    h1 = np.dot(W, np.transpose(W))
    z2 = b.copy()
    for t3 in range(3):
        z2[t3 % 3] += np.dot(b[::2], z2[::2])
    h4 = h1[0]
    form6 = np.mean(h4)
    w = b * a
    s = 0.0
    for t in range(2):
        s += np.dot(x, w[:2]) * b[t] + np.sum(w * z2)
    w[0] = 5.0
    z2[1] = s
    return np.sum(h1 * h1) + np.sum(z2 * z2) + np.sum(np.sin(h4)) + form6 + np.sum(w * w)


def args():
    return (np.array([[-1.446, -0.722], [-0.738, -0.849], [0.565, -0.538]]),
            Duplicated(np.array([-0.561, 0.826]), np.zeros((2,))),
            Duplicated(np.array([0.556, 0.899, -0.664]), np.zeros((3,))), Active(-1.23),
            np.array([0, 1, 0, 0]))
