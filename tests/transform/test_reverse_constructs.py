"""Reverse mode differentiates the plain-loop constructs srcad promises to support.

Every construct is checked against central finite differences with `check_grads`; where the
derivative has an easy closed form, it is checked exactly too.
"""

import math

import numpy as np
import pytest
from helpers.seed_problems import seed002, seed002_value_and_jacobian

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
    for _ in range(n):
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


# --- loops ------------------------------------------------------------------------------------

def range_one_arg(x, n):
    s = 0.0
    for i in range(n):
        s = s * x + i
    return s


def range_two_args(x, n):
    s = 1.0
    for i in range(2, n):
        s = s * x + 1.0 / i
    return s


def range_three_args(x, n):
    s = 1.0
    for i in range(1, n, 3):
        s = s * x + math.sin(i * x)
    return s


def range_negative_step(x, n):
    s = x
    for i in range(n, 0, -1):
        s = s * x / i + i
    for j in range(n - 1, -1, -2):
        s = s - x * j
    return s


def nested_loops(x, n):
    s = 0.0
    for i in range(n):
        t = x
        for j in range(i):
            t = t * x + j
        s += t * i
    return s


def while_data_dependent(x, y):
    s = y
    k = 0
    while s < 10.0 and k < 100:
        s = s * x + y
        k += 1
    return s


def break_and_continue(x, n):
    s = 0.0
    for i in range(n):
        if i == 1:
            continue
        s = s * x + i
        if s > 50.0:
            break
        if s < 0.1:
            continue
        s += x
    return s


def while_with_break(x):
    s = x
    while True:
        s = s * 1.5 + x
        if s > 20.0:
            break
    return s


def loop_inside_branch(x, n):
    s = 0.0
    if x > 1.0:
        for i in range(n):
            s += x ** i
    else:
        k = 0
        while k < n:
            s = s * x + 1.0
            k += 1
    return s


def break_inside_nested_loop(x, n):
    s = 0.0
    for i in range(n):
        for j in range(n):
            s = s + x * (i + j)
            if s > 3.0 * (i + 1):
                break
        s = s * 0.9
    return s


def while_inside_for(x, n):
    s = 0.0
    for i in range(n):
        t = x
        while t < 4.0 + i:
            t = t * 2.0 + x
        s += t
    return s


LOOP_CASES = [
    (range_one_arg, (Active(1.1), 5)),
    (range_one_arg, (Active(1.1), 0)),
    (range_two_args, (Active(1.1), 6)),
    (range_three_args, (Active(0.8), 11)),
    (range_negative_step, (Active(0.8), 6)),
    (nested_loops, (Active(1.2), 5)),
    (while_data_dependent, (Active(1.5), Active(0.5))),
    (break_and_continue, (Active(1.5), 10)),
    (break_and_continue, (Active(0.5), 10)),
    (while_with_break, (Active(1.3),)),
    (loop_inside_branch, (Active(1.3), 4)),
    (loop_inside_branch, (Active(0.7), 4)),
    (break_inside_nested_loop, (Active(0.7), 5)),
    (while_inside_for, (Active(0.7), 4)),
]


@pytest.mark.parametrize("f, args", LOOP_CASES,
                         ids=[f"{f.__name__}-{i}" for i, (f, _) in enumerate(LOOP_CASES)])
def test_loop_matches_finite_differences(f, args):
    check_grads(f, *args)


def test_loop_polynomial_closed_form():
    # n = 4: s = ((0*x + 1)*x + 2)*x + 3 = x^2 + 2x + 3
    d = srcad.autodiff(Reverse, range_one_arg, Active(1.5), 4)[0]
    assert d == pytest.approx(2 * 1.5 + 2, rel=1e-12)


def test_loop_with_zero_trips_has_zero_derivative():
    assert srcad.autodiff(Reverse, range_one_arg, Active(1.5), 0)[0] == 0.0


# --- arrays -----------------------------------------------------------------------------------

def read_1d(x):
    s = 0.0
    for i in range(len(x)):
        s += x[i] * x[i - 1]
    return s + x[-1] * x[0]


