"""Enzyme-style nested differentiation (srcad/transform/normalize/nested_autodiff.py):
`srcad.autodiff(srcad.Reverse, g, srcad.Duplicated(x, dx), ...)` and its Active and Forward
forms inside a function srcad differentiates, reverse over reverse and forward over reverse,
on GradBench's particle problem written the Enzyme way. Checked against JAX (nested
jax.grad) and central differences of the plain function.
"""

import math

import numpy as np
import pytest

import srcad

jax = pytest.importorskip("jax")
jnp = pytest.importorskip("jax.numpy")


@pytest.fixture(autouse=True)
def _x64():
    jax.config.update("jax_enable_x64", True)


def potential(x, w):
    return 1.0 / math.sqrt((x[0] - 10.0) ** 2 + (x[1] - (10.0 - w)) ** 2) \
        + 1.0 / math.sqrt((x[0] - 10.0) ** 2 + x[1] ** 2)


def potential_jax(x, w):
    return 1.0 / jnp.sqrt((x[0] - 10.0) ** 2 + (x[1] - (10.0 - w)) ** 2) \
        + 1.0 / jnp.sqrt((x[0] - 10.0) ** 2 + x[1] ** 2)


def euler_enzyme(w):
    """The particle's Euler loop, its force written the Enzyme way: the gradient of the
    potential accumulated into a shadow."""
    x = np.array([0.0, 8.0])
    xdot = np.array([0.75, 0.0])
    for _ in range(25):
        dx = np.zeros(2)
        srcad.autodiff(srcad.Reverse, potential, srcad.Duplicated(x, dx), srcad.Const(w))
        x = x + 0.1 * xdot
        xdot = xdot - 0.1 * dx
    return x[0] * x[0] + x[1]


def euler_forward_force(w):
    """The same, each force component a forward-mode directional derivative."""
    x = np.array([0.0, 8.0])
    xdot = np.array([0.75, 0.0])
    for _ in range(25):
        fx = srcad.autodiff(srcad.Forward, potential, srcad.Duplicated(x, np.array([1.0, 0.0])),
                            w)
        fy = srcad.autodiff(srcad.Forward, potential, srcad.Duplicated(x, np.array([0.0, 1.0])),
                            w)
        x = x + 0.1 * xdot
        xdot = xdot - 0.1 * np.array([fx, fy])
    return x[0] * x[0] + x[1]


def euler_jax(w):
    def step(_, state):
        x, xdot = state
        dx = jax.grad(potential_jax)(x, w)
        return x + 0.1 * xdot, xdot - 0.1 * dx

    x, _ = jax.lax.fori_loop(0, 25, step, (jnp.array([0.0, 8.0]), jnp.array([0.75, 0.0])))
    return x[0] * x[0] + x[1]


def euler_by_hand(w):
    x, xdot = np.array([0.0, 8.0]), np.array([0.75, 0.0])
    for _ in range(25):
        dx = np.zeros(2)
        for cx, cy in ((10.0, 10.0 - w), (10.0, 0.0)):
            d = np.array([x[0] - cx, x[1] - cy])
            dx -= d / math.sqrt(d @ d) ** 3
        x = x + 0.1 * xdot
        xdot = xdot - 0.1 * dx
    return x[0] * x[0] + x[1]


W = 0.5


def test_the_enzyme_way_particle_is_differentiated_in_both_outer_modes_as_jax():
    assert euler_enzyme(W) == pytest.approx(euler_by_hand(W), rel=1e-13)
    expected = float(jax.grad(euler_jax)(W))
    central = (euler_by_hand(W + 1e-6) - euler_by_hand(W - 1e-6)) / 2e-6
    assert expected == pytest.approx(central, rel=1e-5)
    for function in (euler_enzyme, euler_forward_force):
        assert srcad.grad(function)(W) == pytest.approx(expected, rel=1e-9, abs=1e-12)
        assert srcad.jacfwd(function)(W) == pytest.approx(expected, rel=1e-9, abs=1e-12)


