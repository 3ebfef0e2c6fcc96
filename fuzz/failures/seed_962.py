"""srcad fuzz failure: seed 962 (as generated); disagreed

signature: AD modes disagree with each other: reverse <J^T u, v>

reverse <J^T u, v> = 0.2835417517813545 disagrees with finite differences 0.2292461929176426 (all: {'finite differences': 0.2292461929176426, 'reverse <J^T u, v>': 0.2835417517813545, 'forward <u, J v>': 0.22924619317119196, 'vector lane 1': 0.22924619317119196, 'vector lane 2 / 2': 0.22924619317119196})

Reproduce: check_grads(f, *args()) from srcad.testing.
"""
# ruff: noqa
import math

import numpy as np

from srcad import Active, Duplicated  # noqa: F401


def h0(dst, src, t):
    for i1 in range(len(dst)):
        dst[i1] = ((t) * (t)) / (1.5 + (t) * (t))
        t -= 0.1 * i1 + dst[len(dst) - 1 - i1]
    for i2 in range(len(dst) - 1, -1, -1):
        t *= math.cos(math.hypot(src[0], 1.0))
        t = 0.5 * t + (t) / (1.5 * 1.5 + 0.5)
        if t + src[(i2 + 2) % len(src)] <= (dst[(i2 + 0) % len(dst)] if src[-2] < 0.5 else dst[i2]):
            break
        if i2 > 0:
            if (i2 + 0.5) < 0.2 or dst[i2] < math.fabs(t):
                break
        else:
            t = 0.5 * t + math.cosh(math.sin(t))
    return (math.pow(src[-1], 2.0) if t >= dst[-1] and t < (src[-2]) ** 2 else t)


def f(y, x, a):
    z3 = np.ones(3)
    if a < -1.0:
        t4 = a + z3[-1] if a <= -1.0 else a
        t5 = (y[1]) * (t4 - (t4)) + 0.5
    elif not a < a:
        a += (math.log1p((z3[1]) ** 2) if math.hypot(a, 1.0) <= 0.5 else a)
    a = 0.5 * a + math.log1p((x[-1] - (a)) ** 2) + ((a if not y[-1] > -0.3 else z3[2])) / (1.5 + ((z3[-1]) * (x[1])) * ((z3[-1]) * (x[1])))
    k6 = 0
    while True:
        k6 += 1
        if k6 > 4 or math.sin(a) > -0.3:
            break
        y[(k6 + 1) % len(y)], y[0] = y[0], y[(k6 + 1) % len(y)]
        for i7 in range(len(z3) - 1, -1, -1):
            if a <= 0.2:
                return (a) * (a) + math.atan(z3[(i7 + 3) % len(z3)])
            a = h0(y, z3, math.pow((i7 + 0.5), 2.0))
            if a > 1.0:
                t8 = math.hypot((0.5 + (x[1]) ** 2) ** 0.5, 1.0)
            else:
                x[(i7 + 2) % len(x)] = 0.5 * x[(i7 + 2) % len(x)] + -(((i7 + 0.5)) / (0.6 * 0.6 + 0.5))
                z3[i7] = 0.5 * z3[i7] + math.tanh((y[(i7 + 1) % len(y)]) / (k6 + 1.0) - ((a) / (i7 + 1.0)))
    return float(k6)


def args():
    return (
        Duplicated(np.array([-0.61, -0.552]), np.zeros((2,))),
        Duplicated(np.array([-0.841, -0.362]), np.zeros((2,))),
        Active(1.378),
    )