def read_2d_both_indexings(a):
    s = 0.0
    n, m = a.shape
    for i in range(n):
        for j in range(m):
            s += a[i, j] * a[i][j] * (i + 1.0) + a[i, m - 1 - j]
    return s


def iterate_over_array(x):
    s = 1.0
    for v in x:
        s = s * v + v * v
    return s


def write_output_array(y, x):
    for i in range(len(x)):
        y[i] = x[i] * x[i] + math.sin(x[i])


def accumulate_into_output(y, x):
    for i in range(len(x)):
        y[i] += x[i] * x[i]


def overwrite_own_input(x):
    for i in range(1, len(x)):
        x[i] = x[i] * x[i - 1] + 1.0
    x[0] = x[0] * x[0]


def overwrite_same_element_in_loop(y, x):
    for i in range(len(x)):
        y[0] = y[0] * x[i] + 1.0
        y[1] = math.sin(y[0])
    y[1] = y[1] * y[0]


def overwrite_element_read_later(x):
    s = 0.0
    for _ in range(3):
        for i in range(len(x)):
            s += x[i] * x[i]
            x[i] = math.cos(x[i]) * s
    return s


def local_arrays(x):
    n = len(x)
    a = np.zeros(n)
    b = np.empty(n)
    c = np.zeros_like(x)
    d = np.ones(n)
    e = x.copy()
    for i in range(n):
        a[i] = x[i] * 2.0
        b[i] = a[i] * x[i]
        c[i] = b[i] + d[i] * x[i]
        e[i] = e[i] * c[i]
    s = 0.0
    for i in range(n):
        s += e[i] + a[i] * c[n - 1 - i]
    return s


def local_2d_array(x):
    n = x.shape[0]
    m = np.zeros((n, 2))
    for i in range(n):
        m[i, 0] = x[i] * x[i]
        m[i][1] = m[i, 0] * x[i]
    s = 0.0
    for i in range(n):
        s += m[i, 1] - m[i][0]
    return s


def write_2d_output(out, a, w):
    n, m = a.shape
    for i in range(n):
        for j in range(m):
            out[i, j] = a[i, j] * w + out[i, j]
            out[i][j] += a[i][j] * a[i][j]


def array_and_scalar(x, w, b):
    s = b
    for i in range(len(x)):
        s += math.tanh(w * x[i] + b)
    return s


def matvec(y, a, x):
    n, m = a.shape
    for i in range(n):
        acc = 0.0
        for j in range(m):
            acc += a[i, j] * x[j]
        y[i] = acc


def _vec(n, seed=1):
    return np.random.default_rng(seed).standard_normal(n) * 0.5


def _dup(a):
    return Duplicated(a, np.zeros_like(a))


ARRAY_CASES = [
    (read_1d, lambda: (_dup(_vec(5)),)),
    (read_2d_both_indexings, lambda: (_dup(_vec(12).reshape(3, 4)),)),
    (iterate_over_array, lambda: (_dup(_vec(4)),)),
    (write_output_array, lambda: (_dup(np.zeros(4)), _dup(_vec(4)))),
    (accumulate_into_output, lambda: (_dup(_vec(4, 2)), _dup(_vec(4)))),
    (overwrite_own_input, lambda: (_dup(_vec(5)),)),
    (overwrite_same_element_in_loop, lambda: (_dup(_vec(2, 3)), _dup(_vec(4)))),
    (overwrite_element_read_later, lambda: (_dup(_vec(3)),)),
    (local_arrays, lambda: (_dup(_vec(4)),)),
    (local_2d_array, lambda: (_dup(_vec(4)),)),
    (write_2d_output, lambda: (_dup(_vec(6, 2).reshape(2, 3)), _dup(_vec(6).reshape(2, 3)),
                               Active(0.7))),
    (array_and_scalar, lambda: (_dup(_vec(4)), Active(0.7), Active(-0.2))),
    (array_and_scalar, lambda: (_vec(4), Active(0.7), Active(-0.2))),
    (matvec, lambda: (_dup(np.zeros(3)), _dup(_vec(6).reshape(3, 2)), _dup(_vec(2, 5)))),
    (matvec, lambda: (_dup(np.zeros(3)), _vec(6).reshape(3, 2), _dup(_vec(2, 5)))),
    (seed002, lambda: (_dup(np.zeros(6)), _dup(_vec(6)), _dup(np.zeros(6)))),
]


