"""srcad fuzz failure (numba backend, reverse mode): seed 416 of the generator, refused with a
misleading message ("Variable 'j4' is not defined").

The innermost loop `for i6 in range(j4 + 1)` has a trip count fixed within the middle loop but
not within the outer one, which binds j4; the tape space of the middle and inner loops was
reserved before the outer loop, reading j4 before it exists (or, had j4 a value from before the
loop, with too little space: pushes past the tape's end). Fixed: a count is handed to an
enclosing loop only when every name in it keeps its value there (srcad/transform/reverse/control_flow.py).

Reproduce: check_grads(f, *args(), backend='numba') from srcad.testing.
"""
# ruff: noqa
import math

import numpy as np

from srcad import Active, Duplicated

BACKENDS = ("python", "numba")


def h0(u, v):
    if (0.5 + (math.atan2(u, 2.0 + math.cos(u))) ** 2) ** 0.5 > (v) * (u):
        k1 = 0
        while k1 < 5 and (0.6 + v) * (u) < -0.3:
            k1 += 1
            t2 = math.sqrt(1.0 + ((v) * ((0.5 + (v) ** 2) ** 0.5)) * ((v) * ((0.5 + (v) ** 2) ** 0.5)))
            v /= (1.0 + (((0.25 if k1 % 2 == 0 else math.log(1.0 + (v) * (v))) if k1 % 2 == 0 or t2 > -1.0 else v)) ** 2)
            v = (0.5 + (v) ** 2) ** 0.5
        u *= math.cos(((2.0) * (0.75)) * (min(0.75, u)))
    return u


def f(y, x, a):
    kc = 0
    a = 0.5 * a + x[(kc + 0) % len(x)]
    a += math.cos(0.9)
    for j4, v3 in enumerate(x):
        for v5 in x:
            for i6 in range(j4 + 1):
                x[j4] *= (0.9 + 0.1 * math.sin(y[(j4 + 3) % len(y)] + x[i6]))
                v5 -= 0.1 * j4
                y[len(y) - 1 - j4] -= y[j4]
            t7 = float(kc) * 0.5 + ((y[len(y) - 1 - j4]) * (y[j4])) * ((a) * (float(kc)))
            if j4 < 3:
                continue
        if v3 <= a:
            v3 = (v3) / (1.0 + math.exp(-(v3) * (v3))) if v3 < 0.0 and a <= (x[3]) * (y[j4]) else v3
        else:
            v3 += 1.5


def args():
    return (Duplicated(np.linspace(0.1, 0.5, 5), np.zeros(5)),
            Duplicated(np.linspace(0.2, 0.8, 4), np.zeros(4)), Active(0.3))
