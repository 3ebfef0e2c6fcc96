"""srcad fuzz failure: seed 332 (as generated); disagreed

signature: AD modes disagree with each other: reverse <J^T u, v>

reverse <J^T u, v> = -3.1452630668566917 disagrees with finite differences -0.7124424170612542 (all: {'finite differences': -0.7124424170612542, 'reverse <J^T u, v>': -3.1452630668566917, 'forward <u, J v>': -0.7124424168920348, 'vector lane 1': -0.7124424168920348, 'vector lane 2 / 2': -0.7124424168920348})

Reproduce: check_grads(f, *args()) from srcad.testing.
"""
# ruff: noqa
import math

import numpy as np

from srcad import Active, Duplicated  # noqa: F401


def h0(dst, src, t):
    for i1 in range(len(dst)):
        dst[i1] = -(-(t))
        t *= (0.9 + 0.1 * math.sin(math.expm1(math.tanh(0.75)) - (math.exp(math.sin(t))) + (math.hypot(src[(i1 + 3) % len(src)], 1.0)) / (2.0 + math.sin(0.1 * i1))))
    if t > 0.2:
        t = (src[-1]) / (t * t + 0.5) if max(t, src[-2]) - (math.fabs(t)) <= -1.0 else src[1] - (dst[-1])
    elif t > (t if (src[-2]) / (3.0 * 3.0 + 0.5) <= -0.3 and math.sin(-(t)) > math.log1p((t) ** 2) else dst[1]):
        t /= (1.0 + (t) ** 2)
    k2 = 0
    while k2 < 1 and t < (t) * (t):
        k2 += 1
        src[0], src[0] = src[0], src[0]
    if t < 1.0:
        t *= math.tanh(src[(k2 + 0) % len(src)] + t)
    else:
        t3 = t
    return (math.tanh(dst[(k2 + 2) % len(dst)]) if abs(t) >= -0.3 else k2 * (t))


def f(y, x, a):
    a /= (1.0 + (math.atan2(x[3], 2.0 + math.cos(x[3])) + (math.sqrt(1.0 + (y[1]) * (y[1]))) * ((y[3]) * (0.3))) ** 2)
    k4 = 0
    while True:
        k4 += 1
        if k4 > 3 or a > a:
            break
        a /= (1.0 + ((x[k4]) * ((k4 + 0.5)) - ((a if math.cos(0.9 - (y[(k4 + 2) % len(y)])) <= 0.2 else x[-2]))) ** 2)
        if math.expm1(math.tanh(a)) <= (0.75) * (y[len(y) - 1 - k4]):
            if x[k4] >= (x[len(x) - 1 - k4]) / (2.0 + math.sin(a)):
                break
            t5 = min((-(x[k4])) / (2.0 + math.sin(np.sin(a))), np.exp(-((a if (x[1]) / (k4 + 1.0) <= a else x[4])) * ((a if (x[1]) / (k4 + 1.0) <= a else x[4]))))
        else:
            h0(x, x, math.fabs(0.1 * k4))
            if k4 > 2:
                if k4 % 2 == 0:
                    continue
            else:
                if x[k4] < (a) * (x[k4]):
                    break
                x[3] = (k4 + 0.5)
        a = -(a) if -(y[k4]) <= y[2] - (a) else y[2] + x[k4]
    return a + y[(k4 + 0) % len(y)]


def args():
    return (
        Duplicated(np.array([-1.11, 0.791, -0.616, 0.474]), np.zeros((4,))),
        Duplicated(np.array([-0.676, -0.583, 1.496, -0.893, -0.036]), np.zeros((5,))),
        Active(0.732),
    )
