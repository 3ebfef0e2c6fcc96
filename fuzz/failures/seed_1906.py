"""srcad fuzz failure: seed 1906 (as generated); crashed

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
                   
  File "<srcad f_reverse #495>", line 252, in f_reverse
    while_trips = int_tape.pop()
                  ^^^^^^^^^^^^^^
IndexError: pop from empty list

Reproduce: check_grads(f, *args()) from srcad.testing.
"""
# ruff: noqa
import math

import numpy as np

from srcad import Active, Duplicated  # noqa: F401


def h0(arr, t):
    for i1 in range(len(arr)):
        arr[i1] = float(i1) * 0.5 + np.tanh(t)
        t2 = (math.exp(math.tanh(arr[0])) if t < 0.5 else (float(i1)) * (t))
    t *= (0.9 + 0.1 * math.sin(arr[0]))
    k3 = 0
    while k3 < 4 and math.log(1.0 + (t) * (t)) <= 0.0:
        k3 += 1
        t += (t) * (arr[1])
    return k3 * (math.erf(t))


def f(x, a):
    kc = 0
    z4 = np.zeros(len(x))
    t5 = math.tanh(0.75)
    t6 = 0.1 * kc
    x[-2] *= math.tanh((math.cosh(math.sin(0.25))) * ((0.75) / (x[(kc + 3) % len(x)] * x[(kc + 3) % len(x)] + 0.5)))
    t6 = h0(z4, z4[-2])
    z4[(kc + 0) % len(z4)] = math.sqrt(1.0 + (math.log(1.0 + (t5) * (t5))) * (math.log(1.0 + (t5) * (t5))))
    t7 = h0(x, a)
    z4[(kc + 1) % len(z4)] += (t5) * (z4[(kc + 3) % len(z4)])
    a = 0.5 * a + z4[(kc + 2) % len(z4)]
    for i8 in range(len(x)):
        if x[(i8 + 0) % len(x)] > -0.3:
            t5 = 0.1 * kc if a < 0.5 else (0.5 + (x[i8]) ** 2) ** 0.5
        elif (t7) / (1.5 + (a) * (a)) <= -1.0:
            if kc < 3:
                return (t5 + z4[(i8 + 2) % len(z4)]) / (1.0 + math.exp(-(t7) * (t7)))
            if (t6) / (z4[i8] * z4[i8] + 0.5) < 0.0:
                continue
        else:
            x[(i8 + 0) % len(x)], x[i8] = x[i8], x[(i8 + 0) % len(x)]
        t6 /= (1.0 + (z4[0]) ** 2)
        if math.log(1.0 + (x[i8]) * (x[i8])) > 0.5:
            break
    return math.log(1.0 + (kc * (z4[(kc + 1) % len(z4)])) * (kc * (z4[(kc + 1) % len(z4)])))


def args():
    return (
        Duplicated(np.array([-1.253, -0.565, -1.069, 0.454]), np.zeros((4,))),
        Active(1.333),
    )
