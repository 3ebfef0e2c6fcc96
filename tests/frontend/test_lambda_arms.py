"""Functions as values where Python evaluates them conditionally or passes them on: a lambda or
a call of your own function in an arm of `a if c else b` (run only when that arm is taken),
a name bound to one of two lambdas, a nested `def` or lambda defined inside a loop or branch
or defined again, a lambda, nested `def` or module-level function passed to a function of
your own (substituted when it is inlined, reading the caller's variables by its closure, never
the callee's names). Each derivative checked against central finite differences and forward
against reverse, in every mode; what stays refused is refused with file, line and fix.
"""

import math

import numpy as np
import pytest

import srcad
from srcad import Active, Const, Duplicated, Reverse, ReverseWithPrimal
from srcad.testing import check_grads

SCALE = 100.0  # a global the callee's own local `scale` must not capture


def dup(value):
    return Duplicated(value, np.zeros_like(value))


def apply(fn, v):
    return fn(v)


def apply_scaled(fn, v):
    scale = 3.0  # the caller's lambda reads the caller's `scale`, not this one
    return fn(v) + scale


def twice(fn, v):
    return fn(fn(v))


def passed_on(fn, v):
    return twice(fn, v) * 2.0


def square(t):
    return t * t


def bump(p):
    p[0] = p[0] + 1.0
    return p[0] * p[0]


# -- conditional arms --------------------------------------------------------------------------
def one_of_two_lambdas(x, c):
    g = (lambda y: y * y) if c > 0 else (lambda y: 2.0 * y)
    return g(x)


def lambda_called_in_an_arm(x, c):
    return x if c > 0 else (lambda y: y * y * x)(x)


def helper_in_an_arm(x, c):
    r = 1.0
    r += square(x) if c > 0 else (2.0 * x if c < -1 else square(2.0 * x))
    return r


@pytest.mark.parametrize("c", [1.0, -0.5, -2.0])
@pytest.mark.parametrize("f", [one_of_two_lambdas, lambda_called_in_an_arm, helper_in_an_arm])
def test_conditional_arms_differentiate_the_arm_taken(f, c):
    check_grads(f, Active(1.3), Const(c))
    assert srcad.gradient(f, 1.3, srcad.Constant(c)) == pytest.approx(
        (f(1.3 + 1e-6, c) - f(1.3 - 1e-6, c)) / 2e-6, rel=1e-6)


def writes_in_an_arm(p, x, c):
    r = bump(p) if c > 0 else x * x
    return r * x


@pytest.mark.parametrize("c", [1.0, -1.0])
def test_a_call_in_an_arm_runs_only_when_the_arm_is_taken(c):
    p = np.array([0.5, 2.0])
    expected = p.copy()
    value = writes_in_an_arm(expected, 1.5, c)  # Python writes p only when c > 0
    got = p.copy()
    _, out = srcad.autodiff(ReverseWithPrimal, writes_in_an_arm, Duplicated(got, np.zeros(2)),
                            Active(1.5), Const(c))
    np.testing.assert_allclose(got, expected)
    assert out == pytest.approx(value)
    check_grads(writes_in_an_arm, dup(np.array([0.5, 2.0])), Active(1.5), Const(c))


# -- definitions in loops and branches, names defined again ----------------------------------
def defined_in_a_loop(x, n):
    s = 0.0
    for i in range(n):
        def h(t):
            return t * i + t * t  # noqa: B023
        s = s + h(x)
    return s


def chosen_in_a_loop(x, n):
    s = 0.0
    for i in range(n):
        if i % 2 == 0:
            f = lambda t: t * i  # noqa: E731, B023
        else:
            def f(t):
                return t ** 3
        s = s + f(x)
    return s


def defined_again(x, c):
    f = lambda t: t * 2.0  # noqa: E731
    y = f(x)
    f = lambda t: t ** 3  # noqa: E731
    return y + f(x) * c


