"""srcad fuzz failure with whole-array programs (minimized from seed 654 of `fuzz/run.py
--arrays`, where the row was written in a loop); disagreed in reverse mode.

In `z[2] = np.sin(z[2].dot(W[0]))` the reverse sweep recomputes the intermediate
`z[2].dot(W[0])` for the derivative of `np.sin`. It read the receiver `z[2]` from the array,
already overwritten, rather than from its recorded copy: a method's receiver was not treated
as an operand when intermediates were rebuilt (srcad/transform/expressions.py). The expected
derivatives are central finite differences (check_grads).

Reproduce: check_grads(f, *args()) from srcad.testing.
"""
# ruff: noqa
import numpy as np
from srcad import Duplicated


def f(W, x):
    z = np.zeros((3, 4))
    z[:, 1] = W[:, 0] * x[0]
    z[2] = np.sin(z[2].dot(W[0]))
    return np.sum(z * z)


def args():
    return (Duplicated(np.array([[-0.53, 1.474, 0.589, 0.492], [-0.386, 0.142, -0.644, -0.02],
                                 [1.179, 0.541, 1.009, -0.49]]), np.zeros((3, 4))),
            Duplicated(np.array([-0.9, -0.551, -0.644, 1.126]), np.zeros((4,))))
