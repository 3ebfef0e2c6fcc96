"""srcad fuzz failure: seed 1468 (as generated); crashed

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
                   
  File "<srcad f_reverse #331>", line 149, in f_reverse
    a = tape.pop()
        ^^^^^^^^^^
IndexError: pop from empty list

Reproduce: check_grads(f, *args()) from srcad.testing.
"""
# ruff: noqa
import math

import numpy as np

from srcad import Active, Duplicated  # noqa: F401


def h0(u, v):
    for i1 in range(0, 1):
        u = -(float(i1)) if u > 0.5 else (1.5) / (u * u + 0.5)
    t2 = (u if not math.pow(2.0, 2.0) > -0.3 else v)
    return 3.0 + v + u


def h1(u, v):
    u += (2.0 + (u) * (0.5)) ** 2
    k3 = 0
    while k3 < 5 and (u if (u) / (1.5 + (v) * (v)) + math.fabs(v) < 0.0 else v) < v + u:
        k3 += 1
        if v > v + u:
            return ((v) * (v)) * ((k3 + 0.5))
        for i4 in range(k3):
            if k3 % 2 == 0:
                return -(v)
    return (u) / (np.sin(v) * np.sin(v) + 0.5)


def h2(u, v):
    for i5 in range(2):
        v += abs(max(u, v))
    u = v
    return 0.75, v


def f(y, x, a):
    z6 = np.zeros(len(x))
    x[0] = math.fabs(math.hypot(a, 1.0))
    for i7 in range(len(x) - 1, -1, -1):
        a += h1(float(i7), a)
        y[(i7 + 3) % len(y)] += y[(i7 + 0) % len(y)]
    a += math.log(1.0 + (y[-1]) * (y[-1]))
    a *= math.cos((0.5 + (a) ** 2) ** 0.5)
    a = a
    z6[-1] = 0.5 * z6[-1] + a
    y[0] += a
    a = z6[2] + a if z6[-1] >= z6[0] else y[0]
    return x[0] + a + a + a


def args():
    return (
        Duplicated(np.array([-0.207, -0.048]), np.zeros((2,))),
        Duplicated(np.array([-0.553, 1.2, 1.317]), np.zeros((3,))),
        Active(-0.856),
    )
