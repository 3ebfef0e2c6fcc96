"""srcad fuzz failure: seed 1247 (as generated); crashed

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
                   
  File "<srcad f_reverse #9>", line 88, in f_reverse
    while_trips_1 = int_tape.pop()
                    ^^^^^^^^^^^^^^
IndexError: pop from empty list

Reproduce: check_grads(f, *args()) from srcad.testing.
"""
# ruff: noqa
import math

import numpy as np

from srcad import Active, Duplicated  # noqa: F401


def f(y, x, a):
    kc = 0
    a -= (((kc + 0.5)) / (kc + 1.0) if kc > 2 else (y[-2]) / (2.0 + math.sin(math.atan(y[(kc + 1) % len(y)]))))
    a = 0.5 * a + (0.5 + (float(kc) * 0.5 + a) ** 2) ** 0.5
    y[3] = math.cos(x[(kc + 2) % len(x)] + y[3] - (y[0]))
    for i1 in range(0, len(y), 2):
        k2 = 0
        while k2 < 4 and -(a) > x[(i1 + 2) % len(x)] + a:
            k2 += 1
            y[-4] = (y[i1]) * ((k2 + 0.5))
            y[len(y) - 1 - i1] -= ((a) * (2.0)) * ((y[(i1 + 0) % len(y)]) * (y[-3]))
            k3 = 0
            while True:
                k3 += 1
                if k3 > 3 or math.tanh(math.cos((k2 + 0.5))) >= -0.3:
                    break
                y[(k3 + 2) % len(y)], y[i1] = y[i1], y[(k3 + 2) % len(y)]
                if min(x[0], x[(k3 + 3) % len(x)]) <= 0.0:
                    continue
                t4 = (0.5 + (abs((y[i1]) * (x[(i1 + 0) % len(x)]))) ** 2) ** 0.5
        a += math.sin(0.25)
        if k2 < 3:
            if i1 < 2:
                break
        else:
            a = 0.5 * a + 1.2 + a


def args():
    return (
        Duplicated(np.array([-0.73, -0.781, 0.406, 0.22]), np.zeros((4,))),
        Duplicated(np.array([1.322, 0.718]), np.zeros((2,))),
        Active(-1.444),
    )
