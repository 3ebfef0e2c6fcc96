"""srcad fuzz failure with whole-array programs (minimized from seed 128 of `fuzz/run.py
--arrays`); wrongly refused in reverse mode.

The right-hand side of the slice write reduces (`axis=1`) a broadcast that reads a slice of
the array written, so the reverse sweep needs that slice recorded and the shape of the
broadcast. The shape expression, `np.broadcast_shapes(...)[:1]`-like, was taken for a value to
record, and the recording refused it: "`broadcast_shapes` has no derivative rule yet". The
parts of a computed shape are now walked for what they read (srcad/transform/broadcasting.py).
The expected derivatives are central finite differences (check_grads).

Reproduce: check_grads(f, *args()) from srcad.testing.
"""
# ruff: noqa
import numpy as np
from srcad import Duplicated


def f(W, x):
    z = np.zeros(4)
    z[0:4] = W[0] * np.mean(np.expand_dims(z[::-1], 1) * x, axis=1)
    return np.sum(z)


def args():
    return (Duplicated(np.array([[0.035, 1.351, -1.068, 1.346], [-0.565, -0.23, 0.983, -0.272]]),
                       np.zeros((2, 4))),
            Duplicated(np.array([0.149, -1.417, 0.761, 0.114]), np.zeros((4,))))
