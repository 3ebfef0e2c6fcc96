"""srcad fuzz failure: seed 1187 (as generated); crashed

signature: IndexError at generated:f_reverse: pop from empty list

File "/work/main/fuzz/run.py", line 233, in run_check
    _check(f, args(), 1e-6, timeout)
  File "/work/main/fuzz/run.py", line 222, in _check
    check_grads(f, *args, eps=eps)
  File "/work/main/srcad/testing.py", line 82, in check_grads
    derivs = autodiff(Reverse, f, *call_args, seed=out_weight if scalar_out else None,
             ^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^
  File "/work/main/srcad/api.py", line 196, in autodiff
    f = _target(f)
                   
  File "<srcad f_reverse #519>", line 99, in f_reverse
    branch_1 = int_tape.pop()
               ^^^^^^^^^^^^^^
IndexError: pop from empty list

Reproduce: check_grads(f, *args()) from srcad.testing.
"""
# ruff: noqa
import math

import numpy as np

from srcad import Active, Duplicated  # noqa: F401


def h0(u, v):
    u /= (1.0 + ((((v) * (u)) * (min(u, v)) if (v if math.expm1(math.tanh(u)) > -0.3 else (u) / (1.0 + math.exp(-(u) * (u)))) < math.tanh(u) and v <= 0.5 else np.sin(v) + u)) ** 2)
    v = 0.5 * v + (((u) * (v)) * ((u) / (1.5 + (u) * (u)))) * (u)
    v, u = u, v
    return ((v) / (1.0 + math.exp(math.sin(0.75)))) * (math.fabs(v)), v - (v)


def h1(u, v):
    v /= (1.0 + (v + u - (u + v)) ** 2)
    t1 = (u) ** 2
    for i2 in range(4):
        if v >= (v) / (1.0 + math.exp(-(v) * (v))):
            continue
        t3 = (u) / (2.0 + math.sin(0.75))
        k4 = 0
        while k4 < 5 and t1 > 0.0:
            k4 += 1
            t5 = math.hypot(math.fabs(np.tanh(u)), 1.0)
    return (0.3 + t1) * (-(1.2))


def h2(dst, src, t):
    for i6 in range(len(dst)):
        dst[i6] = math.log(1.0 + (math.exp(math.sin(dst[len(dst) - 1 - i6]))) * (math.exp(math.sin(dst[len(dst) - 1 - i6]))))
        t7 = src[(i6 + 0) % len(src)]
    t += dst[0] - (t)
    t8 = h1(src[0], (t + src[1]) * (math.exp(-(t) * (t))))
    t9 = math.hypot(src[-1] + src[1] - (t), 1.0)
    k10 = 0
    while k10 < 2 and t9 <= 0.2:
        k10 += 1
        if (0.5 + (min(t9, dst[(k10 + 0) % len(dst)])) ** 2) ** 0.5 <= -0.3:
            t11 = (0.5 + (src[(k10 + 3) % len(src)]) ** 2) ** 0.5
        elif t < math.cosh(math.sin(dst[(k10 + 2) % len(dst)])):
            t -= (dst[0]) * (src[-1]) + -(dst[(k10 + 3) % len(dst)])
        else:
            t12 = (src[1]) / (t * t + 0.5)
    return t + src[(k10 + 1) % len(src)] + 0.3


def f(y, x, a):
    kc = 0
    a = 0.5 * a + math.sqrt(1.0 + (-((kc + 0.5))) * (-((kc + 0.5))))
    for j14, v13 in enumerate(y):
        y[j14], y[j14] = y[j14], y[j14]
        if y[j14] <= -1.0:
            if kc * (a) >= 0.0:
                a /= (1.0 + (math.erf(x[(kc + 3) % len(x)])) ** 2)
                a += y[len(y) - 1 - j14]
                if j14 < 3:
                    break
            else:
                t15, t16 = h0(-(3.0), (j14 + 0.5))
                x[(kc + 1) % len(x)] *= math.cos(v13)
        if y[len(y) - 1 - j14] <= 1.0:
            break
    x[-2] -= math.fabs(y[2] - ((x[-4]) * (a)))
    return ((a) * (x[-2])) / (2.0 + math.sin((a) / (kc + 1.0)))


def args():
    return (
        Duplicated(np.array([1.036, -0.582, -0.556, 0.92, 0.942]), np.zeros((5,))),
        Duplicated(np.array([0.78, -0.379, 1.368, -1.149]), np.zeros((4,))),
        Active(1.225),
    )
