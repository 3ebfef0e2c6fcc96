"""srcad fuzz failure: seed 1957 (as generated); disagreed

signature: AD modes disagree with each other: reverse <J^T u, v>

reverse <J^T u, v> = -2.492119866787621 disagrees with finite differences -3.8113386682248063 (all: {'finite differences': -3.8113386682248063, 'reverse <J^T u, v>': -2.492119866787621, 'forward <u, J v>': -3.811338668332951, 'vector lane 1': -3.811338668332951, 'vector lane 2 / 2': -3.811338668332951})

Reproduce: check_grads(f, *args()) from srcad.testing.
"""
# ruff: noqa
import math

import numpy as np

from srcad import Active, Duplicated  # noqa: F401


def h0(u, v):
    t1 = (v if v <= -(u) and u >= -1.0 else v) if (v) * (v) <= -1.0 else (v) * (0.75)
    t1 /= (1.0 + ((v) / (u * u + 0.5)) ** 2)
    t2 = (0.5 + ((t1) * (v) + u) ** 2) ** 0.5
    return u


def h1(u, v):
    u = u
    for i3 in range(1, 2):
        if u <= 0.2:
            v /= (1.0 + (math.hypot(u, 1.0)) ** 2)
    return u, math.pow(u, 2.0)


def f(y, x, a):
    kc = 0
    z4 = np.zeros((len(x), 2))
    z5 = y.copy()
    k6 = 0
    while True:
        k6 += 1
        if k6 > 1 or z5[(kc + 0) % len(z5)] <= ((kc + 0.5) if np.tanh(z4[(k6 + 0) % len(x), k6]) < 0.0 else z4[(kc + 1) % len(x), 2 - 1 - k6]):
            break
        if not a + z5[k6] >= y[k6] + float(kc):
            return a
    x[(kc + 1) % len(x)] = 0.5 * x[(kc + 1) % len(x)] + (a - (a)) ** 2
    for i7 in range(0, len(x), 2):
        t8 = z4[i7][2 - 1 - k6]
    return a + math.fabs(a)


def args():
    return (
        Duplicated(np.array([0.992, 1.34, -1.26, -1.453]), np.zeros((4,))),
        Duplicated(np.array([0.532, 0.404, -0.36, -0.294, -0.718]), np.zeros((5,))),
        Active(-0.515),
    )
