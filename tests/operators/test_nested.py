"""Nested differentiation: a differentiated function calling srcad.grad(g)(...) or
srcad.gradient(g, x, Constant(p)) on another function, in outer reverse and forward mode.
Expected values are second derivatives derived by hand, or central differences of the primal
(which runs srcad's first-order gradient); never srcad's own second-order output. Also the
refusals: third derivatives, local inner functions, other srcad calls, recursion. On the
numba backend the nested calls run as numba kernels (srcad/operators/nested_numba.py).
"""

import math

import numpy as np
import pytest
from helpers.differences import central

import srcad
from srcad import Active, Constant, Duplicated, Forward, Reverse
from srcad.testing import check_grads


def quartic(x):
    return x ** 4 + math.sin(x)


def slope_of_quartic(x):
    return srcad.grad(quartic)(x)  # 4 x^3 + cos x


def cubic(x, p):
    return p * x ** 3 + math.sin(x)


def slope_times_x(x, p):
    return srcad.grad(cubic)(x, p) * x  # (3 p x^2 + cos x) x


def scaled_exp(x, p):
    return p * p * math.exp(x)


def p_slope(x, p):
    return srcad.grad(scaled_exp, argnums=1)(x, p)  # 2 p e^x


def field(v, p):
    s = 0.0
    for i in range(len(v)):
        s += p * v[i] ** 3 + math.sin(v[i] * p)
    return s


def field_gradient_norm(v, p):
    d = srcad.gradient(field, v, Constant(p))
    t = 0.0
    for i in range(len(d)):
        t += d[i] * d[i]
    return t


@pytest.mark.parametrize("x", [0.3, -1.2])
def test_derivative_of_an_inner_gradient_is_the_second_derivative(x):
    second = 12.0 * x * x - math.sin(x)
    assert srcad.autodiff(Reverse, slope_of_quartic, Active(x))[0] == pytest.approx(second)
    assert srcad.autodiff(Forward, slope_of_quartic, Duplicated(x, 1.0)) == \
        pytest.approx(second)
    assert central(slope_of_quartic, x) == pytest.approx(second, rel=1e-6)


def test_mixed_partials_through_an_inner_gradient_both_modes():
    x, p = 0.7, 1.3
    d_x = 9.0 * p * x * x + math.cos(x) - x * math.sin(x)  # of 3 p x^3 + x cos x
    d_p = 3.0 * x ** 3
    assert srcad.autodiff(Reverse, slope_times_x, Active(x), Active(p)) == \
        pytest.approx((d_x, d_p))
    assert srcad.autodiff(Forward, slope_times_x, Duplicated(x, 1.0), Duplicated(p, 0.0)) == \
        pytest.approx(d_x)
    assert srcad.autodiff(Forward, slope_times_x, Duplicated(x, 0.0), Duplicated(p, 1.0)) == \
        pytest.approx(d_p)
    check_grads(slope_times_x, Active(x), Active(p))


def two_uses(x, p):
    a = srcad.grad(cubic)(x, p)
    b = srcad.grad(cubic)(x, p)
    return a * a + b * x


def test_two_calls_with_the_same_operands_get_their_own_adjoints():
    x, p = 0.9, -0.4
    inner = 3.0 * p * x * x + math.cos(x)  # G; then f = G^2 + G x
    d_inner_x, d_inner_p = 6.0 * p * x - math.sin(x), 3.0 * x * x
    expected = (2.0 * inner * d_inner_x + d_inner_x * x + inner,
                2.0 * inner * d_inner_p + d_inner_p * x)
    assert srcad.autodiff(Reverse, two_uses, Active(x), Active(p)) == pytest.approx(expected)


def test_argnums_selects_the_inner_argument():
    x, p = 0.4, -0.8
    assert srcad.autodiff(Reverse, p_slope, Active(x), Active(p)) == \
        pytest.approx((2.0 * p * math.exp(x), 2.0 * math.exp(x)))
    assert srcad.autodiff(Forward, p_slope, Duplicated(x, 0.5), Duplicated(p, 2.0)) == \
        pytest.approx(0.5 * 2.0 * p * math.exp(x) + 2.0 * 2.0 * math.exp(x))


def test_inner_gradient_of_an_array_with_a_constant_against_central_differences():
    v, p = np.array([0.3, -0.5, 0.9]), 1.1
    v_bar = np.zeros(3)
    _, p_bar = srcad.autodiff(Reverse, field_gradient_norm, Duplicated(v, v_bar), Active(p))
    for k in range(3):
        e = np.eye(3)[k]
        expected = central(lambda t, e=e: field_gradient_norm(v + t * e, p), 0.0)
        assert v_bar[k] == pytest.approx(expected, rel=1e-6)
        tangent = srcad.autodiff(Forward, field_gradient_norm, Duplicated(v, e),
                                 Duplicated(p, 0.0))
        assert tangent == pytest.approx(expected, rel=1e-6)
    assert p_bar == pytest.approx(central(lambda q: field_gradient_norm(v, q), p), rel=1e-6)
    check_grads(field_gradient_norm, Duplicated(v, np.zeros(3)), Active(p))


