"""Repeated calls take a generated fast path (srcad/build/plans.py): a reverse `autodiff` call and a
prepared reverse gradient are each one generated function that checks the arguments, calls the
compiled code and builds the result. These tests change one thing at a time between calls and
compare every result with the hand-derived gradient, so a fast path that accepts arguments it
should not, or that keeps state from the previous call, fails here."""

import math

import numpy as np
import pytest

import srcad
from srcad import Active, Const, Duplicated, Reverse, ReverseWithPrimal

BACKENDS = ["python", "numba"]  # numba is in the dev extra


def weighted_cubes(x, w):
    s = 0.0
    for i in range(len(x)):
        s += w[i] * x[i] ** 3
    return s


def weighted_cubes_grad(x, w):
    return 3.0 * w * x ** 2


def scaled(x, a, b=2.0):
    return a * b * x * x


def newton_sqrt(x, data):
    """A while loop whose trip count depends on the data: the numba tape grows on the call
    that needs more iterations than the ones before."""
    total = 0.0
    for i in range(len(data)):
        r = x[i % len(x)] * data[i]
        y = 1.0 + r
        k = 0
        while abs(y * y - r) > 1e-14 * r and k < 200:
            y = 0.5 * (y + r / y)
            k += 1
        total += y
    return total


def newton_sqrt_grad(x, data):
    g = np.zeros_like(x)
    for i in range(len(data)):
        r = x[i % len(x)] * data[i]
        g[i % len(x)] += 0.5 / math.sqrt(r) * data[i]
    return g


def with_cache(x, c):
    for i in range(len(x)):
        c[i] = x[i] * x[i]
    s = 0.0
    for i in range(len(x)):
        s += c[i] * x[(i + 1) % len(x)]
    return s


def with_cache_grad(x):
    n = len(x)
    g = np.zeros(n)
    for i in range(n):
        j = (i + 1) % n
        g[i] += 2.0 * x[i] * x[j]
        g[j] += x[i] * x[i]
    return g


@pytest.mark.parametrize("backend", BACKENDS)
def test_repeated_reverse_calls_change_one_thing_at_a_time(backend):
    rng = np.random.default_rng(1)
    x, w = rng.random(5) + 0.5, rng.random(5)
    calls = [
        (x, w),  # the first call: checked, leaves a plan
        (x, w),  # the same kinds: the plan's fast path
        (2.0 * x, w),  # new values
        (rng.random(9) + 0.5, rng.random(9)),  # other lengths: same plan, shapes per call
        (x[::2], w[::2]),  # strided views
    ]
    for xs, ws in calls:
        shadow = np.full_like(xs, 0.25)  # Duplicated adds into its shadow
        derivs = srcad.autodiff(Reverse, weighted_cubes, Duplicated(xs, shadow), ws,
                                backend=backend)
        assert derivs == (None, None)
        np.testing.assert_allclose(shadow, 0.25 + weighted_cubes_grad(xs, ws), rtol=1e-13)
    # the roles swapped: w differentiated, x constant
    shadow = np.zeros(5)
    srcad.autodiff(Reverse, weighted_cubes, Const(x), Duplicated(w, shadow), backend=backend)
    np.testing.assert_allclose(shadow, x ** 3, rtol=1e-13)
    # a float32 shadow of a float64 array does not match the plan: refused, not reused
    with pytest.raises(srcad.SrcadError, match="congruent"):
        srcad.autodiff(Reverse, weighted_cubes, Duplicated(x, np.zeros(5, np.float32)), w,
                       backend=backend)
    with pytest.raises(srcad.SrcadError, match="congruent"):
        srcad.autodiff(Reverse, weighted_cubes, Duplicated(x, np.zeros(4)), w, backend=backend)
    # a matrix where a vector was: not the plan's rank, so the checked path refuses or
    # transforms anew; never the vector plan
    with pytest.raises(srcad.SrcadError):
        srcad.autodiff(Reverse, weighted_cubes, Duplicated(np.ones((2, 2)), np.zeros((2, 2))),
                       w, backend=backend)


@pytest.mark.parametrize("backend", BACKENDS)
def test_repeated_reverse_calls_with_floats_defaults_and_primal(backend):
    for _ in range(3):  # first checked, then the fast path
        assert srcad.autodiff(Reverse, scaled, Active(3.0), Const(0.5),
                              backend=backend) == (1.0 * 3.0 * 2.0, None)
        # b omitted: one entry per argument given, b's default 2.0 used
        derivs, value = srcad.autodiff(ReverseWithPrimal, scaled, Active(3.0), Active(0.5),
                                       backend=backend)
        assert (derivs, value) == ((2.0 * 3.0, 2.0 * 9.0), 9.0)
        # b given: three entries
        assert srcad.autodiff(Reverse, scaled, Active(3.0), Const(0.5), Active(4.0),
                              backend=backend) == (12.0, None, 0.5 * 9.0)
        # a seed scales the adjoints
        assert srcad.autodiff(Reverse, scaled, Active(3.0), Const(0.5), seed=-2.0,
                              backend=backend) == (-12.0, None)


