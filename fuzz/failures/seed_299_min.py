"""srcad fuzz failure: seed 299 (minimized); disagreed

signature: AD modes disagree with each other: reverse <J^T u, v>

reverse <J^T u, v> = -2.492119866787621 disagrees with finite differences -7.631776980154825 (all: {'finite differences': -7.631776980154825, 'reverse <J^T u, v>': -2.492119866787621, 'forward <u, J v>': -7.631776980846366, 'vector lane 1': -7.631776980846366, 'vector lane 2 / 2': -7.631776980846366})

Reproduce: check_grads(f, *args()) from srcad.testing.
"""
# ruff: noqa
import math
import numpy as np
from srcad import Active, Duplicated

def h0(dst, src, t):
    for i1 in range(len(dst)):
        src[(i1 + 3) % len(src)] = --(t * t)
        t = math.erf(t + float(i1)) * 3.0
    if t < 0.5:
        dst[-1] += t2 + src[0]
    return dst[1]

def f(y, x, a, n):
    k4 = 0
    while k4 < 5 and y[(n + 3) % len(y)] <= -y[len(y) - 1 - n]:
        if -a >= math.exp(math.cos(y[n])):
            t6 = h0(x, y, a if y[(k4 + 2) % len(y)] < 0.0 else x[n])
            if k4 < 2:
                return


def args():
    return (Duplicated(np.array([0.636, -0.353, -1.416, 0.659, 0.403]), np.zeros((5,))), Duplicated(np.array([0.018, -1.321, -0.971, 1.495]), np.zeros((4,))), Active(-1.465), 2)
