"""srcad fuzz failure: seed 362 (as generated); crashed

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
                     
  File "<srcad f_reverse #501>", line 92, in f_reverse
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
        dst[i1] = t
        if (min((i1 + 0.5), t)) / (1.5 + ((src[(i1 + 1) % len(src)]) * (t)) * ((src[(i1 + 1) % len(src)]) * (t))) >= 1.0:
            t2 = (t) * ((t) * (t + 0.1 * i1))
        else:
            if i1 % 2 == 0:
                break
        t = math.sin((dst[len(dst) - 1 - i1]) / (1.5 + (t) * (t)))
    t3 = t
    t += min(math.sqrt(1.0 + (src[-2]) * (src[-2])), math.log(1.0 + (dst[1]) * (dst[1])))
    return math.atan(src[0] + t3)


def h1(arr, t):
    for i4 in range(len(arr)):
        arr[i4] = np.exp(math.sin(float(i4) + 0.6))
        t5 = t
        if t >= -(t):
            t5 = (i4 + 0.5) - (arr[(i4 + 1) % len(arr)]) if i4 % 2 == 0 else 0.1 * i4 + t5
            arr[(i4 + 1) % len(arr)] += t
        else:
            t6 = arr[i4]
    t7 = t
    return ((t7) / (1.0 + math.exp(-(arr[0]) * (arr[0])))) * (arr[0])


def f(y, x, a):
    z8 = np.zeros((len(x), 2))
    z9 = np.zeros_like(x)
    z8[2, -1], z8[2, -1] = z8[2, -1], z8[2, -1]
    a = h0(z9, z9, y[1] - (z9[-3]))
    for j11, v10 in enumerate(z9):
        for i12 in range(1, len(x)):
            v10 = 0.5 * v10 + v10
    return (-(z9[-1]) if z8[2, -2] >= 0.5 else a + y[2])


def args():
    return (
        Duplicated(np.array([-1.077, 0.281, -0.866]), np.zeros((3,))),
        Duplicated(np.array([-1.236, 0.001, 0.443]), np.zeros((3,))),
        Active(1.078),
    )
