"""Python's operator module called as functions (`operator.mul(x, y)`, as autograd's tests
and functional code write them) is read as the operators: every mode against central
differences, on floats and on arrays that broadcast."""

import operator

import numpy as np
import pytest

import srcad
from srcad.testing import check_grads

X = np.array([[0.6, 1.7], [0.9, 1.3], [1.1, 0.4]])
Y = np.array([1.3, 0.7])


def combined(x, y):
    z = operator.add(operator.mul(x, y), operator.truediv(x, y))
    z = operator.sub(z, operator.mod(x, y)) + operator.pow(x, y)
    return np.sum(operator.neg(z) * operator.pos(x))


def on_floats(a, b):
    return operator.mul(operator.mod(a, b), operator.pow(a, b)) - operator.truediv(a, b)


def test_operator_functions_on_arrays_agree_with_finite_differences():
    check_grads(combined, srcad.Duplicated(X.copy(), np.zeros_like(X)),
                srcad.Duplicated(Y.copy(), np.zeros_like(Y)))


def test_operator_functions_on_floats_agree_with_finite_differences():
    check_grads(on_floats, srcad.Active(1.7), srcad.Active(0.6))


def test_operator_mod_is_the_remainders_derivative():
    # d/da (a % b) = 1, d/db = -floor(a / b): 1.7 % 0.6 has floor 2
    assert srcad.grad(lambda a, b: operator.mod(a, b), argnums=(0, 1))(1.7, 0.6) == \
        pytest.approx((1.0, -2.0), rel=1e-15)
