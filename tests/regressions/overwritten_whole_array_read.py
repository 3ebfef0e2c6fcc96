"""srcad fuzz failure with whole-array programs (minimized from seed 2 of `fuzz/run.py
--arrays`); disagreed in reverse mode.

`z[1] = np.sum(z * W[0])` reads the whole array `z` and writes one of its elements. The
adjoint of `W[0]` needs `z` as it was before the write, but the reverse sweep read `z`
afterwards (the recording analysis asked only whether `z` was rebound, not whether its
elements were written later). A whole array read whose elements are written later is now
taped by copy (srcad/analysis/recording.py); `len(z)` and `z.shape` still read it directly.
The expected derivatives are central finite differences (check_grads).

Reproduce: check_grads(f, *args()) from srcad.testing.
"""
# ruff: noqa
import numpy as np
from srcad import Duplicated


def f(W, x):
    z = np.zeros(2)
    z[0:2] = np.sin(W @ x)
    z[1] = np.sum(z * W[0])
    return np.sum(np.sin(z))


def args():
    return (Duplicated(np.array([[-0.715, -0.605], [0.943, -1.224]]), np.zeros((2, 2))),
            np.array([0.3, 0.686]))