@pytest.mark.parametrize("f, make_args", ARRAY_CASES,
                         ids=[f"{f.__name__}-{i}" for i, (f, _) in enumerate(ARRAY_CASES)])
def test_array_code_matches_finite_differences(f, make_args):
    check_grads(f, *make_args())


def test_accumulate_into_output_value_and_gradient():
    # The Tangent trap: y[i] += x[i] * x[i] must keep y's old value and its derivative 1.
    x = np.array([0.5, -1.0, 2.0])
    y = np.array([1.0, 2.0, 3.0])
    dx = np.zeros(3)
    dy = np.array([1.0, 10.0, 100.0])
    srcad.autodiff(Reverse, accumulate_into_output, Duplicated(y, dy), Duplicated(x, dx))
    np.testing.assert_allclose(y, [1.25, 3.0, 7.0], rtol=1e-15)
    np.testing.assert_allclose(dy, [1.0, 10.0, 100.0], rtol=1e-15)
    np.testing.assert_allclose(dx, 2 * x * [1.0, 10.0, 100.0], rtol=1e-15)


def test_reverse_runs_the_primal_on_duplicated_arrays():
    x = _vec(4)
    y = np.zeros(4)
    expected = np.zeros(4)
    write_output_array(expected, x.copy())
    srcad.autodiff(Reverse, write_output_array, _dup(y), _dup(x.copy()))
    np.testing.assert_allclose(y, expected, rtol=1e-15)


def test_read_1d_closed_form():
    x = np.array([1.0, 2.0, 3.0])
    dx = np.zeros(3)
    srcad.autodiff(Reverse, read_1d, Duplicated(x, dx))
    # s = x0 x2 + x1 x0 + x2 x1 + x2 x0
    np.testing.assert_allclose(dx, [2 * 3.0 + 2.0, 1.0 + 3.0, 2 * 1.0 + 2.0], rtol=1e-15)


def test_shadow_of_input_accumulates():
    x = np.array([1.0, 2.0, 3.0])
    dx = np.ones(3)
    srcad.autodiff(Reverse, read_1d, Duplicated(x, dx))
    np.testing.assert_allclose(dx, [9.0, 5.0, 5.0], rtol=1e-15)


def test_seed_002_jacobian_matches_closed_form():
    n = 5
    x = _vec(n)
    jacobian = np.zeros((n, n))
    for row in range(n):
        y, dy = np.zeros(n), np.zeros(n)
        dy[row] = 1.0
        dx = np.zeros(n)
        srcad.autodiff(Reverse, seed002, Duplicated(y, dy), Duplicated(x.copy(), dx),
                       Duplicated(np.zeros(n), np.zeros(n)))
        jacobian[row] = dx
    _, expected = seed002_value_and_jacobian(x)
    np.testing.assert_allclose(jacobian, expected, rtol=1e-13, atol=1e-15)


# --- calls: math, numpy scalar functions, builtins, constants -------------------------------

def unary_math(x):
    return (math.exp(x) + math.log(x) + math.log1p(x) + math.expm1(x) + math.sqrt(x)
            + math.sin(x) + math.cos(x) + math.tan(x) + math.asin(x) + math.acos(x)
            + math.atan(x) + math.sinh(x) + math.cosh(x) + math.tanh(x) + math.fabs(x)
            + math.erf(x))


def unary_numpy(x):
    return (np.exp(x) + np.log(x) + np.log1p(x) + np.expm1(x) + np.sqrt(x) + np.sin(x)
            + np.cos(x) + np.tan(x) + np.arcsin(x) + np.arccos(x) + np.arctan(x) + np.sinh(x)
            + np.cosh(x) + np.tanh(x) + np.abs(x) + np.fabs(x))


