"""srcad fuzz failure: seed 1450 (as generated); disagreed

signature: all AD modes disagree with FD: reverse <J^T u, v>, forward <u, J v>, vector lane 1, vector lane 2 / 2

reverse <J^T u, v> = -0.3771723103795003 disagrees with finite differences -0.28919158351348173 (all: {'finite differences': -0.28919158351348173, 'reverse <J^T u, v>': -0.3771723103795003, 'forward <u, J v>': -0.3771723103795005, 'vector lane 1': -0.3771723103795005, 'vector lane 2 / 2': -0.3771723103795005})

Reproduce: check_grads(f, *args()) from srcad.testing.
"""
# ruff: noqa
import math

import numpy as np

from srcad import Active, Duplicated  # noqa: F401


def h0(arr, t):
    for i1 in range(len(arr)):
        arr[i1] = arr[i1]
        t2 = (math.cos(-(arr[i1]))) * (math.atan(math.cos(arr[1])))
        t3 = math.atan(np.exp(math.cos(t)))
    t /= (1.0 + ((np.exp(math.tanh(arr[-2])) if t >= 0.5 or arr[1] >= t else 0.6)) ** 2)
    return (math.hypot(t, 1.0)) * (t)


def h1(u, v):
    for i4 in range(0, 3):
        if i4 > 0:
            u = 0.5 * u + u
            t5 = u
            if v > -0.3:
                return 0.6
        else:
            t6 = v
            if float(i4) > 0.5:
                continue
    return v


def f(y, x, a):
    z7 = np.ones(3)
    t8 = ((x[-1]) / (1.0 + math.exp(-(a) * (a))) - (np.sin(z7[-2])) if abs(x[0]) >= (a) * (y[1]) or a >= a + a else 0.3)
    if t8 > 0.5:
        if x[-3] > -1.0:
            return h1((a) * (0.6), 1.2 - (y[1]))
        t8 += (math.log1p((h1(x[0], z7[0])) ** 2)) * (y[1] + a - (x[2]))
    y[1], y[1] = y[1], y[1]
    if z7[-3] < math.pow(0.6, 2.0):
        return -(a) + t8
    x[1] += math.expm1(math.tanh(np.sin(t8)))
    for i9 in range(4):
        k10 = 0
        while k10 < 1 and x[(i9 + 0) % len(x)] >= 0.0:
            k10 += 1
            if math.expm1(math.tanh(t8 - (y[(k10 + 3) % len(y)]))) < 1.0 or -(math.atan(z7[k10])) > y[(i9 + 0) % len(y)]:
                continue
            if k10 < 2:
                return math.atan(math.atan(a))
        x[(i9 + 3) % len(x)] -= (y[-1] - (t8)) * (math.erf(y[(i9 + 2) % len(y)]))
        z7[(k10 + 3) % len(z7)] *= (0.9 + 0.1 * math.sin((math.log1p(((a if y[(i9 + 1) % len(y)] <= 1.0 else x[-2])) ** 2)) * (math.sqrt(1.0 + ((a) / (1.0 + math.exp(math.cos(a)))) * ((a) / (1.0 + math.exp(math.cos(a))))))))
    return (a) * (-(y[1]))


def args():
    return (
        Duplicated(np.array([-0.384, -0.432]), np.zeros((2,))),
        Duplicated(np.array([-1.002, -0.212, 0.415]), np.zeros((3,))),
        Active(0.56),
    )
