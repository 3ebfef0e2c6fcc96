"""srcad fuzz failure: seed 1450 (minimized); disagreed

signature: all AD modes disagree with FD: reverse <J^T u, v>, forward <u, J v>, vector lane 1, vector lane 2 / 2

reverse <J^T u, v> = -1.0816028166997755 disagrees with finite differences -0.646163204276462 (all: {'finite differences': -0.646163204276462, 'reverse <J^T u, v>': -1.0816028166997755, 'forward <u, J v>': -1.0816028166997755, 'vector lane 1': -1.0816028166997755, 'vector lane 2 / 2': -1.0816028166997755})

Reproduce: check_grads(f, *args()) from srcad.testing.
"""
# ruff: noqa
import math
import numpy as np
from srcad import Active, Duplicated

def f(y, x, a):
    z7 = np.ones(3)
    t8 = x[1]
    if t8 > 0.5:
        if x[3] > 1.0:
            return a
    if z7[-3] < 0.6:
        return a
    for i9 in range(4):
        x[i9 % len(x)] -= y[1]


def args():
    return (Duplicated(np.array([-0.384, -0.432]), np.zeros((2,))), Duplicated(np.array([-1.002, -0.212, 0.415]), np.zeros((3,))), Active(0.56))
