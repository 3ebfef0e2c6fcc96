"""np.cross with 2-vectors (deprecated in NumPy 2): a 2-vector crossed with a 3-vector is
NumPy's product (the third coordinate read as 0), differentiated in every mode; two 2-vectors
(one number per pair, a result of a lower rank) are refused by name, never a failure of the
derivative code under another name."""

import warnings

import numpy as np
import pytest

import srcad
from srcad.testing import check_grads

W = np.array([0.5, -1.0, 2.0])


def planar_times_spatial(x, y):
    return np.sum(np.cross(x, y) * W)


def stack_times_planar(x, y):
    return np.sum(np.cross(x, y) ** 2)


def two_planar(x, y):
    return np.sum(np.cross(x, y))


@pytest.fixture(autouse=True)
def _numpy_deprecation():
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", DeprecationWarning)
        yield


@pytest.mark.parametrize("f, x, y", [
    (planar_times_spatial, np.array([0.3, -1.2]), np.array([1.0, 0.4, 2.0])),
    (stack_times_planar, np.array([[1.0, 2.0, 0.5], [0.2, -0.3, 1.1]]), np.array([0.7, 1.5])),
], ids=["2-3", "stack-2"])
def test_a_two_vector_crossed_with_three_vectors_agrees_in_every_mode(f, x, y):
    check_grads(f, srcad.Duplicated(x, np.zeros_like(x)), srcad.Duplicated(y, np.zeros_like(y)))


def test_the_two_vector_gets_the_first_two_coordinates():
    x, y = np.array([0.3, -1.2]), np.array([1.0, 0.4, 2.0])
    # d/dx <W, (x, 0) × y> = first two coordinates of y × W
    np.testing.assert_allclose(srcad.gradient(planar_times_spatial, x, srcad.Constant(y)),
                               np.cross(y, W)[:2], rtol=1e-14)


@pytest.mark.parametrize("mode", ["reverse", "forward"])
def test_two_planar_vectors_are_refused_by_name(mode):
    with pytest.raises(srcad.SrcadError, match="np.cross of two 2-vectors"):
        srcad.gradient(two_planar, np.array([1.0, 2.0]), srcad.Constant(np.array([0.5, 3.0])),
                       mode=mode)
