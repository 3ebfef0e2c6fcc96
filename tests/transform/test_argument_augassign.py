"""`p += e` (and `-=`, `*=`, `/=`) on an array argument writes the caller's array in place, as
NumPy does: `e` broadcast into p's shape, p's dtype kept. srcad differentiates it as the
in-place write `p[:] += e`: the caller's array is written as NumPy writes it, and the
derivatives with respect to p's input and output (its shadow, as for any in-place write of an
argument) and the other arguments are checked against central finite differences and forward
against reverse, in every mode. (Through an alias `q = p` or a view `q = p[1:]` the update
was supported before: views.py writes it into p.)"""

import numpy as np
import pytest

import srcad
from srcad import Active, Const, Duplicated, Forward, ReverseWithPrimal
from srcad.testing import check_grads

RNG = np.random.default_rng(7)


def dup(value):
    return Duplicated(value, np.zeros_like(value))


def add_scalar(p, x):
    p += x
    return np.sum(p * p)


def subtract_array(p, e):
    p -= e
    return np.sum(np.sin(p))


def multiply(p, x):
    p *= x
    return np.sum(p * p)


def divide_broadcast(P, e):
    P /= e  # e (3,) broadcast into P's rows (2, 3)
    return np.sum(P * P)


def power(p, x):  # `**=` was refused ("augmented assignment to an array"), as `*=` was not
    p **= x
    return np.sum(np.sin(p))


def in_a_loop(p, x):
    for _ in range(2):
        p += x * p


def const_term(p, c, x):
    p += c * x


CASES = [
    (add_scalar, lambda: (dup(RNG.random(3)), Active(2.0))),
    (subtract_array, lambda: (dup(RNG.random(3)), dup(RNG.random(3)))),
    (multiply, lambda: (dup(RNG.random(3)), Active(2.0))),
    (divide_broadcast, lambda: (dup(RNG.random((2, 3))), dup(RNG.random(3) + 1.0))),
    (power, lambda: (dup(RNG.random(3) + 0.5), Active(2.0))),
    (in_a_loop, lambda: (dup(RNG.random(3)), Active(0.5))),
    (const_term, lambda: (dup(RNG.random(3)), Const(RNG.random(3)), Active(2.0))),
]
IDS = [f.__name__ for f, _ in CASES]


@pytest.mark.parametrize("f, make", CASES, ids=IDS)
def test_derivatives_of_an_update_in_place(f, make):
    check_grads(f, *make())


@pytest.mark.parametrize("f, make", CASES, ids=IDS)
def test_the_callers_array_is_written_as_numpy_writes_it(f, make):
    args = make()
    plain = [a.value.copy() if isinstance(a, Duplicated) else getattr(a, "value", a)
             for a in args]
    expected = f(*plain)
    _, value = srcad.autodiff(ReverseWithPrimal, f, *args)
    for arg, want in zip(args, plain):
        if isinstance(arg, Duplicated):
            np.testing.assert_allclose(arg.value, want, rtol=1e-14)
            assert arg.value.dtype == want.dtype
    if expected is not None:
        assert value == pytest.approx(expected, rel=1e-14)


def test_the_shadow_of_the_argument_is_its_adjoint_in_and_out():
    # p_out = p_in * x: the shadow comes in as d/d(p_out) and leaves as d/d(p_in)
    p, shadow = np.array([1.0, 2.0]), np.array([1.0, 10.0])
    (_, dx), _ = srcad.autodiff(ReverseWithPrimal, scaled_in_place, Duplicated(p, shadow),
                                Active(3.0))
    np.testing.assert_allclose(p, [3.0, 6.0])
    np.testing.assert_allclose(shadow, [3.0, 30.0])  # times x
    assert dx == pytest.approx(1.0 * 1.0 + 10.0 * 2.0)  # <shadow in, p_in>


def scaled_in_place(p, x):
    p *= x


def test_forward_mode_writes_the_tangent_in_place():
    p, tangent = np.array([1.0, 2.0]), np.array([0.5, -1.0])
    srcad.autodiff(Forward, scaled_in_place, Duplicated(p, tangent), Duplicated(3.0, 2.0))
    np.testing.assert_allclose(p, [3.0, 6.0])
    np.testing.assert_allclose(tangent, [0.5 * 3.0 + 1.0 * 2.0, -1.0 * 3.0 + 2.0 * 2.0])


def looped_sum(p, x):
    p += x
    s = 0.0
    for i in range(p.shape[0]):
        s += p[i] * p[i]
    return s


def test_numba_backend():
    check_grads(looped_sum, dup(np.array([0.5, 1.5])), Active(2.0), backend="numba",
                modes=("fwd", "rev"))