@pytest.mark.parametrize("backend", BACKENDS)
def test_repeated_reverse_calls_grow_the_tape(backend):
    """The first call's loops are short; a later call needs longer tapes than the ones the
    earlier calls handed back."""
    x = np.array([0.5, 2.0, 3.0])
    for scale in (1.0, 1e3, 1e9, 1.0):
        data = np.linspace(0.5, 2.0, 7) * scale
        shadow = np.zeros(3)
        srcad.autodiff(Reverse, newton_sqrt, Duplicated(x, shadow), data, backend=backend)
        np.testing.assert_allclose(shadow, newton_sqrt_grad(x, data), rtol=1e-9)


@pytest.mark.parametrize("backend", BACKENDS)
def test_prepared_gradient_calls_keep_nothing_from_the_call_before(backend):
    rng = np.random.default_rng(2)
    x, w = rng.random(6) + 0.5, rng.random(6)
    prep = srcad.prepare_gradient(weighted_cubes, x, srcad.Constant(w), backend=backend)
    out = np.full(6, 7.0)  # overwritten, not added into
    for k in range(3):
        xk, wk = x + k, w * (k + 1)
        assert srcad.gradient(weighted_cubes, xk, srcad.Constant(wk), prep=prep, out=out) is out
        np.testing.assert_allclose(out, weighted_cubes_grad(xk, wk), rtol=1e-13)
    # without out: a new array each call, not the preparation's buffer
    first = srcad.gradient(weighted_cubes, x, srcad.Constant(w), prep=prep)
    second = srcad.gradient(weighted_cubes, 2.0 * x, srcad.Constant(w), prep=prep)
    np.testing.assert_allclose(first, weighted_cubes_grad(x, w), rtol=1e-13)
    np.testing.assert_allclose(second, weighted_cubes_grad(2.0 * x, w), rtol=1e-13)
    value, grad = srcad.value_and_gradient(weighted_cubes, x, srcad.Constant(w), prep=prep)
    assert value == pytest.approx(float(np.sum(w * x ** 3)), rel=1e-13)
    np.testing.assert_allclose(grad, weighted_cubes_grad(x, w), rtol=1e-13)
    # a strided out: the gradient lands in it
    wide = np.zeros(12)
    srcad.gradient(weighted_cubes, x, srcad.Constant(w), prep=prep, out=wide[::2])
    np.testing.assert_allclose(wide[::2], weighted_cubes_grad(x, w), rtol=1e-13)
    assert not wide[1::2].any()
    # what does not match the preparation is refused by the checked path
    with pytest.raises(srcad.ArgumentError, match="shape"):
        srcad.gradient(weighted_cubes, x, srcad.Constant(w), prep=prep, out=np.zeros(5))
    with pytest.raises(srcad.PreparationMismatchError):
        srcad.gradient(weighted_cubes, x[:5], srcad.Constant(w[:5]), prep=prep)
    with pytest.raises(srcad.PreparationMismatchError):
        srcad.gradient(newton_sqrt, x, srcad.Constant(w), prep=prep)


@pytest.mark.parametrize("backend", BACKENDS)
def test_prepared_gradient_of_a_float_and_with_a_cache(backend):
    prep = srcad.prepare_gradient(scaled, 3.0, srcad.Constant(0.5), backend=backend)
    for x in (3.0, -1.5, 3.0):
        assert srcad.gradient(scaled, x, srcad.Constant(0.5), prep=prep) == 2.0 * x
    x, c = np.array([0.3, 1.2, -0.7, 2.0]), np.zeros(4)
    prep = srcad.prepare_gradient(with_cache, x, srcad.Cache(c), backend=backend)
    for k in range(3):
        xk = x * (k + 1)
        c[:] = 1e3  # a Cache's content never matters
        grad = srcad.gradient(with_cache, xk, srcad.Cache(c), prep=prep)
        np.testing.assert_allclose(grad, with_cache_grad(xk), rtol=1e-13)


@pytest.mark.parametrize("backend", BACKENDS)
def test_prepared_gradient_grows_the_tape(backend):
    x = np.array([0.5, 2.0, 3.0])
    data = np.linspace(0.5, 2.0, 7)
    prep = srcad.prepare_gradient(newton_sqrt, x, srcad.Constant(data), backend=backend)
    for scale in (1.0, 1e3, 1e9, 1.0):
        grad = srcad.gradient(newton_sqrt, x, srcad.Constant(data * scale), prep=prep)
        np.testing.assert_allclose(grad, newton_sqrt_grad(x, data * scale), rtol=1e-9)