def abs_family(x):
    return abs(x) * x + math.fabs(x) + np.abs(x) + np.fabs(x) + np.absolute(x)


def binary_math(x, y):
    return (math.atan2(y, x) + math.pow(x, y) + math.hypot(x, y) + np.arctan2(x, y)
            + np.power(x, y) + np.hypot(y, x))


def pow_with_constant_exponent(x):
    return math.pow(x, 2.0) + pow(x, 3) + x ** 2 + np.power(x, 2.0)


def builtins_abs_min_max_pow(x, y):
    return abs(x) * min(x, y) + max(x, y * y) + pow(y, 2.0) + pow(x * x, y) + min(x, 3.0)


def builtin_max_three_args(x, y, z):
    return max(x, y, z) + min(z, y, x)


def float_and_int(x):
    k = int(x * 3.0)
    return float(k) * x + float(x) * x + k


def constants(x):
    return math.pi * x * x + np.pi * math.sin(x) + math.e ** x


CALL_CASES = [
    (unary_math, (Active(0.4),)),
    (abs_family, (Active(-0.4),)),
    (abs_family, (Active(0.4),)),
    (unary_numpy, (Active(0.4),)),
    (binary_math, (Active(0.8), Active(1.3))),
    (pow_with_constant_exponent, (Active(1.7),)),
    (pow_with_constant_exponent, (Active(-1.7),)),
    (builtins_abs_min_max_pow, (Active(0.8), Active(1.3))),
    (builtins_abs_min_max_pow, (Active(-0.8), Active(1.3))),
    (builtins_abs_min_max_pow, (Active(4.0), Active(-2.5))),
    (builtin_max_three_args, (Active(0.8), Active(1.3), Active(-0.5))),
    (float_and_int, (Active(1.7),)),
    (constants, (Active(0.7),)),
]


@pytest.mark.parametrize("f, args", CALL_CASES,
                         ids=[f"{f.__name__}-{i}" for i, (f, _) in enumerate(CALL_CASES)])
def test_library_call_matches_finite_differences(f, args):
    check_grads(f, *args)


def test_unary_math_closed_form():
    x = 0.4
    expected = (math.exp(x) + 1 / x + 1 / (1 + x) + math.exp(x) + 0.5 / math.sqrt(abs(x))
                + math.cos(x) - math.sin(x) + 1 / math.cos(x) ** 2 + 1 / math.sqrt(1 - x * x)
                - 1 / math.sqrt(1 - x * x) + 1 / (1 + x * x) + math.cosh(x) + math.sinh(x)
                + 1 / math.cosh(x) ** 2 + 1.0 + 2 / math.sqrt(math.pi) * math.exp(-x * x))
    (d,) = srcad.autodiff(Reverse, unary_math, Active(x))
    assert d == pytest.approx(expected, rel=1e-12)


def test_abs_family_closed_form_for_negative_argument():
    (d,) = srcad.autodiff(Reverse, abs_family, Active(-0.4))
    assert d == pytest.approx(2 * 0.4 - 4.0, rel=1e-12)


def test_constants_closed_form():
    (d,) = srcad.autodiff(Reverse, constants, Active(0.7))
    expected = 2 * math.pi * 0.7 + math.pi * math.cos(0.7) + math.e ** 0.7
    assert d == pytest.approx(expected, rel=1e-12)


def test_int_truncation_has_no_derivative():
    (d,) = srcad.autodiff(Reverse, float_and_int, Active(1.7))
    assert d == pytest.approx(5.0 + 2 * 1.7, rel=1e-12)


def guarded_log(x):
    """The guard idiom: the call in the untaken branch would raise (log of x <= 0)."""
    return math.log(x) * x if x > 0.0 else 0.5 * x


def guarded_nested(x):
    return math.exp(x) * (math.sqrt(x) if x > 0.5 else -x) if x > -0.5 else math.log(-x)


