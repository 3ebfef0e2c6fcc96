"""srcad fuzz failure (numba backend, reverse mode): seed 7002 of the generator, refused
("numba cannot compile the generated code: Cannot unify array(float64, 0d, C) and float64").

The helper's float parameter `t` is bound, when the call is inlined, to the value of a math
call the reverse sweep tapes (`t = expm1`), and the helper updates it in place (`t /= ...`).
Such a binding to an array gets a copy of its own (`p = np.exp(x)` then `p[1] /= c`), and the
float got one too: `np.copy(expm1)`, a 0-d array, then rebound to floats in the loop. Fixed:
only an array is copied (srcad/transform/reverse/taped_intermediates.py).

Reproduce: check_grads(f, *args(), backend='numba') from srcad.testing.
"""
# ruff: noqa
import math

import numpy as np

from srcad import Active, Duplicated

BACKENDS = ("python", "numba")


def h(x, t):
    for i in range(len(x)):
        t /= 1.0 + x[i] ** 2
    return math.tanh(t) ** 2


def f(x, a):
    return h(x, math.expm1(math.tanh(-a))) * x[0]


def args():
    return (Duplicated(np.array([-1.076, 0.651, -1.277, -0.243]), np.zeros(4)), Active(0.133))
