"""srcad fuzz failure: seed 72088 (minimized); crashed

signature: IndexError at generated:f_reverse: index N is out of bounds for axis N with size N

After the loop k8 is 4, past the end of x; `x[3] -= a if x[len(x) - 1 - k8] >= -0.3 else x[k8]`
takes the first branch, so the primal never reads x[4]. The reverse sweep accumulated into
both branches, `x_bar[k8] += 0.0 if x_value >= -0.3 else -g`, evaluating x_bar[4]; batched
forward mode multiplied `x_dot_0[k8]` by a zero coefficient. Both raised IndexError (a negative
out-of-range index would have wrapped around silently, adding zero). Now the seed goes to the
taken branch only, in an `if`, and a conditional expression's tangent selects the taken
branch's tangent (srcad/transform/expressions.py).

Reproduce: check_grads(f, *args()) from srcad.testing.
"""
# ruff: noqa
import math
import numpy as np
from srcad import Active, Duplicated

def f(y, x, a):
    k8 = 0
    while True:
        k8 += 1
        if k8 > 3:
            break
    x[3] -= a if x[len(x) - 1 - k8] >= -0.3 else x[k8]


def args():
    return (Duplicated(np.array([0.787, 0.631, 0.238]), np.zeros((3,))), Duplicated(np.array([1.451, -1.291, 0.062, 0.206]), np.zeros((4,))), Active(0.612))
