"""srcad fuzz failure: seed 1921 (as generated); crashed

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
                   
  File "<srcad f_reverse #420>", line 131, in f_reverse
    branch = int_tape.pop()
             ^^^^^^^^^^^^^^
IndexError: pop from empty list

Reproduce: check_grads(f, *args()) from srcad.testing.
"""
# ruff: noqa
import math

import numpy as np

from srcad import Active, Duplicated  # noqa: F401


def h0(u, v):
    for i1 in range(1):
        if v >= 0.0:
            continue
        for i2 in range(2, 5):
            v = (0.1 + u) / (i2 + 1.0)
            if 0.1 * i2 <= 0.0:
                return v
    return u


def h1(u, v):
    t3 = h0(v, math.cos(-(v)))
    return (u) * (2.0) + v, v


def f(x, a):
    kc = 0
    z4 = np.zeros_like(x)
    a -= (max(z4[(kc + 3) % len(z4)], 0.9)) ** 2 + -(math.sin(z4[(kc + 3) % len(z4)]))
    t5 = math.log(1.0 + (a) * (a))
    t5 = min(z4[1], z4[1])
    for i6 in range(len(z4)):
        if math.pow(math.exp(-(t5) * (t5)), 2.0) < -1.0 or z4[-2] < -1.0:
            t7 = h0(a, 1.5)
            if z4[i6] <= 0.2:
                return math.expm1(math.tanh(1.5))
            t8 = h0(abs(float(i6)), (i6 + 0.5))
        else:
            if (1.5 if a >= (x[(kc + 1) % len(x)]) * (z4[len(z4) - 1 - i6]) else z4[i6]) > -0.3:
                break
            a = math.atan(x[(kc + 3) % len(x)]) if t5 < 0.5 else (t5) / (t5 * t5 + 0.5)
        if -(a) >= 0.6:
            break
        t9 = math.sin(t5) if z4[(kc + 1) % len(z4)] >= 0.0 else z4[1]
        z4[(kc + 0) % len(z4)] = -(math.fabs(0.1 * kc))
    return 1.2 + t5 + a


def args():
    return (
        Duplicated(np.array([1.109, 1.452, -0.838]), np.zeros((3,))),
        Active(0.565),
    )