@pytest.mark.slow
def test_the_enzyme_way_particle_on_numba():
    expected = float(jax.grad(euler_jax)(W))
    assert srcad.grad(euler_enzyme, backend="numba")(W) == pytest.approx(expected, rel=1e-9)
    assert srcad.jacfwd(euler_enzyme, backend="numba")(W) == pytest.approx(expected, rel=1e-9)
    assert srcad.grad(euler_forward_force, backend="numba")(W) == pytest.approx(expected,
                                                                              rel=1e-9)


def wave(t, w):
    return math.sin(t * w) * t


def test_the_gradient_of_an_active_argument_taken_by_index():
    def outer(w):
        return srcad.autodiff(srcad.Reverse, wave, srcad.Active(0.3 * w), w)[0] * w

    def outer_jax(w):
        return jax.grad(lambda t, w: jnp.sin(t * w) * t)(0.3 * w, w) * w

    assert srcad.grad(outer)(0.7) == pytest.approx(float(jax.grad(outer_jax)(0.7)), rel=1e-12)


def refused_with_primal(w):
    return srcad.autodiff(srcad.ReverseWithPrimal, wave, srcad.Active(w), w)[0]


def refused_as_value(w):
    x = np.array([w, 1.0])
    dx = np.zeros(2)
    g = srcad.autodiff(srcad.Reverse, potential, srcad.Duplicated(x, dx), w)
    return g[0] + dx[0]


def refused_seed(w):
    dx = np.zeros(2)
    srcad.autodiff(srcad.Reverse, potential, srcad.Duplicated(np.ones(2), dx), w, seed=2.0)
    return dx[0]


@pytest.mark.parametrize("function, message", [
    (refused_with_primal, r"srcad.ReverseWithPrimal, \.\.\.\) inside a differentiated"),
    (refused_as_value, "used as a value"),
    (refused_seed, r"seed=\.\.\."),
])
def test_what_is_not_supported_is_refused_at_the_users_line(function, message):
    with pytest.raises(srcad.UnsupportedCallError, match=message) as caught:
        srcad.grad(function)(0.5)
    assert caught.value.filename == __file__
    assert "srcad_nested" not in str(caught.value)


def squares(x):
    return x * x


def test_the_nested_gradient_of_an_array_valued_function_is_refused():
    # it was the gradient of the sum of the outputs: a plausible wrong answer
    def sums_the_gradient(x):
        return srcad.grad(squares)(x)[1]

    def directional(x):
        return srcad.autodiff(srcad.Forward, squares, srcad.Duplicated(x, np.ones(2)))

    for function in (sums_the_gradient, directional):
        with pytest.raises(srcad.ArgumentError, match="needs a float output"):
            srcad.grad(function)(np.array([1.0, 2.0]))


def bowl(x):
    return np.sum(np.sin(x) * x ** 2)


def bowl_jax(x):
    return jnp.sum(jnp.sin(x) * x ** 2)


def test_grad_of_a_lambda_taking_a_jvp_is_a_hessian_vector_product_as_in_jax():
    x, v = np.array([0.3, 0.8, -1.2]), np.array([1.0, -0.5, 2.0])
    ours = srcad.grad(lambda y: srcad.jvp(bowl, (y,), (v,))[1])(x)
    np.testing.assert_allclose(ours, jax.grad(lambda y: jax.jvp(bowl_jax, (y,), (v,))[1])(x),
                               rtol=1e-12, atol=1e-12)
    np.testing.assert_allclose(ours, srcad.hessian(bowl)(x) @ v, rtol=1e-12, atol=1e-12)

    def value_times_tangent(y):
        value, tangent = srcad.jvp(bowl, (y,), (v,))
        return value * tangent

    def value_times_tangent_jax(y):
        value, tangent = jax.jvp(bowl_jax, (y,), (v,))
        return value * tangent

    expected = jax.grad(value_times_tangent_jax)(x)
    for transform in (srcad.grad, srcad.jacfwd):
        np.testing.assert_allclose(transform(value_times_tangent)(x), expected, rtol=1e-12,
                                   atol=1e-12)
