"""srcad fuzz failure: seed 1339 (as generated); disagreed

signature: AD modes disagree with each other: reverse <J^T u, v>

reverse <J^T u, v> = -1.5265992826206558 disagrees with finite differences -1.1008765163356138 (all: {'finite differences': -1.1008765163356138, 'reverse <J^T u, v>': -1.5265992826206558, 'forward <u, J v>': -1.1008765163000809, 'vector lane 1': -1.1008765163000809, 'vector lane 2 / 2': -1.1008765163000809})

Reproduce: check_grads(f, *args()) from srcad.testing.
"""
# ruff: noqa
import math

import numpy as np

from srcad import Active, Duplicated  # noqa: F401


def h0(u, v):
    v += ((min(v, u)) * (0.6 + 0.75)) * ((u if math.cos((u if u < -0.3 else v)) < 1.0 else math.sqrt(1.0 + (v) * (v))))
    return math.log(1.0 + (1.5) * (1.5))


def h1(dst, src, t):
    for i1 in range(len(dst)):
        dst[i1] = math.sin(-(t))
        t *= math.cos(math.expm1(math.tanh(dst[i1])) - ((src[(i1 + 2) % len(src)]) * (t)))
    t /= (1.0 + (np.exp(math.cos(min(t - (2.0), (3.0) * (src[0]))))) ** 2)
    t -= (t) / (dst[-1] * dst[-1] + 0.5)
    return (src[1] if src[-2] >= -0.3 or math.fabs((dst[0]) / (2.0 + math.sin(t))) < 0.2 else src[-1]) - ((src[-2]) * (t))


def h2(u, v):
    u = ((0.75) * (v) + math.expm1(math.tanh(v))) * (u)
    if u >= 1.0 and np.tanh(np.sin(u)) <= math.pow(u, 2.0):
        k2 = 0
        while k2 < 3 and np.sin(1.2 + 0.5) < v - (v):
            k2 += 1
            v += math.exp(-(u) * (u))
            u = 0.5 * u + (0.25) * (v) + float(k2)
    else:
        v = 0.5 * v + (3.0) * ((0.9 if u > -(v) and v - ((0.1) * (u)) > u else v))
    return 3.0 + math.exp(math.cos(v))


def f(y, x, a):
    z3 = y.copy()
    z4 = y.copy()
    k5 = 0
    while True:
        k5 += 1
        if k5 > 4 or k5 % 3 != 1:
            break
        x[0], x[(k5 + 0) % len(x)] = x[(k5 + 0) % len(x)], x[0]
        if not (z4[(k5 + 2) % len(z4)]) / (a * a + 0.5) >= 0.5:
            return
        if not y[(k5 + 3) % len(y)] > 0.5:
            return


def args():
    return (
        Duplicated(np.array([0.99, -0.651, 1.366]), np.zeros((3,))),
        Duplicated(np.array([-1.421, 0.398, -0.076]), np.zeros((3,))),
        Active(-0.476),
    )
