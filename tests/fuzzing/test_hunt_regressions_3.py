"""Wrong answers and crashes found by a third hunt, each fixed at its root."""

import numpy as np
import pytest

import srcad
from srcad.errors import SrcadError

BACKENDS = ["python", "numba"]


# --- a helper's tuple default, inlined into its caller ------------------------------------

def shifted(v):
    return v


def shift_then_add(a, cs=(0.425,)):
    s = a
    s = shifted(s)
    s = s + cs[0]
    return s


def add_default(a, cs=(0.425, 2.0)):
    s = a
    s = s * cs[1] + cs[0]
    return s


def calls_add_default(a):
    return add_default(a) * a


@pytest.mark.parametrize("backend", BACKENDS)
def test_helper_tuple_default_reached_through_a_lambda_keeps_the_derivative(backend):
    # once: derivative 0.0 (the default's element was taken to cut the derivative)
    assert srcad.grad(lambda a: shift_then_add(a), backend=backend)(1.0) == pytest.approx(1.0)
    # once: refused as an opaque value
    assert srcad.grad(lambda a: add_default(a), backend=backend)(1.0) == pytest.approx(2.0)


@pytest.mark.parametrize("backend", BACKENDS)
def test_helper_tuple_default_called_from_a_function(backend):
    a = 1.3  # d/da (2a + 0.425) a = 4a + 0.425
    assert srcad.grad(calls_add_default, backend=backend)(a) == pytest.approx(4 * a + 0.425)
    g = srcad.gradient(calls_add_default, a, mode="forward", backend=backend)
    assert g == pytest.approx(4 * a + 0.425)


class _Holder:
    c = 0.425


HOLDER = _Holder()


def shift_then_scale(a, h=HOLDER):
    s = a
    s = shifted(s)
    s = s * h.c
    return s


def shift_then_mixed(a, cs=(0.425, "label")):
    s = a
    s = shifted(s)
    s = s + cs[0]
    return s


@pytest.mark.parametrize("f", [shift_then_scale, shift_then_mixed])
def test_opaque_default_read_after_a_helper_call_is_refused_not_zero(f):
    # once: derivative 0.0 (the copies through the helper hid the opaque read)
    with pytest.raises(SrcadError, match="opaque value.*`(h|cs)`"):
        srcad.grad(lambda a: f(a))(1.0)


# --- np.outer of the same operand twice, its shape a name taped or computed ---------------

def solve_with_outer_of_one_operand(x):
    z = np.zeros(3)
    # z is written later: the shape of z[::-1] is taped, a name
    h = np.linalg.solve(2.0 * np.eye(3) + 0.1 * np.outer(np.cumsum(z[::-1]), np.cumsum(z[::-1])),
                        np.exp(np.sin(x)))
    for t in range(4):
        z[t % 3] += np.sum(h * x)
    return np.sum(z ** 2) + np.sum(h)


def outer_of_a_sum_twice(x, y):
    return np.sum(np.sin(0.5 * np.outer(x * y, x * y)))


def _central(f, x, *rest, eps=1e-6):
    g = np.zeros_like(x)
    for i in range(x.size):
        e = np.zeros_like(x)
        e[i] = eps
        g[i] = (f(x + e, *rest) - f(x - e, *rest)) / (2 * eps)
    return g


@pytest.mark.parametrize("backend", BACKENDS)
def test_outer_of_one_operand_twice_keeps_its_shape_a_tuple(backend):
    # once: TypeError in the reverse code (`2.0 * z_shape`: `s + s` simplified as a number)
    x = np.array([0.193, 1.16, -0.583])
    g = srcad.grad(solve_with_outer_of_one_operand, backend=backend)(x.copy())
    np.testing.assert_allclose(g, _central(solve_with_outer_of_one_operand, x), rtol=1e-6)
    y = np.array([0.4, -0.2, 0.9])
    g = srcad.grad(outer_of_a_sum_twice, backend=backend)(x, srcad.Const(y))
    np.testing.assert_allclose(g, _central(outer_of_a_sum_twice, x, y), rtol=1e-6)
