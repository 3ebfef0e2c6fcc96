"""Powers with constant parts. A negative number raised to a power, `(-2) ** k`, stays
`(-2) ** k` in the generated code: the simplifier folds `(-2)` into the constant -2, and
Python's printers (astor, ast.unparse) print a negative constant base without parentheses,
`-2 ** k`, which Python reads as `-(2 ** k)`: every even k flipped the derivative's sign.
Checked against central differences in reverse, forward and second order. A power with the
exponent 0 written out, `x ** 0`, `np.power(x, 0.0)`, is the constant 1 (NumPy's 0 ** 0 too):
derivative 0 at x = 0, where the power rule's `0 * x ** -1` was NaN (and forward mode's NaN
reached every lane)."""

import gast
import numpy as np
import pytest
from helpers.differences import central

import srcad
from srcad.build.codegen import to_source
from srcad.frontend.syntax import unparse_expr


def times_power_of_minus_two(x, k):
    return x * (-2) ** k


def series_in_negative_powers(x):
    s = 0.0
    for k in range(1, len(x) + 1):
        s += x[k - 1] * (-2) ** -k + x[k - 1] ** 2 * (-1.5) ** k
    return s * x[0]


def series_in_float_powers(x):  # numba refuses an int to a negative int power (its int)
    s = 0.0
    for k in range(1, len(x) + 1):
        s += x[k - 1] * (-2.0) ** k + x[k - 1] ** 2 * (-1.5) ** k
    return s * x[0]


def test_a_negative_constant_base_is_printed_in_parentheses():
    tree = gast.parse("y = 2 ** k")
    tree.body[0].value.left.value = -2  # the constant the simplifier folds `(-2)` into
    assert to_source(tree).strip() == "y = (-2) ** k"
    assert eval(to_source(tree).strip()[4:], {"k": 2}) == 4
    # and in the texts refusals quote (numba's run-time refusal of `(-2) ** -k` read
    # `-2 ** (-k)`, which is not what the user wrote)
    assert unparse_expr(tree.body[0].value) == "(-2) ** k"


@pytest.mark.parametrize("k", [1, 2, 3, 4])
def test_derivative_of_a_power_of_minus_two(k):
    want = central(lambda t: times_power_of_minus_two(t, k), 1.3)
    assert srcad.grad(times_power_of_minus_two)(1.3, k) == pytest.approx(want, rel=1e-6)
    assert srcad.jacfwd(times_power_of_minus_two)(1.3, k) == pytest.approx(want, rel=1e-6)


def test_series_in_negative_powers_every_mode():
    x = np.array([0.5, 1.5, -2.0, 0.7])
    want = central(series_in_negative_powers, x)
    np.testing.assert_allclose(srcad.grad(series_in_negative_powers)(x), want, rtol=1e-6)
    np.testing.assert_allclose(srcad.jacfwd(series_in_negative_powers)(x), want, rtol=1e-6)
    hessian = central(lambda z: central(series_in_negative_powers, z, h=1e-5), x, h=1e-5)
    np.testing.assert_allclose(srcad.hessian(series_in_negative_powers, x), hessian,
                               rtol=1e-4, atol=1e-4)


@pytest.mark.slow
def test_series_in_negative_powers_numba_second_order():
    x = np.array([0.5, 1.5, -2.0, 0.7])
    hessian = central(lambda z: central(series_in_float_powers, z, h=1e-5), x, h=1e-5)
    np.testing.assert_allclose(srcad.hessian(series_in_float_powers, x, backend="numba"),
                               hessian, rtol=1e-4, atol=1e-4)


ZERO_EXPONENTS = {
    "operator_int": lambda x: np.sum(x ** 0 * x ** 2),
    "np_power_int": lambda x: np.sum(np.power(x, 0) * x ** 2),
    "np_power_float": lambda x: np.sum(np.power(x, 0.0) * x ** 2),
    "element": lambda x: x[0] ** 0 * x[1] + x[0] ** 2 * x[2],
}


@pytest.mark.parametrize("name", sorted(ZERO_EXPONENTS))
def test_zero_exponent_at_zero_every_mode(name):
    f = ZERO_EXPONENTS[name]
    x = np.array([0.0, 1.0, 2.0])
    want = central(f, x)
    np.testing.assert_allclose(srcad.grad(f)(x), want, atol=1e-8)
    np.testing.assert_allclose(srcad.jacfwd(f)(x), want, atol=1e-8)
    hessian = central(lambda z: central(f, z, h=1e-5), x, h=1e-5)
    np.testing.assert_allclose(srcad.hessian(f, x), hessian, atol=1e-4)


@pytest.mark.slow
def test_zero_exponent_at_zero_numba():
    f = ZERO_EXPONENTS["np_power_float"]
    x = np.array([0.0, 1.0, 2.0])
    np.testing.assert_allclose(srcad.grad(f, backend="numba")(x), central(f, x), atol=1e-8)
    np.testing.assert_allclose(srcad.jacfwd(f, backend="numba")(x), central(f, x), atol=1e-8)
