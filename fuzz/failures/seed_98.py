"""srcad fuzz failure: seed 98 (as generated); crashed

signature: IndexError at generated:f_reverse: pop from empty list

File "/work/main/fuzz/run.py", line 233, in run_check
    _check(f, args(), 1e-6, timeout)
  File "/work/main/fuzz/run.py", line 222, in _check
    check_grads(f, *args, eps=eps)
  File "/work/main/srcad/testing.py", line 82, in check_grads
    derivs = autodiff(Reverse, f, *call_args, seed=out_weight if scalar_out else None,
             ^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^
  File "/work/main/srcad/api.py", line 196, in autodiff
    value, adjoints = compiled.function(*call.flat, seed, *tape_buffers(compiled))[:2]
                      ^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^
  File "<srcad f_reverse #150>", line 77, in f_reverse
    v4_index_trips = int_tape.pop()
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
        dst[i1] = (0.25) * (dst[(i1 + 0) % len(dst)]) + max(t, dst[(i1 + 1) % len(dst)])
        t = math.expm1(math.tanh(t)) if np.sin(t) <= -1.0 else 0.1 * i1
    src[0] *= math.tanh(t)
    return dst[1]


def f(y, x, a):
    kc = 0
    z2 = np.ones(4)
    a -= (math.pow(a, 2.0) if kc > 1 else (z2[(kc + 0) % len(z2)]) / (1.0 + math.exp(math.tanh((kc + 0.5)))))
    z2[1] = 0.5 * z2[1] + 0.1 * kc
    a = kc * ((0.5 + (math.atan2(a, 2.0 + math.cos(a))) ** 2) ** 0.5)
    for i3 in range(len(y) - 1, -1, -1):
        for v4 in x:
            if x[(kc + 0) % len(x)] < 1.0 or np.tanh(y[(i3 + 1) % len(y)]) >= -0.3:
                t5 = h0(y, z2, float(kc))
                t6 = h0(y, x, (kc + 0.5))
                if x[(kc + 2) % len(x)] <= 0.5:
                    break
            t7 = (math.exp(math.sin(0.25))) * (np.sin(z2[(kc + 1) % len(z2)]))
        x[len(x) - 1 - i3] = a + a


def args():
    return (
        Duplicated(np.array([1.331, 1.054]), np.zeros((2,))),
        Duplicated(np.array([-1.283, -0.627, -1.24, -0.45, -0.661]), np.zeros((5,))),
        Active(-1.363),
    )
