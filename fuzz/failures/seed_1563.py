"""srcad fuzz failure: seed 1563 (as generated); crashed

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
                   
  File "<srcad f_reverse #494>", line 129, in f_reverse
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
    u -= math.sqrt(1.0 + (1.5) * (1.5))
    v, u = u, v
    u = (v) * (u) if not v <= 0.0 else v + v
    return math.erf(0.75), 0.3


def h1(u, v):
    t1 = (u if u >= math.expm1(math.tanh(v)) and u < 2.0 else u)
    k2 = 0
    while True:
        k2 += 1
        if k2 > 2 or 0.1 * k2 > 0.0:
            break
        v *= math.cos((t1) * (v))
    return (max(u, u)) / (1.0 + math.exp(math.tanh((t1) ** 2)))


def f(y, x, a):
    kc = 0
    a /= (1.0 + (kc * (((x[2] if not (kc + 0.5) >= a else x[(kc + 3) % len(x)])) / (2.0 + math.sin(math.expm1(math.tanh(float(kc))))))) ** 2)
    a = 3.0 if y[0] >= max(0.3, 1.2) else a
    t3 = h1(min(y[2], (a) * (a)), a)
    a, t3 = t3, a
    y[-2] = 0.5 * y[-2] + (a) * (t3)
    for i4 in range(len(y) - 1, -1, -1):
        x[i4] = y[len(y) - 1 - i4]
        if i4 % 2 == 0:
            t3 = 0.5 * t3 + a
        elif a < 0.2:
            t5 = math.erf(a + x[(i4 + 3) % len(x)]) + h1(y[(i4 + 2) % len(y)] + y[(kc + 0) % len(y)], x[i4])
            y[i4] = x[i4]
        else:
            if x[i4] >= 0.2:
                return (a) / (kc + 1.0) - (-(t3))
        a = float(i4) - (t3)
        if kc % 3 != 1:
            break
    return t3


def args():
    return (
        Duplicated(np.array([-0.413, 1.407, -0.723, -0.82]), np.zeros((4,))),
        Duplicated(np.array([-1.339, -0.513, -0.48, -0.278]), np.zeros((4,))),
        Active(-0.453),
    )
