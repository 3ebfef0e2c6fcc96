"""srcad fuzz failure: seed 299 (as generated); disagreed

signature: AD modes disagree with each other: reverse <J^T u, v>

reverse <J^T u, v> = -2.492119866787621 disagrees with finite differences 6.8883857413659655 (all: {'finite differences': 6.8883857413659655, 'reverse <J^T u, v>': -2.492119866787621, 'forward <u, J v>': 6.888385741142597, 'vector lane 1': 6.888385741142598, 'vector lane 2 / 2': 6.888385741142598})

Reproduce: check_grads(f, *args()) from srcad.testing.
"""
# ruff: noqa
import math

import numpy as np

from srcad import Active, Duplicated  # noqa: F401


def h0(dst, src, t):
    for i1 in range(len(dst)):
        dst[i1] = src[0]
        src[(i1 + 3) % len(src)] = -(-((t) * (t)))
        t = (math.erf(t + float(i1))) * (3.0)
    if t < 0.5:
        t2 = t - (t)
        if np.sin(src[-1]) <= 1.0:
            dst[-1] += t2 + src[0]
            t2 /= (1.0 + (abs(t2) + math.pow(src[1], 2.0)) ** 2)
        else:
            t3 = t
    elif (0.1 + dst[-2] if math.sin(t) < 0.2 and math.log1p((dst[0]) ** 2) > 0.0 else abs(src[0])) > -0.3:
        t -= -(1.2)
    return dst[1]


def f(y, x, a, n):
    a += y[n]
    if y[1] <= 0.2:
        k4 = 0
        while k4 < 5 and y[(n + 3) % len(y)] <= -(y[len(y) - 1 - n]):
            k4 += 1
            t5 = np.tanh(x[len(x) - 1 - n]) + (float(n)) / (2.0 + math.sin(a))
            if -(a) >= math.exp(math.cos(y[n])):
                t6 = h0(x, y, (a if y[(k4 + 2) % len(y)] < 0.0 else x[n]))
                if k4 < 2:
                    return
        y[len(y) - 1 - n] += (a) / (2.0 + math.sin(0.1 * k4))
        t7 = h0(y, y, a)
    x[n] *= math.tanh(x[n])
    a /= (1.0 + (math.sin(0.75)) ** 2)
    x[(n + 3) % len(x)] *= math.tanh(float(n) * 0.5 + math.log(1.0 + (a) * (a)))
    t8 = (a if math.pow(a, 2.0) < 1.0 else y[(n + 3) % len(y)]) if n * (y[n]) >= (float(n)) * (a) else a
    for i9 in range(1, len(y)):
        t10 = -(t8)


def args():
    return (
        Duplicated(np.array([0.636, -0.353, -1.416, 0.659, 0.403]), np.zeros((5,))),
        Duplicated(np.array([0.018, -1.321, -0.971, 1.495]), np.zeros((4,))),
        Active(-1.465),
        2,
    )
