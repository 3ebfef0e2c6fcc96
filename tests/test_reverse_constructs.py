"""Reverse mode differentiates the plain-loop constructs srcad promises to support.

Every construct is checked against central finite differences with `check_grads`; where the
derivative has an easy closed form, it is checked exactly too.
"""

import math

import numpy as np
import pytest

import srcad
from srcad import Active, Duplicated, Reverse, ReverseWithPrimal
from srcad.testing import check_grads


# --- scalar statements ------------------------------------------------------------------------

def assign_chain(x, y):
    a = x * y
    b = a + x
    a = b * b
    return a - y


def augmented_assignments(x, y):
    z = x
    z += y
    z -= 0.5 * x
    z *= y
    z /= x + 3.0
    z += z
    return z


def tuple_unpack_and_swap(x, y):
    a, b = x, y * 2.0
    a, b = b, a
    (c, d) = (a * b, a - b)
    c, d = d, c
    return c * 3.0 + d


def multiple_returns(x, y):
    if x > y:
        return x * y
    elif x < 0.0:
        return -x
    return y * y * x


def early_return_in_loop(x, n):
    s = x
    for i in range(n):
        s = s * 1.1 + x
        if s > 5.0:
            return s * 2.0
    return s


def arithmetic_operators(x, y):
    a = x + y - x * y / (y + 3.0)
    b = x ** 2 + y ** 3.0 + x ** y
    c = x // 1.0 + (y % 0.7) * x
    return a + b + c + 2.0 ** x


def unary_minus(x, y):
    return -x * -(y - x) + (-x) ** 2


def ifexp(x, y):
    z = x * y if x > 0.5 else x + y
    return (z * z if y < 2.0 else -z) + (1.0 if x < y else 2.0) * x


def boolean_tests(x, y):
    s = 0.0
    if x > 0.0 and y > 0.0:
        s += x * y
    if x > 10.0 or not y > 1.0:
        s += x
    if 0.0 < x < 2.0:
        s += y * y
    if not (x == y) and x != 3.0 and x >= 0.1 and y <= 5.0:
        s += math.sin(x)
    return s


def if_elif_else(x, y):
    if x > 2.0:
        z = x * x
    elif x > 1.0:
        z = y * x
    elif y > x:
        z = y * y * y
    else:
        z = x + y
    return z


def integer_mixed(x, n):
    k = 0
    s = 0.0
    for i in range(n):
        k += 1
        j = (i * 3 + 1) % 4
        if k % 2 == 0:
            s += x * j
        else:
            s -= x * x / (j + 1)
    return s * k


SCALAR_CASES = [
    (assign_chain, (Active(1.3), Active(0.7))),
    (augmented_assignments, (Active(1.3), Active(0.7))),
    (tuple_unpack_and_swap, (Active(1.3), Active(0.7))),
    (multiple_returns, (Active(1.3), Active(0.7))),
    (multiple_returns, (Active(-1.3), Active(0.7))),
    (multiple_returns, (Active(0.3), Active(0.7))),
    (early_return_in_loop, (Active(1.3), 5)),
    (early_return_in_loop, (Active(0.1), 3)),
    (arithmetic_operators, (Active(1.3), Active(0.9))),
    (unary_minus, (Active(1.3), Active(0.7))),
    (ifexp, (Active(1.3), Active(0.7))),
    (ifexp, (Active(0.3), Active(2.7))),
    (boolean_tests, (Active(1.3), Active(0.7))),
    (boolean_tests, (Active(1.3), Active(1.7))),
    (if_elif_else, (Active(2.5), Active(0.7))),
    (if_elif_else, (Active(1.5), Active(0.7))),
    (if_elif_else, (Active(0.5), Active(0.7))),
    (if_elif_else, (Active(0.5), Active(0.2))),
    (integer_mixed, (Active(1.3), 7)),
]


@pytest.mark.parametrize("f, args", SCALAR_CASES,
                         ids=[f"{f.__name__}-{i}" for i, (f, _) in enumerate(SCALAR_CASES)])
def test_scalar_statement_matches_finite_differences(f, args):
    check_grads(f, *args)


def test_augmented_assignments_closed_form():
    # z = 2 * (x + y - x/2) * y / (x + 3)
    x, y = 1.3, 0.7
    dx, dy = srcad.autodiff(Reverse, augmented_assignments, Active(x), Active(y))
    expected_dx = 2 * y * (0.5 * (x + 3) - (0.5 * x + y)) / (x + 3) ** 2
    expected_dy = 2 * (0.5 * x + 2 * y) / (x + 3)
    assert dx == pytest.approx(expected_dx, rel=1e-12)
    assert dy == pytest.approx(expected_dy, rel=1e-12)


def test_swap_closed_form():
    # c = a - b = 2y - x, d = a * b = 2xy; result 3(2y - x) + 2xy
    dx, dy = srcad.autodiff(Reverse, tuple_unpack_and_swap, Active(1.3), Active(0.7))
    assert dx == pytest.approx(-3.0 + 2 * 0.7, rel=1e-12)
    assert dy == pytest.approx(6.0 + 2 * 1.3, rel=1e-12)


def test_return_value_with_primal_matches_primal():
    derivs, value = srcad.autodiff(ReverseWithPrimal, multiple_returns, Active(1.3), Active(0.7))
    assert value == multiple_returns(1.3, 0.7)
    assert derivs == pytest.approx((0.7, 1.3), rel=1e-12)
