"""srcad fuzz failure: seed 1454 (as generated); disagreed

signature: AD modes disagree with each other: reverse <J^T u, v>

reverse <J^T u, v> = 0.31876903672807544 disagrees with finite differences 0.4194075193808544 (all: {'finite differences': 0.4194075193808544, 'reverse <J^T u, v>': 0.31876903672807544, 'forward <u, J v>': 0.41940751920799224, 'vector lane 1': 0.41940751920799224, 'vector lane 2 / 2': 0.41940751920799224})

Reproduce: check_grads(f, *args()) from srcad.testing.
"""
# ruff: noqa
import math

import numpy as np

from srcad import Active, Duplicated  # noqa: F401


def h0(u, v):
    k1 = 0
    while k1 < 1 and (u) ** 2 <= 0.2:
        k1 += 1
        v = u
    t2 = math.log1p((u) ** 2) if k1 % 3 != 1 else (u) * (u)
    return v - ((k1 + 0.5)), 0.5


def h1(u, v):
    for i3 in range(4):
        v, t4 = h0(((u) / (2.0 + math.sin(v))) * (u), u)
        u += -(t4)
    for i5 in range(3):
        if u <= 0.2:
            return (i5 * ((i5 + 0.5))) / ((v) / ((i5 + 0.5) * (i5 + 0.5) + 0.5) * (v) / ((i5 + 0.5) * (i5 + 0.5) + 0.5) + 0.5)
    return v + 0.6 - ((v) * (u))


def h2(u, v):
    if u >= -(v) or u < 0.5:
        v, u = u, v
    elif u > (v) ** 2 and u < v:
        v, u = u, v
        t6 = (0.5 + ((u) ** 2) ** 2) ** 0.5
    else:
        t7 = h1(0.3 + u, 1.5 - (u))
        for i8 in range(2):
            t9 = t7
    return (u + u) * ((u if not np.tanh(v) >= v else v))


def f(x, a, n):
    kc = 0
    t10 = x[(n + 1) % len(x)]
    x[(kc + 2) % len(x)] *= (0.9 + 0.1 * math.sin(x[(kc + 0) % len(x)]))
    a -= (0.5) * (a)
    for j12, v11 in enumerate(x):
        if -((x[j12]) * (0.1 * n)) <= np.tanh(v11):
            break
        for i13 in range(len(x) - 1, -1, -1):
            a, t10 = h0(x[(j12 + 2) % len(x)] + 2.0, (n + 0.5))
            if (min(v11, 3.0)) * (x[j12] + (i13 + 0.5)) >= 0.1:
                return ((kc + 0.5) + x[j12]) * (math.pow((n + 0.5), 2.0))
            if kc < 2:
                return -(max(x[i13], x[(i13 + 3) % len(x)]))
        k14 = 0
        while k14 < 1 and x[j12] < 2.0:
            k14 += 1
            x[(kc + 0) % len(x)] = 0.5 * x[(kc + 0) % len(x)] + abs(x[k14])
    return x[(n + 3) % len(x)]


def args():
    return (
        Duplicated(np.array([-1.143, -0.382, -0.689, 0.554]), np.zeros((4,))),
        Active(-1.44),
        4,
    )