GUARD_CASES = [(guarded_log, -1.0, 0.5), (guarded_log, 0.0, 0.5),
               (guarded_log, 2.0, math.log(2.0) + 1.0),
               (guarded_nested, -1.0, -1.0), (guarded_nested, 0.25, -math.exp(0.25) * 1.25),
               (guarded_nested, 2.0, math.exp(2.0) * (math.sqrt(2.0) + 0.5 / math.sqrt(2.0)))]


@pytest.mark.parametrize("backend", ["python", "numba"])
@pytest.mark.parametrize("f, x, expected", GUARD_CASES)
def test_guarded_calls_follow_the_taken_branch_in_every_mode(f, x, expected, backend):
    """A conditional expression computes only its taken branch, and so does every derivative
    of it: the untaken branch's calls are not evaluated (they would raise and be refused as a
    non-finite derivative)."""
    (d,) = srcad.autodiff(Reverse, f, Active(x), backend=backend)
    assert d == pytest.approx(expected, rel=1e-12)
    assert srcad.autodiff(srcad.Forward, f, Duplicated(x, 1.0),
                          backend=backend) == pytest.approx(expected, rel=1e-12)
    lanes = srcad.autodiff(srcad.Forward, f, srcad.BatchDuplicated(x, [1.0, -2.0]),
                           backend=backend)
    np.testing.assert_allclose(lanes, [expected, -2.0 * expected], rtol=1e-12)


# --- calls to the user's own functions --------------------------------------------------------

def square_plus(a, b):
    return a * a + b


def uses_helper_twice(a):
    return square_plus(a, 1.0) * square_plus(2.0 * a, a)


def sign_clip(v):
    if v < 0.0:
        return -v * 0.5
    if v > 2.0:
        return 2.0 + math.log(v - 1.0)
    return v * v


def sum_and_product(a, b):
    return a + b, a * b


def scale_into(out, src, w):
    for i in range(len(src)):
        out[i] = src[i] * w
    return w * w


def normal_pdf(x, mean, var):
    return math.exp(-(x - mean) ** 2 / (2.0 * var)) / math.sqrt(2.0 * math.pi * var)


def helper_calls_helper(x, y):
    return square_plus(uses_helper_twice(x), y) + uses_helper_twice(y)


def helper_with_early_returns(x):
    return sign_clip(x) + sign_clip(x - 2.5) + sign_clip(-x)


def helper_returning_tuple(x, y):
    s, p = sum_and_product(x, y)
    u, v = sum_and_product(s, p)
    return u * v + s


def helper_writing_array(y, x, w):
    ww = scale_into(y, x, w)
    for i in range(len(y)):
        y[i] = y[i] * ww
    return ww


