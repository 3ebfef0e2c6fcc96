"""srcad fuzz failure: nested forms, seed 40 (the numba backend's run; the python backend's
answer was the same); disagreed: reverse <J^T u, v> 0.0180 against central differences 0.0096.

`v = v - -0.258 * d` with v's first value constant: the reset of v_bar before the adjoint's
`v_bar += g` was dropped as dead, and the addition then wrote into the array g still named
(srcad/transform/optimize.py, drop_dead_resets).
"""
# ruff: noqa
import math

import numpy as np

import srcad
from srcad import Active

BACKENDS = ("python", "numba")


def g0(v, p):
    s = 0.0
    for i in range(2):
        s += v[i] * v[i] * p * p + p * v[i] ** 3 * 0.775
    return s + math.sin(p)


def g1(v, p):
    s = 0.0
    for i in range(2):
        s += p * v[i] ** 3 * -0.767 + math.tanh(v[i]) * p + v[i] * v[i] * p * p
    return s + p * p * 0.38


def f(x, a):
    s = a * -0.164
    v = x * 0.896
    d = srcad.grad(g1)(v, a * 0.322 + s * -0.778)
    v = v - -0.258 * d
    s = s + d[0] * 0.513
    for k in range(2):
        v = -0.535 * srcad.grad(g1)(v, a * -0.88 + s * -0.28) + v
        s = s + v[0] * v[1]
    d = srcad.grad(g0)(v, a * -0.151 + s * 0.605)
    e = srcad.grad(g0)(np.concatenate((v, v * 0.659)), a * -0.151 + s * 0.605)
    s = s + d[0] * e[1] + e[1] * -0.757
    return s + v[0]


def args():
    return (np.array([0.69, 0.58]), Active(1.326))
