"""Vector mode of whole-array code beyond what lanes in arrays run: in the default batch
layout the lanes run in chunks of at most 16 unrolled lanes (more than 16 lanes on the python
backend; any width on numba), which is exact since tangents are linear in the seeds. Checked
against hand-derived gradients. A function that writes its arguments (refused once: each chunk
would run its primal again) runs each chunk on copies and writes the arguments once."""

import numpy as np
import pytest

import srcad
from srcad import BatchDuplicated
from srcad.errors import SrcadError

RNG = np.random.default_rng(31)


def weighted_sines(x, t):
    return np.sum((x - t) ** 2 * np.sin(x))


def weighted_sines_gradient(x, t):
    return 2.0 * (x - t) * np.sin(x) + (x - t) ** 2 * np.cos(x)


def sine_times_x(x):
    y = np.sin(x) * x
    return y


def writes_its_argument(y, x):
    y[0] = np.sum(x * x)
    return np.sum(x)


@pytest.mark.parametrize("width", [17, 40])
def test_python_vector_mode_of_array_code_beyond_16_lanes(width):
    x, t = RNG.standard_normal(5), RNG.standard_normal(5)
    seeds = RNG.standard_normal((width, 5))
    lanes = srcad.autodiff(srcad.Forward, weighted_sines, BatchDuplicated(x, seeds), t)
    np.testing.assert_allclose(lanes, seeds @ weighted_sines_gradient(x, t), rtol=1e-12)
    tangents, value = srcad.autodiff(srcad.ForwardWithPrimal, weighted_sines,
                                     BatchDuplicated(x, list(seeds)), t)
    np.testing.assert_allclose(tangents, lanes, rtol=1e-15)
    assert value == pytest.approx(weighted_sines(x, t), rel=1e-15)
    again = srcad.autodiff(srcad.Forward, weighted_sines, BatchDuplicated(x, 2.0 * seeds), t)
    np.testing.assert_allclose(again, 2.0 * lanes, rtol=1e-12)  # the remembered refusal


def test_python_jacfwd_of_an_array_valued_function_with_20_inputs():
    x = RNG.standard_normal(20)
    np.testing.assert_allclose(srcad.jacfwd(sine_times_x)(x),
                               np.diag(np.cos(x) * x + np.sin(x)), rtol=1e-12)


def test_a_function_writing_its_arguments_beyond_16_lanes_writes_them_once():
    x = RNG.standard_normal(3)
    y = np.zeros(2)
    seeds = RNG.standard_normal((20, 3))
    y_lanes = np.zeros((20, 2))
    lanes = srcad.autodiff(srcad.Forward, writes_its_argument,
                           BatchDuplicated(y, y_lanes), BatchDuplicated(x, seeds))
    np.testing.assert_allclose(lanes, seeds.sum(axis=1), rtol=1e-15)
    np.testing.assert_allclose(y, [np.sum(x * x), 0.0], rtol=1e-15)  # as one call writes it
    np.testing.assert_allclose(y_lanes[:, 0], 2.0 * seeds @ x, rtol=1e-12)  # its tangents
    assert not y_lanes[:, 1].any()


def doubled_in_place(x):
    x *= 2.0
    return np.sum(x ** 3)


@pytest.mark.slow  # compiles numba code: make test-all
def test_numba_jacfwd_of_a_function_writing_its_input():
    # numba runs whole-array code's lanes in chunks; f writing x was refused (once per chunk)
    x = RNG.standard_normal(20)
    before = x.copy()
    np.testing.assert_allclose(srcad.jacfwd(doubled_in_place, backend="numba")(x),
                               24.0 * before ** 2, rtol=1e-12)
    np.testing.assert_allclose(x, 2.0 * before, rtol=1e-15)  # written once, as the python
    # backend's jacfwd writes it


def test_batch_stacked_asked_for_is_still_refused():
    x, t = RNG.standard_normal(3), RNG.standard_normal(3)
    with pytest.raises(SrcadError, match="stacked lanes"):
        srcad.autodiff(srcad.Forward, weighted_sines, BatchDuplicated(x, np.eye(3)), t,
                       batch="stacked")


def method_sum(x):
    y = np.zeros(2)
    y[0] = x.sum()
    y[1] = x[0]
    return y


def method_max(x):
    y = np.zeros(2)
    y[0] = x.max()
    y[1] = x[0]
    return y


def method_min(x):
    y = np.zeros(2)
    y[0] = x.min()
    y[1] = x[0]
    return y


def method_prod(x):
    y = np.zeros(2)
    y[0] = x.prod()
    y[1] = x[0]
    return y


def method_var(x):
    y = np.zeros(2)
    y[0] = x.var()
    y[1] = x[0]
    return y


X = np.array([0.9, 0.2, 0.1, 0.4])
FIRST = np.eye(4)[0]


@pytest.mark.parametrize("f, row", [
    (method_sum, np.ones(4)),
    (method_max, np.eye(4)[0]),
    (method_min, np.eye(4)[2]),
    (method_prod, np.prod(X) / X),
    (method_var, 2.0 * (X - X.mean()) / 4),
], ids=["sum", "max", "min", "prod", "var"])
def test_a_method_reduction_of_an_active_array_in_vector_mode(f, row):
    # `x.sum()` written into an element ran in stacked lanes as `np.sum(x_dot)`, summing
    # across the lanes (a jacobian row of 4.0s for ones); like np.sum(x), it runs unrolled
    jacobian = srcad.jacobian(f, X.copy(), mode="forward")
    np.testing.assert_allclose(jacobian, [row, FIRST], rtol=1e-12, atol=1e-15)
    with pytest.raises(SrcadError, match="stacked lanes"):
        srcad.autodiff(srcad.Forward, f, BatchDuplicated(X.copy(), np.eye(4)), batch="stacked")
