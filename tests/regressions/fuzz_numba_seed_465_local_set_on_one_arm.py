"""srcad fuzz failure (numba backend, reverse mode): seed 465 of the generator, refused
("numba cannot compile the generated code ... Unsupported assignment encountered: Undefined").

`t5` is assigned only after the early return `if kc < 1: return ...`; the reverse sweep replays
that branch from a taped flag and reads t5 in the arm where the forward sweep assigned it, but
numba cannot connect the flag to the forward test and sees t5 possibly undefined. Fixed: when
the user's function itself reads no local unassigned, the generated code gives such locals a
zero of their type at entry (srcad/transform/defined.py).

Reproduce: check_grads(f, *args(), backend='numba') from srcad.testing.
"""
# ruff: noqa
import math

import numpy as np

from srcad import Active, Duplicated

BACKENDS = ("python", "numba")


def h0(u, v):
    t1 = (0.5 + (v) ** 2) ** 0.5
    return 1.2


def f(x, a):
    kc = 0
    z2 = x.copy()
    z3 = x.copy()
    t4 = h0(0.1 * kc, 1.2) - (z3[(kc + 1) % len(z3)] + z3[(kc + 2) % len(z3)])
    if kc < 1:
        return z2[(kc + 0) % len(z2)]
    t5 = max(t4, 0.75) if (t4 if kc % 2 == 0 else (z3[-1]) * (a)) < -1.0 else z2[1]
    kc += 1
    z3[(kc + 0) % len(z3)] = 0.5 * z3[(kc + 0) % len(z3)] + -(float(kc) * 0.5 + z3[(kc + 2) % len(z3)])
    a -= (math.atan(0.75)) / (1.0 + math.exp(math.tanh(kc * (z3[2]))))
    for i6 in range(1, len(z3)):
        for i7 in range(len(z2) - 1, -1, -1):
            t5 = 0.5 * t5 + math.atan2(z2[(kc + 3) % len(z2)], 2.0 + math.cos(z2[(kc + 3) % len(z2)]))
            for v8 in z3:
                t9 = h0(float(i6), x[2])
    a *= math.tanh(x[4])
    return ((t5) / (kc + 1.0)) * ((t5) * (float(kc)))


def args():
    return (Duplicated(np.linspace(0.1, 0.5, 5), np.zeros(5)), Active(0.3))
