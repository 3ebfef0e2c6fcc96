"""srcad fuzz failure with mixed annotations (minimized from seed 10012); crashed.

`a` is passed bare (Const) but becomes active: `a *= x[n]` makes it depend on the Duplicated
`x`, so the activity analysis marks it active everywhere. The element write `x[n] = a` read
its tangent before any statement had set it: forward and vector mode raised
`UnboundLocalError: cannot access local variable 'a_dot'`. A tangent read before it is set on
some path is now zero at entry (srcad/transform/forward/unset_tangents.py).

Reproduce: check_grads(f, *args()) from srcad.testing.
"""
# ruff: noqa
import math
import numpy as np
from srcad import Active, Duplicated

def f(y, x, a, n):
    x[n] = a
    a *= x[n]


def args():
    return (Duplicated(np.array([-1.225, -0.901, 1.054, -1.19, -0.805]), np.zeros((5,))), Duplicated(np.array([0.338, -0.564, 0.865, 0.755, -1.41]), np.zeros((5,))), -0.418, 4)
