"""srcad fuzz failure: seed 836 (as generated); crashed

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
                     
  File "<srcad f_reverse #96>", line 71, in f_reverse
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
    u = v if u < v else (u if v > -1.0 else 0.25)
    return 0.3


def h1(u, v):
    if u < v:
        t1 = math.expm1(math.tanh(v))
        v = 0.3
        t2 = math.log(1.0 + (v) * (v)) if u < -0.3 or v > (t1 if not (u - (v) if 0.5 + t1 < 0.5 and np.tanh(v) >= 1.0 else u) > 0.5 else 0.1) else (u) / (2.0 + math.sin(t1))
    elif v > 0.2:
        u -= (math.log1p((u) ** 2)) * (v - (0.6))
    else:
        t3 = (u) * (u)
    return (u if min(math.pow(v, 2.0), u) < v else u + u), 2.0


def f(y, x, a):
    kc = 0
    a *= math.tanh(-(y[(kc + 3) % len(y)]))
    a = math.pow(-(x[0] + x[1]), 2.0)
    if (y[0]) / (1.0 + math.exp(-(y[-1]) * (y[-1]))) + a < 0.5:
        for i4 in range(0, 3):
            a /= (1.0 + (y[i4]) ** 2)
            for j6, v5 in enumerate(x):
                if (kc + 0.5) + (v5 if (x[i4]) / ((v5 if math.cosh(math.sin(x[i4])) - (np.exp(math.cos(a))) < 0.2 else y[i4]) * (v5 if math.cosh(math.sin(x[i4])) - (np.exp(math.cos(a))) < 0.2 else y[i4]) + 0.5) > j6 * (x[j6]) and y[j6] <= math.log(1.0 + (y[i4]) * (y[i4])) else v5) >= 1.0:
                    return
                y[i4] += y[j6]
                if i4 % 3 != 1:
                    return
    elif kc < 2:
        kc += 1
        if a + 1.2 < math.cos(x[(kc + 0) % len(x)]):
            t7 = min(a, float(kc))
        else:
            a *= (0.9 + 0.1 * math.sin(a))
    else:
        t8 = math.pow((((kc + 0.5) if not float(kc) > -1.0 else a)) * (1.2 + y[(kc + 1) % len(y)]), 2.0)


def args():
    return (
        Duplicated(np.array([-1.237, 0.098, -0.333, 0.032]), np.zeros((4,))),
        Duplicated(np.array([-0.982, 1.494, 1.282]), np.zeros((3,))),
        Active(-0.166),
    )
