"""Batched reverse lanes on numba (`BatchDuplicated`) of an f whose nested gradient runs in
the forward sweep only (its result never reaches the return value): the lanes' code calls
the nested kernel, which the one-lane code imports from srcad's helper module, and the lanes'
module imports it too. It was refused ("the numba backend cannot embed the global
`srcad_nested_gradient_1_scratch` (CPUDispatcher)"), naming srcad's cached module. Each lane
adds its seed times the adjoint of one reverse call, which is central differences'."""

import math

import numpy as np
import pytest

import srcad


def energy(p, q):
    r = p * q + 0.2
    return np.sum(r * r)


def descent_left_unused(x, w):
    v = w.copy()
    for _k in range(2):
        v = v - 0.1 * srcad.grad(energy)(v, x)
    return math.sin(x[-1]) * x[0]


@pytest.mark.slow  # numba compiles the nested kernels, the reverse code and its lanes (~20 s)
@pytest.mark.parametrize("n", [2, 5])
def test_lanes_beside_a_nested_gradient_left_unused(n):
    x, w = np.linspace(0.2, 0.8, n), np.linspace(-0.3, 0.5, n)
    seeds = [1.0, -2.5]
    x_lanes = [np.zeros(n), np.zeros(n)]
    w_lanes = [np.zeros(n), np.zeros(n)]
    srcad.autodiff(srcad.Reverse, descent_left_unused, srcad.BatchDuplicated(x.copy(), x_lanes),
                   srcad.BatchDuplicated(w.copy(), w_lanes), seed=seeds, backend="numba")
    want = np.zeros(n)  # by hand: d/dx of sin(x[-1]) * x[0]
    want[0] += math.sin(x[-1])
    want[-1] += math.cos(x[-1]) * x[0]
    for seed, x_bar, w_bar in zip(seeds, x_lanes, w_lanes):
        np.testing.assert_allclose(x_bar, seed * want, rtol=1e-12)
        np.testing.assert_array_equal(w_bar, np.zeros(n))
