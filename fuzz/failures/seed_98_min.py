"""srcad fuzz failure: seed 98 (minimized); crashed

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
                   
  File "<srcad f_reverse #83>", line 40, in f_reverse
    branch = int_tape.pop()
             ^^^^^^^^^^^^^^
IndexError: pop from empty list

Reproduce: check_grads(f, *args()) from srcad.testing.
"""
# ruff: noqa
import math
import numpy as np
from srcad import Active, Duplicated

def f(y, x, a):
    kc = 0
    for i3 in range(len(y) - 1, -1, -1):
        if x[(kc + 0) % len(x)] < 1.0 or np.tanh(y[(i3 + 1) % len(y)]) >= -0.3:
            if x[(kc + 2) % len(x)] <= 0.5:
                break
        x[len(x) - 1 - i3] = a + a


def args():
    return (Duplicated(np.array([1.331, 1.054]), np.zeros((2,))), Duplicated(np.array([-1.283, -0.627, -1.24, -0.45, -0.661]), np.zeros((5,))), Active(-1.363))
