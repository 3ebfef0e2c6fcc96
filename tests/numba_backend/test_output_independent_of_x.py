"""Forward-mode gradients on numba of an f whose float result does not depend on x: the
generated code returns one tangent, 0.0, for all its lanes, which the engine wrote into the
gradient as if it held one per lane (an IndexError: "array is 0-dimensional"). The gradient is
zeros, as in reverse mode and on the python backend."""

import numpy as np
import pytest

import srcad


def sum_of_squares_of_w(x, w):
    s = 0.0
    for i in range(len(x)):  # x's length only
        s += w[i] * w[i]
    return s


def of_a_float(t, w):
    return float(np.sum(w * w))


@pytest.mark.slow  # numba compiles two forward functions (~5 s)
def test_forward_gradients_of_a_result_independent_of_x_are_zeros():
    x, w = np.array([0.3, 0.5, 0.1]), np.array([0.2, 0.4, 0.6])
    for backend in ("python", "numba"):
        got = srcad.gradient(sum_of_squares_of_w, x, srcad.Constant(w), mode="forward",
                             backend=backend)
        np.testing.assert_array_equal(got, np.zeros(3))
        value, got = srcad.value_and_gradient(sum_of_squares_of_w, x, srcad.Constant(w),
                                              mode="forward", backend=backend)
        assert value == pytest.approx(0.56) and np.all(got == 0.0)
        assert srcad.gradient(of_a_float, 0.5, srcad.Constant(w), mode="forward",
                              backend=backend) == 0.0
