"""An array constructor given a value that carries a derivative (`np.full(n, x)`) is refused:
constructors have no derivative rule, and the array would silently carry none. Building the
same array from a constant one differentiates."""

import numpy as np
import pytest

import srcad
from srcad import Active, Duplicated, Forward, Reverse


def full_of_x(x):
    y = np.full(3, x)
    return np.sum(y * y)


def full_of_element(x):
    y = np.full(3, x[0])
    return y[1] * 2.0


def linspace_to_x(x):
    y = np.linspace(0.0, x, 3)
    return y[2] * 2.0


def full_like_of_x(x):
    y = np.full_like(np.zeros(2), x)
    return y[0] * y[1]


def ones_times_x(x):
    y = x * np.ones(3)
    return np.sum(y * y)


def full_of_a_constant(x, c):
    y = np.full(3, c)
    return np.sum(y * x)


@pytest.mark.parametrize("f, construct", [(full_of_x, "np.full(3, x)"),
                                          (full_like_of_x, "np.full_like(np.zeros(2), x)")])
@pytest.mark.parametrize("mode", ["reverse", "forward"])
def test_a_constructor_filled_with_an_active_float_is_refused(f, construct, mode):
    args = (Active(2.0),) if mode == "reverse" else (Duplicated(2.0, 1.0),)
    with pytest.raises(srcad.SrcadError, match="array constructor") as info:
        srcad.autodiff(Reverse if mode == "reverse" else Forward, f, *args)
    assert construct in str(info.value)
    assert "test_constructor_fills.py" in str(info.value)


def test_linspace_to_an_active_end_differentiates():
    # np.linspace has a rule for its ends (srcad/rules/movement.py): y[2] = x, so 2.0
    assert srcad.gradient(linspace_to_x, 2.0) == 2.0
    assert srcad.gradient(linspace_to_x, 2.0, mode="forward") == 2.0


def test_a_constructor_filled_with_an_active_element_is_refused():
    x = np.array([2.0])
    with pytest.raises(srcad.SrcadError, match="array constructor"):
        srcad.autodiff(Reverse, full_of_element, Duplicated(x, np.zeros(1)))


def test_scaling_a_constant_array_differentiates():
    # sum over 3 entries of x^2: d/dx = 6 x
    assert srcad.autodiff(Reverse, ones_times_x, Active(2.0)) == pytest.approx((12.0,))
    assert srcad.autodiff(Forward, ones_times_x, Duplicated(2.0, 1.0)) == pytest.approx(12.0)


def test_a_constructor_filled_with_a_constant_runs():
    # sum of c * x: gradient c in every entry
    x, dx = np.array([1.0, 2.0, 3.0]), np.zeros(3)
    srcad.autodiff(Reverse, full_of_a_constant, Duplicated(x, dx), 1.5)
    assert dx == pytest.approx([1.5, 1.5, 1.5])
