"""Wrong answers and crashes found by a third hunt, each fixed at its root."""

import numpy as np
import pytest
from helpers.differences import central

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


def weighted(cs, t, ws=(0.5,)):
    return cs[0] * t + cs[1] * t * t * ws[0]


def test_a_partials_bound_number_tuples_are_arrays():
    # once: refused as an opaque value (a default was; a partial's bound tuple too)
    import functools
    by_keyword = functools.partial(weighted, cs=(1.0, 2.0))
    by_position = functools.partial(weighted, (1.0, 2.0))
    t = 0.7  # d/dt (t + t^2) = 1 + 2t
    assert srcad.grad(lambda t: by_keyword(t=t))(t) == pytest.approx(1 + 2 * t)
    assert srcad.grad(lambda t: by_position(t))(t) == pytest.approx(1 + 2 * t)


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


def test_opaque_default_read_after_a_helper_call_is_refused_not_zero():
    # once: derivative 0.0 (the copies through the helper hid the opaque read)
    with pytest.raises(SrcadError, match="opaque value.*`h`"):
        srcad.grad(lambda a: shift_then_scale(a))(1.0)


def test_a_default_tuple_holding_a_string_is_a_constant_after_a_helper_call():
    # once derivative 0.0, then refused as opaque; a string is a constant leaf now (as a
    # static argument in JAX): d/da (a + 0.425) = 1
    assert srcad.grad(lambda a: shift_then_mixed(a))(1.0) == 1.0


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


@pytest.mark.slow  # among the slowest of make test (numba or long runs): make test-all
@pytest.mark.parametrize("backend", BACKENDS)
def test_outer_of_one_operand_twice_keeps_its_shape_a_tuple(backend):
    # once: TypeError in the reverse code (`2.0 * z_shape`: `s + s` simplified as a number)
    x = np.array([0.193, 1.16, -0.583])
    g = srcad.grad(solve_with_outer_of_one_operand, backend=backend)(x.copy())
    np.testing.assert_allclose(g, central(solve_with_outer_of_one_operand, x), rtol=1e-6)
    y = np.array([0.4, -0.2, 0.9])
    g = srcad.grad(outer_of_a_sum_twice, backend=backend)(x, srcad.Const(y))
    np.testing.assert_allclose(g, central(outer_of_a_sum_twice, x, y), rtol=1e-6)


# --- a rule's result written in place afterwards (its adjoint reads the result) -----------

def exp_then_slice_scaled(x):
    a = np.exp(x)
    a[1:] *= 2.0
    return np.sum(a)


def tanh_then_slice_added(x):
    a = np.tanh(x)
    a[:2] += 1.0
    return np.sum(a ** 2) + np.sum(x * a)


def sqrt_then_scaled(x):
    a = np.sqrt(x * x + 1.0)
    a *= 2.0
    return np.sum(a ** 2)


def shifted_then_slice_scaled(x):
    a = x + 0.5
    a[1:] *= 2.0
    return np.sum(a ** 2)


def _jax_reference(name, x):
    import jax
    import jax.numpy as jnp
    jax.config.update("jax_enable_x64", True)

    bodies = {
        "exp_then_slice_scaled": lambda x: jnp.sum(jnp.exp(x).at[1:].multiply(2.0)),
        "tanh_then_slice_added": lambda x: jnp.sum(jnp.tanh(x).at[:2].add(1.0) ** 2)
        + jnp.sum(x * jnp.tanh(x).at[:2].add(1.0)),
        "sqrt_then_scaled": lambda x: jnp.sum((2.0 * jnp.sqrt(x * x + 1.0)) ** 2),
        "shifted_then_slice_scaled": lambda x: jnp.sum((x + 0.5).at[1:].multiply(2.0) ** 2),
    }
    return np.asarray(jax.grad(bodies[name])(x))


WRITTEN_RESULTS = [exp_then_slice_scaled, tanh_then_slice_added, sqrt_then_scaled,
                   shifted_then_slice_scaled]


@pytest.mark.slow  # among the slowest of make test (numba or long runs): make test-all
@pytest.mark.parametrize("backend", BACKENDS)
@pytest.mark.parametrize("f", WRITTEN_RESULTS, ids=lambda f: f.__name__)
def test_a_result_written_in_place_after_its_rule(f, backend):
    # once (python): exp's adjoint read its result after the write (x_bar [3.6, 3.9, 144]
    # for [3.6, 2.0, 72]); forward mode gave 0 (the written tangent was reset)
    x = np.array([0.3, -0.7, 1.1])
    want = _jax_reference(f.__name__, x)
    np.testing.assert_allclose(srcad.grad(f, backend=backend)(x.copy()), want, rtol=1e-10)
    np.testing.assert_allclose(srcad.jacfwd(f, backend=backend)(x.copy()), want, rtol=1e-10)
    if backend == "python":  # vector mode: all lanes in one call
        g = srcad.gradient(f, x.copy(), mode="forward", chunk=3, backend=backend)
        np.testing.assert_allclose(g, want, rtol=1e-10)


def shifted_then_scaled_by_itself(x):
    a = x + 0.5
    a[1:] *= x[:-1]
    return np.sum(a ** 2)


@pytest.mark.slow  # among the slowest of make test (numba or long runs): make test-all
@pytest.mark.parametrize("backend", BACKENDS)
def test_a_tangent_copied_from_an_argument_is_not_written_through(backend):
    # once: `a = x + 0.5` made a's tangent the argument's tangent itself, and `a[1:] *= ...`
    # then wrote the caller's tangent array
    f = shifted_then_scaled_by_itself
    x, v = np.array([0.3, -0.7, 1.1]), np.array([1.0, 2.0, -1.0])
    seed = v.copy()
    tangent = srcad.autodiff(srcad.Forward, f, srcad.Duplicated(x.copy(), seed),
                             backend=backend)
    want = (f(x + 1e-6 * v) - f(x - 1e-6 * v)) / 2e-6
    assert np.ravel(tangent)[-1] == pytest.approx(want, rel=1e-7)
    np.testing.assert_array_equal(seed, v)
    np.testing.assert_allclose(srcad.jacfwd(f, backend=backend)(x.copy()),
                               central(f, x), rtol=1e-7)