# A closed-form saddle point: f(x, y) = x^2 + 2 x y - y^2 is concave in y with argmax y = x.
# K steps of gradient ascent from y = 0 with step eta give y_K = c x, c = 1 - (1 - 2 eta)^K,
# so the outer objective f(x, y_K) = x^2 (1 + 2 c - c^2) and its derivative 2 x (1 + 2 c - c^2).
def saddle(y, x):
    return x * x + 2.0 * x * y - y * y


def outer_objective(x, eta, steps):
    y = 0.0
    for _ in range(steps):
        y = y + eta * srcad.grad(saddle)(y, x)
    return saddle(y, x)


def test_saddle_point_objective_through_inner_gradient_ascent():
    x, eta, steps = 1.7, 0.2, 6
    c = 1.0 - (1.0 - 2.0 * eta) ** steps
    assert outer_objective(x, eta, steps) == pytest.approx(x * x * (1 + 2 * c - c * c))
    expected = 2.0 * x * (1.0 + 2.0 * c - c * c)
    assert srcad.autodiff(Reverse, outer_objective, Active(x), eta, steps)[0] == \
        pytest.approx(expected)
    assert srcad.autodiff(Forward, outer_objective, Duplicated(x, 1.0), eta, steps) == \
        pytest.approx(expected)


# -- refusals ----------------------------------------------------------------------------------
def local_inner(x):
    def g(y):
        return y * y * x
    return srcad.grad(g)(x)


def calls_hessian(v):
    return srcad.hessian(field, v, Constant(1.0))[0, 0]


def test_refusals_name_the_construct_file_and_line():
    with pytest.raises(srcad.SrcadError, match=r"test_nested.py:.*defined inside"):
        srcad.autodiff(Reverse, local_inner, Active(1.0))
    with pytest.raises(srcad.SrcadError, match=r"test_nested.py:.*srcad.hessian"):
        srcad.autodiff(Reverse, calls_hessian, Duplicated(np.ones(2), np.zeros(2)))
    with pytest.raises(srcad.SrcadError, match=r"third derivative"):
        srcad.second_derivative(slope_of_quartic, 0.5)


def det_by_minors(a, n):
    if n == 1:
        return a[0, 0]
    total = 0.0
    sign = 1.0
    for j in range(n):
        m = np.zeros((n - 1, n - 1))
        for r in range(1, n):
            col = 0
            for c in range(n):
                if c != j:
                    m[r - 1, col] = a[r, c]
                    col += 1
        total += sign * a[0, j] * det_by_minors(m, n - 1)
        sign = -sign
    return total


def test_a_recursive_determinant_by_minors_has_the_closed_form_gradient():
    a = np.array([[2.0, 1.0, 0.5], [0.3, 3.0, 1.0], [1.0, 0.2, 4.0]])
    a_bar = np.zeros_like(a)
    srcad.autodiff(Reverse, det_by_minors, Duplicated(a, a_bar), 3)
    np.testing.assert_allclose(a_bar, np.linalg.det(a) * np.linalg.inv(a).T, rtol=1e-12)


@pytest.mark.slow  # numba compilations or a bounded fuzz run: make test-all
def test_nested_gradients_on_numba_match_second_derivatives_derived_by_hand():
    pytest.importorskip("numba")
    x = 0.7
    second = 12.0 * x * x - math.sin(x)
    assert srcad.autodiff(Reverse, slope_of_quartic, Active(x), backend="numba")[0] == \
        pytest.approx(second, rel=1e-13)
    assert srcad.autodiff(Forward, slope_of_quartic, Duplicated(x, 1.0), backend="numba") == \
        pytest.approx(second, rel=1e-13)
    # an array inner gradient with a Constant: against central differences of the primal
    v, q = np.array([0.4, -1.1, 0.9]), 0.8
    v_bar = np.zeros(3)
    srcad.autodiff(Reverse, field_gradient_norm, Duplicated(v, v_bar), Active(q),
                   backend="numba")
    h = 1e-6
    want = [(field_gradient_norm(v + h * e, q) - field_gradient_norm(v - h * e, q)) / (2 * h)
            for e in np.eye(3)]
    np.testing.assert_allclose(v_bar, want, rtol=1e-6)
    with pytest.raises(srcad.SrcadError, match=r"third derivative"):
        srcad.second_derivative(slope_of_quartic, 0.5, backend="numba")