@pytest.mark.parametrize("f, args", [
    (defined_in_a_loop, (Active(1.2), Const(3))),
    (chosen_in_a_loop, (Active(1.2), Const(4))),
    (chosen_in_a_loop, (Active(1.2), Const(0))),
    (defined_again, (Active(1.2), Active(0.7))),
], ids=["loop", "branch-in-loop", "no-iteration", "again"])
def test_definitions_in_blocks_and_again_are_the_ones_python_calls(f, args):
    check_grads(f, *args)


# -- functions passed to your own functions ----------------------------------------------------
def lambda_passed(x):
    return apply(lambda t: t ** 3, x)


def module_function_passed(x):
    return apply(square, x) + apply(fn=square, v=2.0 * x)


def nested_def_passed(x, k):
    def cube(t):
        return t ** 3 * k
    return apply(cube, x)


def closure_not_captured(x, scale):
    return apply_scaled(lambda t: t * scale + SCALE * 0.0, x)


def passed_twice_calling_siblings(x, k):
    def inner(t):
        return t * k + square(t)

    def outer(t):
        return inner(t) + np.sin(t)
    return passed_on(outer, x)


def library_function_passed(x, p):
    s = twice(np.sin, x) + apply(math.exp, x) + apply(fn=abs, v=x)
    for i in range(p.shape[0]):
        s += twice(np.tanh, p[i])
    return s


def array_passed(p, w):
    return apply(lambda t: np.sum(t * w * t), p)


@pytest.mark.parametrize("f, args", [
    (lambda_passed, (Active(1.1),)),
    (module_function_passed, (Active(1.1),)),
    (nested_def_passed, (Active(1.1), Active(0.5))),
    (nested_def_passed, (Active(1.1), Const(0.5))),
    (closure_not_captured, (Active(1.1), Active(2.0))),
    (passed_twice_calling_siblings, (Active(0.4), Active(0.5))),
    (array_passed, (dup(np.array([0.5, 1.5, -2.0])), Const(np.array([1.0, 2.0, 3.0])))),
    (library_function_passed, (Active(0.7), dup(np.array([0.3, -0.4])))),
], ids=["lambda", "module", "nested-def", "nested-def-const", "closure", "passed-on", "array",
        "library"])
def test_functions_passed_to_your_own_function(f, args):
    check_grads(f, *args)


def test_the_passed_lambda_reads_the_callers_variables():
    # apply_scaled's own `scale` is 3.0; the lambda's is the caller's 2.0
    assert srcad.gradient(closure_not_captured, 1.1, srcad.Constant(2.0)) == pytest.approx(2.0)


def test_numba_backend():
    check_grads(passed_twice_calling_siblings, Active(0.4), Const(0.5), backend="numba")


# -- still refused -----------------------------------------------------------------------------
def mapped(x):
    return np.sum(np.array(list(map(lambda t: t * t, [x, x]))))


def in_an_or(x):
    return x > 0.0 or (lambda a: a * a)(x)


def arities_differ(x, c):
    if c > 0:
        f = lambda t: t * 2.0  # noqa: E731
    else:
        f = lambda t, u: t * u  # noqa: E731
    return f(x)


@pytest.mark.parametrize("f, args, construct, offset, column", [
    (mapped, (Active(1.0),), "lambda", 1, 37),
    (in_an_or, (Active(1.0),), "lambda", 1, 24),
    (arities_differ, (Active(1.0), Const(1.0)), "lambda", 2, 13),
], ids=["map", "or", "arities"])
def test_what_stays_refused_is_named(f, args, construct, offset, column):
    with pytest.raises(srcad.SrcadError) as info:
        srcad.autodiff(Reverse, f, *args)
    problem = info.value.problems[0]
    assert (problem.construct, problem.line, problem.column) == (
        construct, f.__code__.co_firstlineno + offset, column), str(info.value)
    assert problem.filename == __file__
    assert "pass it to a function of your own" in str(info.value)
