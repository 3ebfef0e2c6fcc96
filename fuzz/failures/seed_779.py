"""srcad fuzz failure: seed 779 (as generated); crashed

signature: IndexError at generated:f_reverse: pop from empty list

File "/work/main/fuzz/run.py", line 233, in run_check
    _check(f, args(), 1e-6, timeout)
  File "/work/main/fuzz/run.py", line 222, in _check
    check_grads(f, *args, eps=eps)
  File "/work/main/srcad/testing.py", line 82, in check_grads
    derivs = autodiff(Reverse, f, *call_args, seed=out_weight if scalar_out else None,
             ^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^
  File "/work/main/srcad/api.py", line 196, in autodiff
    if seed is None:
                     
  File "<srcad f_reverse #525>", line 77, in f_reverse
    branch = int_tape.pop()
             ^^^^^^^^^^^^^^
IndexError: pop from empty list

Reproduce: check_grads(f, *args()) from srcad.testing.
"""
# ruff: noqa
import math

import numpy as np

from srcad import Active, Duplicated  # noqa: F401


def h0(dst, src, t):
    for i1 in range(len(dst)):
        dst[i1] = math.exp(math.cos(src[(i1 + 3) % len(src)]))
        t2 = (math.pow(dst[i1], 2.0)) * (dst[len(dst) - 1 - i1])
        t2 *= math.cos(math.sqrt(1.0 + (t2) * (t2)))
    src[1] -= max(t, 3.0)
    return ((t) * (t)) / (0.9 + t * 0.9 + t + 0.5)


def h1(arr, t):
    for i3 in range(len(arr)):
        arr[i3] = math.cos(float(i3)) + t
        t = -(arr[len(arr) - 1 - i3]) if -(arr[len(arr) - 1 - i3]) + np.exp(math.tanh(float(i3))) > -0.3 else arr[i3]
    k4 = 0
    while k4 < 1 and min(t, arr[-2]) >= 0.5:
        k4 += 1
        arr[1], arr[1] = arr[1], arr[1]
        arr[(k4 + 2) % len(arr)] = 0.5 * arr[(k4 + 2) % len(arr)] + arr[0]
        t /= (1.0 + (math.cosh(math.sin(math.exp(-(t) * (t))))) ** 2)
    t += -((0.1 * k4) / (k4 + 1.0))
    return -((t) ** 2)


def f(y, x, a, n):
    kc = 0
    z5 = np.ones(2)
    z6 = np.zeros_like(y)
    a = math.atan(a + math.erf(2.0))
    t7 = (kc + 0.5) + (a) * (a)
    if -(t7) > 0.0:
        return
    t7 -= float(kc)
    y[n] -= t7
    y[len(y) - 1 - n] = a
    x[n] += math.cosh(math.sin(t7))
    for i8 in range(0, len(z5), 2):
        if (0.1 * n if i8 % 2 == 0 else a) <= x[0]:
            for i9 in range(0, len(z6), 2):
                t7 -= y[i8]
                a, t7 = t7, a
            if (x[n] + a if i8 > 2 else (z5[i8]) * (x[(n + 1) % len(x)])) > a:
                break
            t10 = t7
        else:
            k11 = 0
            while k11 < 5 and float(kc) <= 1.0:
                k11 += 1
                if math.exp(math.cos(t7)) - (t7 + a) > -0.3 and z5[-1] < (t7) ** 2:
                    return
            t12 = 0.1 * k11 if y[i8] < -0.3 else -(z5[i8])


def args():
    return (
        Duplicated(np.array([-0.315, -1.498]), np.zeros((2,))),
        Duplicated(np.array([0.123, 1.155, 1.2, -0.076, 1.396]), np.zeros((5,))),
        Active(-0.096),
        1,
    )
