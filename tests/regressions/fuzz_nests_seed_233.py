"""srcad fuzz failure: seed 233 (minimized); disagreed

signature: AD modes disagree with each other: ?

generated code returns 0.474, the primal np.float64(1.237)

Reproduce: check_grads(f, *args(), backend='numba') from srcad.testing.
Fixed: the hoisting precomputation (srcad/transform/normalize/hoist.py) assigned `s2 = x[1]` before the
nest, so the first iteration's `acc1 += s2` read x[1] instead of 1.0; it now uses fresh names.
"""
# ruff: noqa
import math
import numpy as np
from srcad import Active, Duplicated

BACKEND = "numba"  # the hoisting pass runs for the numba backend only

def f(x, c, y, a):
    acc1 = 0.0
    s2 = 1.0
    for i3 in range(len(c)):
        for k4 in range(1):
            acc1 += s2
            s2 = x[1]
            acc1 += s2 - s2
    return acc1


def args():
    return (Duplicated(np.array([-1.216, 0.237, -1.167, -0.177, -1.053]), np.zeros((5,))), Duplicated(np.array([0.692, -1.46]), np.zeros((2,))), Duplicated(np.array([-0.372, -0.869]), np.zeros((2,))), Active(-0.02))
