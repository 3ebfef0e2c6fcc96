"""The shape operand of np.full, np.broadcast_to and np.reshape: an int n is the shape (n,)
(one axis) and `()` is no axis (srcad/rules/rule_type.py ShapeLength), in every mode and on
both backends, against central finite differences. Before, both had rank 0, so
np.broadcast_to(x, 3) and np.full((), x)'s adjoint failed to compile on numba and
np.reshape(v, ()) was refused."""

import numpy as np
import pytest

import srcad
from srcad.testing import check_grads


def full_of_no_axis(x):
    return np.sum(np.full((), x) * x) + x


def full_of_an_int(x):
    return np.sum(np.full(3, x) * np.arange(1.0, 4.0) * x)


def full_of_an_int_name(x):
    n = 2
    return np.sum(np.full(n, x * x) ** 2)


def broadcast_to_an_int(x):
    return np.sum(np.broadcast_to(x, 3) * np.arange(1.0, 4.0) * x)


def broadcast_to_no_axis(x):
    return np.sum(np.broadcast_to(x, ()) * x * x)


def reshape_to_no_axis(v):
    return np.sum(np.reshape(v * v, ()) * v)


def full_of_a_shape(x):
    return np.sum(np.full((2, 2), x) * np.arange(4.0).reshape(2, 2) * x)


NUMBERS = [full_of_no_axis, full_of_an_int, full_of_an_int_name, broadcast_to_an_int,
           broadcast_to_no_axis, full_of_a_shape]


@pytest.mark.parametrize("f", NUMBERS, ids=lambda f: f.__name__)
def test_a_shape_of_an_int_or_of_no_axis_in_every_mode(f):
    check_grads(f, srcad.Active(0.7))


def test_a_one_element_array_reshaped_to_no_axis():
    check_grads(reshape_to_no_axis, srcad.Duplicated(np.array([0.7]), np.zeros(1)))


def test_the_values_are_numpys():
    # d/dx of sum(full((), x) * x) + x = 2x + 1; of 3 * sum(broadcast_to(x, 3) * [1, 2, 3]) x^2
    assert srcad.gradient(full_of_no_axis, 0.7) == pytest.approx(2.4, rel=1e-14)
    assert srcad.gradient(broadcast_to_an_int, 0.7) == pytest.approx(2 * 6 * 0.7, rel=1e-14)


@pytest.mark.parametrize("f", [pytest.param(f, marks=[] if f is full_of_no_axis else
                                            [pytest.mark.slow], id=f.__name__)
                               for f in NUMBERS])
def test_on_numba(f):
    pytest.importorskip("numba")
    check_grads(f, srcad.Active(0.7), backend="numba")


@pytest.mark.slow
def test_a_one_element_array_reshaped_to_no_axis_on_numba():
    pytest.importorskip("numba")
    check_grads(reshape_to_no_axis, srcad.Duplicated(np.array([0.7]), np.zeros(1)),
                backend="numba")
