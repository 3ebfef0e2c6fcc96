"""srcad fuzz failure with whole-array programs (minimized from seed 313 of `fuzz/run.py
--arrays`, which read `np.expand_dims(z2[0:3], 0)`); disagreed in reverse mode.

`np.reshape(z[::2], (-1,))` is a view of `z`. The reverse sweep kept it as a temporary of
the forward sweep and read it, for the adjoint of `b`, after `z[0] = ...` had changed it.
A reshape, ravel, expand_dims, squeeze, transpose or atleast_Nd result is now recomputed by
the reverse sweep from the recorded operand (srcad/transform/reverse/taped_intermediates.py). The
expected derivatives are central finite differences (check_grads).

Reproduce: check_grads(f, *args()) from srcad.testing.
"""
# ruff: noqa
import numpy as np
from srcad import Duplicated


def f(b):
    z = np.zeros(4)
    z[0] = 1.0
    h = b * np.reshape(z[::2], (-1,))
    z[0] = np.sum(b)
    return np.sum(h) + np.sum(z)


def args():
    return (Duplicated(np.array([-0.511, 0.865]), np.zeros((2,))),)
