"""srcad fuzz refusal: seed 41449 (reduced by hand); refused

signature: `t7` holds a value of a kind srcad does not handle: a helper whose result starts as
None on one path (an early return inside a loop) was typed as unknown once `t7 /= ...` combined
it with a float.

Reproduce: check_grads(f, *args()) from srcad.testing.
"""
import math

import numpy as np

from srcad import Active, Duplicated


def h0(u, v):
    for i1 in range(2, 3):
        k2 = 0
        while k2 < 3 and u >= -0.3:
            k2 += 1
            if i1 % 3 != 1:
                return v * float(k2)
            u /= 1.0 + (v + 0.1) ** 2
    return -min(v, v)


def f(x, a):
    t7 = h0(a / (x[0] * x[0] + 0.5), x[1])
    for i8 in range(len(x) - 1, -1, -1):
        t7 /= 1.0 + (a * x[len(x) - 1 - i8]) ** 2
    return t7 + math.sin(x[2])


def args():
    return (Duplicated(np.array([0.3, 0.7, -0.2, 1.1]), np.zeros(4)), Active(0.4))
