"""np.partition's derivative follows the arrangement NumPy's result has (read from the result,
whatever NumPy's selection algorithm put where), on both backends: numba's code calls NumPy's
np.partition (numba's own arranges the elements otherwise)."""

import numpy as np
import pytest

import srcad

X = np.array([0.3, -1.2, 2.5, 0.9, -0.4, 1.7, 0.05])
W = np.arange(1.0, 8.0)


def weighted_partition(x):
    return np.sum(np.partition(x, 3) * W)


def test_each_element_gets_the_weight_of_the_place_numpy_put_it():
    result = np.partition(X, 3)
    expected = np.array([W[np.flatnonzero(result == v)[0]] for v in X])
    for mode in ("reverse", "forward"):
        np.testing.assert_array_equal(srcad.gradient(weighted_partition, X, mode=mode),
                                      expected)


LONG = np.random.default_rng(7).normal(size=(3, 41))  # long rows: NumPy's own arrangement
LONG_WEIGHTS = np.random.default_rng(8).normal(size=(3, 41))


def weighted_partitions(x):
    return np.sum(np.partition(x * 1.0, (4, 30), axis=1) * LONG_WEIGHTS) \
        + np.sum(np.partition(x, 50, axis=None) * LONG_WEIGHTS.ravel())


@pytest.mark.slow  # numba compiles (srcad/runtime/numba_reorder.py)
def test_numba_partitions_as_numpy_and_its_derivative_follows():
    result = np.partition(X, 3)
    expected = np.array([W[np.flatnonzero(result == v)[0]] for v in X])
    for mode in ("reverse", "forward"):
        np.testing.assert_array_equal(srcad.gradient(weighted_partition, X, mode=mode,
                                                     backend="numba"), expected)
    value, grad = srcad.value_and_gradient(weighted_partitions, LONG.copy(), backend="numba")
    assert value == weighted_partitions(LONG)  # NumPy's arrangement, element for element
    np.testing.assert_array_equal(grad, srcad.gradient(weighted_partitions, LONG.copy()))
