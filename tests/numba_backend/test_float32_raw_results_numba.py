"""float32 in, float32 out on the numba backend too: numba returns a float32 scalar as a
Python float, and forward mode's value and tangents (one lane or many) came back float64."""

import numpy as np
import pytest

import srcad
from srcad import Active, BatchDuplicated, Duplicated


def cubes(x):
    return np.sum(x ** 3)


def scaled(a, x):
    return a * np.sum(x)


X = np.array([0.5, 1.0, 1.5], dtype=np.float32)
LANES = [e.astype(np.float32) for e in np.eye(3)]


@pytest.mark.slow  # compiles numba code: make test-all
def test_forward_value_and_tangents_keep_float32_on_numba():
    for _ in range(2):  # the checked call, then the plan's fast path
        tangent = srcad.autodiff(srcad.Forward, cubes, Duplicated(X, LANES[1]), backend="numba")
        assert type(tangent) is np.float32 and tangent == pytest.approx(3.0)
        lanes, value = srcad.autodiff(srcad.ForwardWithPrimal, cubes,
                                      BatchDuplicated(X, LANES), backend="numba")
        assert lanes.dtype == np.float32 and type(value) is np.float32
        assert np.allclose(lanes, 3 * X.astype(float) ** 2) and value == pytest.approx(4.5)
    tangent = srcad.autodiff(srcad.Forward, cubes, Duplicated(X.astype(float), np.ones(3)),
                             backend="numba")
    assert type(tangent) is float


@pytest.mark.slow
def test_reverse_active_float32_on_numba():
    da, _ = srcad.autodiff(srcad.Reverse, scaled, Active(np.float32(2.0)),
                           Duplicated(X, np.zeros_like(X)), backend="numba")
    assert type(da) is np.float32 and da == pytest.approx(3.0)


def square_and_sine(x):
    return x ** 2, np.sum(np.sin(x))


@pytest.mark.slow
def test_a_tuple_results_floats_keep_float32_on_numba():
    # numba returns the tuple's float as a Python float: its tangent came back float64
    V = np.array([0.3, 0.7, 1.1], dtype=np.float32)
    value, tangent = srcad.jvp(square_and_sine, (X,), (V,), backend="numba")
    assert type(value[1]) is np.float32 and type(tangent[1]) is np.float32
    assert float(tangent[1]) == pytest.approx(float(np.sum(np.cos(X.astype(float)) * V)),
                                              rel=1e-6)
    lanes = srcad.autodiff(srcad.Forward, square_and_sine, BatchDuplicated(X, LANES),
                           backend="numba")
    assert [t.dtype for t in lanes] == [np.float32, np.float32]
