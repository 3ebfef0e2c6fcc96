"""np.kron with a number: NumPy's product (either side), in every mode against central finite
differences."""

import numpy as np

import srcad
from srcad.testing import check_grads

Y = np.array([[0.3, -1.2, 2.0], [1.1, 0.4, -0.7]])


def number_first(a, y):
    return np.sum(np.kron(a, y) * Y)


def number_last(y, a):
    return np.sum(np.kron(y, a) ** 2)


def test_kron_of_a_number_and_an_array_agrees_in_every_mode():
    check_grads(number_first, srcad.Active(1.7), srcad.Duplicated(Y.copy(), np.zeros_like(Y)))
    check_grads(number_last, srcad.Duplicated(Y.copy(), np.zeros_like(Y)), srcad.Active(-0.6))


def test_kron_of_a_number_is_its_product():
    np.testing.assert_allclose(srcad.gradient(number_first, 1.7, srcad.Constant(Y)),
                               np.sum(Y * Y), rtol=1e-14)