def helper_inside_loop(params, data):
    total = 0.0
    for n in range(len(data)):
        acc = 0.0
        for k in range(len(params) // 3):
            acc += params[k] * normal_pdf(data[n], params[3 + k], params[6 + k] ** 2)
        total += math.log(acc)
    return total


def helper_with_same_local_names(x):
    a = x * 2.0
    b = square_plus(a, x)
    a = square_plus(b, a)
    return a


HELPER_CASES = [
    (uses_helper_twice, lambda: (Active(0.7),)),
    (helper_calls_helper, lambda: (Active(0.7), Active(-0.3))),
    (helper_with_early_returns, lambda: (Active(0.7),)),
    (helper_with_early_returns, lambda: (Active(3.7),)),
    (helper_with_early_returns, lambda: (Active(5.7),)),
    (helper_returning_tuple, lambda: (Active(0.7), Active(-0.3))),
    (helper_writing_array, lambda: (_dup(np.zeros(3)), _dup(_vec(3)), Active(0.6))),
    (helper_inside_loop, lambda: (_dup(np.array([0.3, 0.5, 0.2, -0.5, 0.0, 1.0, 0.8, 1.2, 1.5])),
                                  _vec(7))),
    (helper_with_same_local_names, lambda: (Active(0.7),)),
]


@pytest.mark.parametrize("f, make_args", HELPER_CASES,
                         ids=[f"{f.__name__}-{i}" for i, (f, _) in enumerate(HELPER_CASES)])
def test_user_helper_call_matches_finite_differences(f, make_args):
    check_grads(f, *make_args())


def test_helper_with_early_returns_closed_form():
    # x = 0.7: x^2 + (-(x - 2.5) * 0.5) + (x * 0.5) -> 2x - 0.5 + 0.5
    (d,) = srcad.autodiff(Reverse, helper_with_early_returns, Active(0.7))
    assert d == pytest.approx(2 * 0.7, rel=1e-12)


def test_helper_returning_tuple_closed_form():
    # s = x + y, p = x y; result (s + p) s p + s
    x, y = 0.7, -0.3
    s, p = x + y, x * y
    ds = s * p + (s + p) * p + 1.0
    dp = s * p + (s + p) * s
    dx, dy = srcad.autodiff(Reverse, helper_returning_tuple, Active(x), Active(y))
    assert dx == pytest.approx(ds + dp * y, rel=1e-12)
    assert dy == pytest.approx(ds + dp * x, rel=1e-12)


# --- more crossings: element updates, swaps, type changes, counters --------------------------

def augmented_element_updates(y, x):
    for i in range(len(x)):
        y[i] -= x[i] * 0.5
        y[i] *= x[i]
        y[i] /= 1.0 + x[i] * x[i]
        y[i] += y[i] * x[i]


def squares_own_input_repeatedly(x):
    for _ in range(3):
        for i in range(len(x)):
            x[i] = x[i] * x[i] + 0.1


def swap_array_elements(x):
    n = len(x)
    for i in range(n // 2):
        x[i], x[n - 1 - i] = x[n - 1 - i] * 2.0, x[i]


def int_accumulator_becomes_float(x):
    s = 0
    for i in range(len(x)):
        s += x[i] * x[i]
    return s


def chained_assignment(x):
    a = b = x * x
    a = a * b
    return a + b


def variable_defined_in_one_branch(x, y):
    s = y
    if x > 0.0:
        t = x * y
        s = t * t
    return s + x


def helper_early_return_inside_loop(x, n):
    s = 0.0
    for i in range(n):
        s += sign_clip(x * i - 1.0)
    return s


def reverse_iteration_reads_written(y, x):
    n = len(x)
    y[n - 1] = x[n - 1]
    for i in range(n - 2, -1, -1):
        y[i] = y[i + 1] * x[i] + math.sin(y[i + 1])


def counter_indexes_output(y, x):
    k = 0
    for i in range(len(x)):
        if x[i] > 0.0:
            y[k] = x[i] * x[i]
            k += 1
    return float(k)


CROSSING_CASES = [
    (augmented_element_updates, lambda: (_dup(_vec(4, 2)), _dup(_vec(4)))),
    (squares_own_input_repeatedly, lambda: (_dup(_vec(4)),)),
    (swap_array_elements, lambda: (_dup(_vec(5)),)),
    (int_accumulator_becomes_float, lambda: (_dup(_vec(4)),)),
    (chained_assignment, lambda: (Active(0.8),)),
    (variable_defined_in_one_branch, lambda: (Active(0.8), Active(1.1))),
    (variable_defined_in_one_branch, lambda: (Active(-0.8), Active(1.1))),
    (helper_early_return_inside_loop, lambda: (Active(0.9), 5)),
    (reverse_iteration_reads_written, lambda: (_dup(np.zeros(5)), _dup(_vec(5)))),
    (counter_indexes_output, lambda: (_dup(np.zeros(6)), _dup(_vec(6)))),
]


@pytest.mark.parametrize("f, make_args", CROSSING_CASES,
                         ids=[f"{f.__name__}-{i}" for i, (f, _) in enumerate(CROSSING_CASES)])
def test_crossing_construct_matches_finite_differences(f, make_args):
    check_grads(f, *make_args())


def test_swap_array_elements_closed_form():
    x = np.array([1.0, 2.0, 3.0])
    dx = np.array([1.0, 10.0, 100.0])  # seeds for the outputs [2 x2, x1, x0]
    srcad.autodiff(Reverse, swap_array_elements, Duplicated(x, dx))
    np.testing.assert_allclose(x, [6.0, 2.0, 1.0])
    np.testing.assert_allclose(dx, [100.0, 10.0, 2.0])


# --- early exits from loops -------------------------------------------------------------------

def early_return_in_while(x):
    s = x
    k = 0
    while k < 10:
        s = s * 1.5
        if s > 3.0:
            return s * s
        k += 1
    return -s


def early_return_in_nested_loop(x, n):
    s = x
    for _ in range(n):
        for j in range(n):
            s = s * 1.2 + 0.1 * j
            if s > 4.0:
                return s * 3.0
    return s


def first_exceeding(v, limit):
    for i in range(len(v)):
        if v[i] > limit:
            return v[i] * 2.0
    return 0.0


def helper_with_loop_and_early_return(x):
    return first_exceeding(x, 0.2) + x[0]


def break_then_use(x):
    s = x
    for _ in range(10):
        s = s * 1.5
        if s > 3.0:
            break
    return s * s


EARLY_EXIT_CASES = [
    (early_return_in_loop, lambda: (Active(1.0), 5)),
    (early_return_in_while, lambda: (Active(1.0),)),
    (early_return_in_nested_loop, lambda: (Active(1.0), 4)),
    (helper_with_loop_and_early_return, lambda: (_dup(np.array([0.1, 0.5, 0.9])),)),
    (break_then_use, lambda: (Active(1.0),)),
]


@pytest.mark.parametrize("f, make_args", EARLY_EXIT_CASES,
                         ids=[f"{f.__name__}-{i}" for i, (f, _) in enumerate(EARLY_EXIT_CASES)])
def test_early_exit_from_loop_matches_finite_differences(f, make_args):
    check_grads(f, *make_args())


@pytest.mark.parametrize("f, make_args", EARLY_EXIT_CASES,
                         ids=[f"{f.__name__}-{i}" for i, (f, _) in enumerate(EARLY_EXIT_CASES)])
def test_early_exit_from_loop_returns_the_primal_value(f, make_args):
    args = make_args()
    plain = [a.value if isinstance(a, (Active, Duplicated)) else a for a in args]
    expected = f(*[np.copy(p) if isinstance(p, np.ndarray) else p for p in plain])
    _, value = srcad.autodiff(ReverseWithPrimal, f, *args)
    assert value == pytest.approx(expected, rel=1e-14)


def reshaped_then_written(W):
    z = np.ones(4)
    h = np.expand_dims(W[3], 1) * np.reshape(z, (1, -1)) @ W[:, 1]  # W[3, i] sum(W[:, 1])
    z[0:4] += W[:, 0]
    return np.sum(h)


def transposed_then_written(W, b):
    z = np.zeros((4, 3))
    z[1:, :] = W[1:]
    z[:, 1] = np.mean(b / (2.0 + np.sin(z.T)), axis=0)
    return np.sum(z * z)


def test_a_view_of_an_array_written_later_keeps_its_values_for_the_reverse_sweep():
    # the reverse sweep read `np.reshape(z, ...)` and `z.T` bound in the forward sweep after
    # z was written in place (z's taped copy restored the name, not the view)
    W = np.array([[-0.075, -0.943], [-0.351, -1.411], [0.821, 0.091], [0.494, -0.026]])
    expected = np.zeros((4, 2))
    expected[3] = np.sum(W[:, 1])
    expected[:, 1] += W[3, 0] + W[3, 1]
    np.testing.assert_allclose(srcad.gradient(reshaped_then_written, W.copy()), expected,
                               rtol=1e-13)
    W = np.array([[0.3, -0.7, 0.2], [1.1, 0.5, -0.4], [0.8, 0.1, 0.6], [-0.5, 0.9, 0.3]])
    check_grads(transposed_then_written, Duplicated(W, np.zeros((4, 3))),
                Duplicated(np.array([1.2, 1.3, 0.9, 0.7]), np.zeros(4)))
