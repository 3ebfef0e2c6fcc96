"""srcad fuzz failure: seed 362 (minimized); crashed

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
                   
  File "<srcad f_reverse #4526>", line 63, in f_reverse
    branch = int_tape.pop()
             ^^^^^^^^^^^^^^
IndexError: pop from empty list

Reproduce: check_grads(f, *args()) from srcad.testing.
"""
# ruff: noqa
import math
import numpy as np
from srcad import Active, Duplicated

def h0(dst, src, t):
    for i1 in range(len(dst)):
        if min(i1 + 0.5, t) / (1.5 + src[(i1 + 1) % len(src)] * t * (src[(i1 + 1) % len(src)] * t)) >= 1.0:
            pass
        elif i1 % 2 == 0:
            break
        t = math.sin(dst[len(dst) - 1 - i1] / (1.5 + t * t))
    t3 = t
    return math.atan(src[0] + t3)

def f(y, x, a):
    z8 = np.zeros((len(x), 2))
    z9 = np.zeros_like(x)
    a = h0(z9, z9, y[1] - z9[-3])
    return -z9[-1] if z8[2, -2] >= 0.5 else a + y[2]


def args():
    return (Duplicated(np.array([-1.077, 0.281, -0.866]), np.zeros((3,))), Duplicated(np.array([-1.236, 0.001, 0.443]), np.zeros((3,))), Active(1.078))
