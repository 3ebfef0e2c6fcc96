"""Third derivatives of array programs (jacfwd(hessian(f)), jacrev(hessian(f)),
hessian(grad(f))): srcad differentiates its own second-order code again. Two of its
constructs once stopped that: the zero tangent forward mode gave an array read before set on
some path (`sin_dot = 0.0`, then an array: srcad/transform/forward/unset_tangents.py), and a
shape popped from a tape, whose length the rule of `unbroadcast` needs
(srcad/analysis/shape_lengths.py). Checked against JAX to 1e-9 and against central
differences of the Hessian."""

import types

import numpy as np
import pytest

import srcad

jax = pytest.importorskip("jax")
jnp = pytest.importorskip("jax.numpy")

from helpers.jax_reference import central, jax_in_float64  # noqa: E402, F401

from tests.operators.test_second_order_refusals import array_state_steps  # noqa: E402


def in_jax(f):
    """f with jax.numpy for np (the same code, run by JAX as the reference)."""
    return types.FunctionType(f.__code__, {**f.__globals__, "np": jnp})


def set_under_a_branch(x):
    y = x * 2.0
    if x[0] > 0:
        y = np.sin(x) * y
    return np.sum(y ** 2)


def set_under_a_branch_in_jax(x):  # the same function, jit-compiled by JAX
    y = x * 2.0
    return jnp.sum(jnp.where(x[0] > 0, jnp.sin(x) * y, y) ** 2)


def accumulated_in_a_loop(x):
    acc = np.zeros(3)
    for i in range(3):
        acc = acc + np.cos(x * i)
    return np.sum(acc * x)


def bound_after_an_early_return(x):
    if x[0] > 1.0:
        return np.sum(x ** 3)
    y = np.sin(x) * x
    return np.sum(y * y)


def bound_after_an_early_return_in_jax(x):
    y = jnp.sin(x) * x
    return jnp.where(x[0] > 1.0, jnp.sum(x ** 3), jnp.sum(y * y))


@pytest.mark.parametrize("x", [np.array([0.3, -0.5, 1.1]), pytest.param(
    np.array([1.3, -0.5, 1.1]), marks=pytest.mark.slow)], ids=["falls through", "returns early"])
def test_the_third_derivative_of_an_array_bound_after_an_early_return_is_jaxs(x):
    # once refused: forward mode gave y's tangent a zero float on the path that returns
    ours = srcad.jacfwd(srcad.hessian(bound_after_an_early_return))(x)
    theirs = jax.jit(jax.jacfwd(jax.hessian(bound_after_an_early_return_in_jax)))(x)
    np.testing.assert_allclose(ours, np.asarray(theirs), rtol=1e-9, atol=1e-9)


POINTS = [np.array([0.3, -0.5, 1.1]), np.array([-0.3, -0.5, 1.1])]  # both arms of the if


@pytest.mark.parametrize("x", [POINTS[0], pytest.param(POINTS[1], marks=pytest.mark.slow)],
                         ids=["taken", "not taken"])
def test_the_third_derivative_of_an_array_set_under_a_branch_is_jaxs(x):
    ours = srcad.jacfwd(srcad.hessian(set_under_a_branch))(x)
    theirs = jax.jit(jax.jacfwd(jax.hessian(set_under_a_branch_in_jax)))(jnp.asarray(x))
    np.testing.assert_allclose(ours, np.asarray(theirs), rtol=1e-9, atol=1e-9)
    differences = central(srcad.hessian(set_under_a_branch), x)
    np.testing.assert_allclose(ours, differences, rtol=1e-6, atol=1e-6)


@pytest.mark.parametrize("compose", ["jacfwd(hessian)"] + [
    pytest.param(c, marks=pytest.mark.slow) for c in ("jacrev(hessian)", "hessian(grad)")])
def test_the_third_derivative_of_an_array_accumulated_in_a_loop_is_jaxs(compose):
    x = np.array([0.3, -0.5, 1.1])
    outer, inner = compose.replace(")", "").split("(")
    ours = getattr(srcad, outer)(getattr(srcad, inner)(accumulated_in_a_loop))(x)
    theirs = jax.jit(getattr(jax, outer)(getattr(jax, inner)(in_jax(accumulated_in_a_loop))))(
        jnp.asarray(x))
    np.testing.assert_allclose(ours, np.asarray(theirs), rtol=1e-9, atol=1e-9)


def whole_array_steps_in_jax(p):
    z = jnp.array([1.0, 0.5])
    for _ in range(2):
        z = z + 0.1 * jnp.stack([p[0] * z[0] * z[1], p[1] * z[1]])
    return jnp.sum(z * z)


@pytest.mark.slow
def test_the_second_and_third_derivatives_of_whole_array_steps_are_jaxs():
    p = np.array([0.7, 1.3])
    np.testing.assert_allclose(srcad.jacfwd(srcad.grad(array_state_steps))(p),
                               np.asarray(jax.hessian(whole_array_steps_in_jax)(p)),
                               rtol=1e-9, atol=1e-12)
    np.testing.assert_allclose(srcad.jacfwd(srcad.hessian(array_state_steps))(p),
                               np.asarray(jax.jacfwd(jax.hessian(whole_array_steps_in_jax))(p)),
                               rtol=1e-9, atol=1e-12)
