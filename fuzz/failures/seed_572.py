"""srcad fuzz failure: seed 572 (as generated); disagreed

signature: AD modes disagree with each other: reverse <J^T u, v>

reverse <J^T u, v> = 0.8304009566852232 disagrees with finite differences 0.04495780414615069 (all: {'finite differences': 0.04495780414615069, 'reverse <J^T u, v>': 0.8304009566852232, 'forward <u, J v>': 0.04495780392952922, 'vector lane 1': 0.04495780392952923, 'vector lane 2 / 2': 0.04495780392952923})

Reproduce: check_grads(f, *args()) from srcad.testing.
"""
# ruff: noqa
import math

import numpy as np

from srcad import Active, Duplicated  # noqa: F401


def h0(arr, t):
    for i1 in range(len(arr)):
        arr[i1] = ((t) / (1.5 + (arr[i1]) * (arr[i1]))) / (i1 + 1.0)
        if 0.3 + (t) / (0.75 * 0.75 + 0.5) < math.atan2(arr[i1], 2.0 + math.cos(arr[i1])):
            t = 0.5 * t + (math.pow(0.5, 2.0)) / (i1 + 1.0)
            arr[i1] = (t) * (t)
        elif i1 % 2 == 0:
            if arr[0] > t:
                return math.hypot(t, 1.0)
    t += arr[-2]
    return arr[-1]


def f(x, a, n):
    z2 = np.zeros((len(x), 2))
    z3 = np.zeros((len(x), 2))
    a -= (a) * (0.3)
    a *= math.cos((math.cos(math.log(1.0 + (a) * (a)))) * (math.cos((z3[n, n]) * (x[n]))))
    if n < 3:
        h0(x, a)
        z3[n, n] = math.atan2(-(a), 2.0 + math.cos(-(a)))
        a /= (1.0 + (z3[n, n]) ** 2)
    else:
        a = math.erf(a) if not n < 2 else (a) * (a)
    for j5, v4 in enumerate(x):
        t6 = h0(x, ((v4) / (1.5 + (x[len(x) - 1 - n]) * (x[len(x) - 1 - n]))) * (-(v4)))
    z3[n, n] *= math.tanh(np.sin(math.cos(z3[len(x) - 1 - n, n])))
    if a <= a + a:
        return math.pow(-(a), 2.0)
    return (n + 0.5) - (a) + a


def args():
    return (
        Duplicated(np.array([0.315, -0.788, 1.173]), np.zeros((3,))),
        Active(1.442),
        1,
    )
