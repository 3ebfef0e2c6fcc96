"""np.partition's derivative follows the arrangement NumPy's result has (read from the result,
whatever NumPy's selection algorithm put where); numba refuses it by name."""

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


def test_partition_is_refused_on_numba_by_name():
    with pytest.raises(srcad.SrcadError, match="np.partition"):
        srcad.gradient(weighted_partition, X, backend="numba")
