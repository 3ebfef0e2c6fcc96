"""np.gradient(x, axis=k) of matrices and stacks: central differences along one axis (one-sided
at its ends), checked in every mode against central finite differences; without an axis, of
an array of rank above 1, NumPy returns a list of arrays: refused, naming the fix."""

import numpy as np
import pytest

import srcad
from srcad.testing import check_grads

W = np.random.default_rng(3).normal(size=(3, 4, 5))


def along_first(x):
    return np.sum(np.gradient(x, axis=0) * W[:, :, :2])


def along_last_negative(x):
    return np.sum(np.gradient(x, axis=-1) * W[0, :, :])


def along_middle(x):
    return np.sum(np.gradient(x, axis=1) ** 2)


def edge_order_by_name(x):
    return np.sum(np.gradient(x, axis=1, edge_order=1) * W[0])


CASES = [(along_first, (3, 4, 2)), (along_last_negative, (4, 5)), (along_middle, (3, 2, 5)),
         (edge_order_by_name, (4, 5))]


@pytest.mark.parametrize("f, shape", CASES, ids=[f.__name__ for f, _ in CASES])
def test_gradient_along_an_axis_agrees_with_finite_differences(f, shape):
    x = np.random.default_rng(len(shape)).normal(size=shape)
    check_grads(f, srcad.Duplicated(x, np.zeros_like(x)))


def test_gradient_along_an_axis_is_linear_with_the_vector_rule_on_each_line():
    x = np.random.default_rng(5).normal(size=(4, 5))
    rows = srcad.jacrev(lambda m: np.gradient(m, axis=1))(x)
    line = srcad.jacrev(lambda v: np.gradient(v))(x[0])
    np.testing.assert_allclose(rows[2, :, 2, :], line, rtol=1e-14)
    np.testing.assert_allclose(rows[2, :, 1, :], 0.0)


def all_axes(x):
    return np.sum(np.gradient(x)[0])


def test_gradient_of_a_matrix_without_axis_is_refused_naming_the_fix():
    with pytest.raises(srcad.SrcadError, match=r"axis=0"):
        srcad.gradient(all_axes, np.ones((3, 4)))
