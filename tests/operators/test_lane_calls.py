"""Batched reverse mode through calls of primal values: element-by-element code calling
`np.sin(x[i])` (or any dotted function of primal values) pulls W cotangents back per sweep,
checked against forward mode and central differences; whole-array code, whose calls return
arrays, is stopped at run time by name with `chunk=` and swept once per row by `jacrev`."""

import numpy as np
import pytest
from helpers.differences import central

import srcad


def ring(x):
    n = len(x)
    y = np.zeros(n)
    for i in range(n):
        y[i] = np.sin(x[i]) * x[(i + 1) % n] + np.exp(0.5 * x[i]) * np.tanh(x[0])
    return y


def exp_then_loop(x):
    e = np.exp(x)
    n = len(x)
    y = np.zeros(n)
    for i in range(n):
        y[i] = e[i] * x[(i + 2) % n]
    return y


X = np.array([0.4, -1.1, 0.8, 1.7, 0.3, -0.6, 1.2])


@pytest.mark.parametrize("width", [1, 3, 7])
def test_reverse_jacobian_of_numpy_calls_on_elements_sweeps_w_rows(width):
    J = srcad.jacobian(ring, X, mode="reverse", chunk=width)
    np.testing.assert_allclose(J, srcad.jacobian(ring, X, mode="forward"), rtol=1e-13,
                               atol=1e-14)
    np.testing.assert_allclose(J, central(ring, X), atol=1e-7)


def test_autodiff_batch_reverse_through_numpy_calls_of_elements():
    shadows = [np.zeros(7), np.zeros(7)]
    seed = np.zeros((2, 7))
    seed[0, 2], seed[1, 5] = 1.0, 1.0
    srcad.autodiff(srcad.Reverse, ring, srcad.BatchDuplicated(X, shadows), seed=seed)
    J = central(ring, X)
    np.testing.assert_allclose(shadows[0], J[2], atol=1e-7)
    np.testing.assert_allclose(shadows[1], J[5], atol=1e-7)


def test_jacrev_of_numpy_calls_on_elements_matches_jacfwd():
    x = np.linspace(-1.0, 1.0, 40)
    np.testing.assert_allclose(srcad.jacrev(ring)(x), srcad.jacfwd(ring)(x), rtol=1e-13,
                               atol=1e-14)


def test_a_call_returning_an_array_stops_the_lanes_by_name():
    with pytest.raises(srcad.SrcadError, match=r"test_lane_calls\.py:21.*np\.exp returned "
                                               r"ndarray of shape \(7,\)"):
        srcad.jacobian(exp_then_loop, X, mode="reverse", chunk=2)


def test_jacrev_sweeps_per_row_when_a_call_returns_an_array():
    x = X.copy()
    J = srcad.jacrev(exp_then_loop)(x)
    np.testing.assert_array_equal(x, X)
    np.testing.assert_allclose(J, srcad.jacfwd(exp_then_loop)(X), rtol=1e-13, atol=1e-14)
    np.testing.assert_allclose(J, central(exp_then_loop, X), atol=1e-7)


def branchy(x):
    n = len(x)
    y = np.zeros(n)
    for i in range(n):
        if x[0] > 0.0:
            y[i] = np.sin(x[i]) * x[0]
        else:
            y[i] = np.sum(np.exp(x)) * x[i]
    return y


def test_python_reverse_jacobian_sweeps_w_rows_by_default():
    prep = srcad.prepare_jacobian(ring, X, mode="reverse")
    assert prep.state["batched"] and prep.chunk == 7
    J = srcad.jacobian(ring, X, prep=prep)
    np.testing.assert_allclose(J, srcad.jacobian(ring, X, mode="forward"), rtol=1e-13,
                               atol=1e-14)


def test_prepared_lanes_fall_back_to_one_row_a_sweep_where_a_call_returns_an_array():
    x = np.linspace(0.1, 1.0, 6)
    prep = srcad.prepare_jacobian(branchy, x, mode="reverse")
    assert prep.state["batched"]  # x[0] > 0: element code
    for point in (x, -x, x):  # -x: np.sum(np.exp(x)) stops the lanes; one row a sweep after
        np.testing.assert_allclose(srcad.jacobian(branchy, point, prep=prep),
                                   central(branchy, point), atol=1e-7)
    assert not prep.state["batched"]


def test_functions_writing_an_output_sweep_w_rows_by_default_too():
    def squares(y, x):
        for i in range(len(x)):
            y[i] = x[i] * x[i] * x[0]

    y, x = np.zeros(5), X[:5].copy()
    prep = srcad.prepare_jacobian(squares, srcad.Output(y), x, mode="reverse")
    assert prep.state.get("batched") and prep.chunk == 5
    expected = np.diag(2.0 * x * x[0])
    expected[:, 0] += x * x
    for _ in range(2):  # the Output's values are the function's after every call
        J = srcad.jacobian(squares, srcad.Output(y), x, prep=prep)
        np.testing.assert_allclose(J, expected, rtol=1e-13, atol=1e-14)
        np.testing.assert_allclose(y, x * x * x[0], rtol=1e-15)


def squares(x):
    return x * x


def test_whole_array_arithmetic_on_lanes_is_refused_not_broadcast():
    # lanes last, `y_bar * x` would broadcast x against the lanes axis (W == n here): each
    # lane's adjoint multiplied by the wrong element of x
    seed = np.array([[1.0, 2.0, 0.5], [0.0, -1.0, 3.0], [2.0, 0.0, 1.0]])
    x = np.array([1.0, 2.0, 3.0])
    shadows = [np.zeros(3) for _ in range(3)]
    with pytest.raises(srcad.SrcadError, match=r"test_lane_calls\.py:\d+.*operand of adjoint "
                                               r"arithmetic is ndarray"):
        srcad.autodiff(srcad.Reverse, squares, srcad.BatchDuplicated(x, shadows), seed=seed)
    np.testing.assert_allclose(srcad.jacrev(squares)(x), np.diag(2 * x), rtol=1e-15)
