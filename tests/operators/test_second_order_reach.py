"""Second order reaches what first order does on the python backend: a function whose
gradient srcad gives has a Hessian, checked against jax.hessian (JAX's own code of the same
program) and against central differences of srcad's gradient."""

import jax
import jax.numpy as jnp
import numpy as np
import pytest

import srcad

jax.config.update("jax_enable_x64", True)


def gradient_differences(f, x, eps=1e-6):
    """The Hessian by central differences of srcad's reverse-mode gradient."""
    g = srcad.grad(f)
    return np.array([(g(x + eps * e) - g(x - eps * e)) / (2 * eps) for e in np.eye(x.size)]).T


def check_hessian(f, jax_f, x, rtol=1e-9):
    H = srcad.hessian(f)(x)
    np.testing.assert_allclose(H, jax.jit(jax.hessian(jax_f))(x), rtol=rtol, atol=1e-10)
    np.testing.assert_allclose(H, gradient_differences(f, x), rtol=1e-5, atol=1e-6)
    v = np.linspace(0.3, -0.4, x.size)
    np.testing.assert_allclose(srcad.hvp(f, x, tangent=v), H @ v, rtol=1e-9, atol=1e-10)


# -- an RK4 integration of Lotka-Volterra in a `while t < T` loop, the state an array ------------
def lotka_volterra(z, p):
    dz = np.array([p[0] * z[0] - p[1] * z[0] * z[1], p[2] * z[0] * z[1] - p[3] * z[1]])
    return dz


def rk4_while(p):
    z = np.array([1.0, 0.5])
    t = 0.0
    h = 0.1
    while t < 1.0:
        k1 = lotka_volterra(z, p)
        k2 = lotka_volterra(z + 0.5 * h * k1, p)
        k3 = lotka_volterra(z + 0.5 * h * k2, p)
        k4 = lotka_volterra(z + h * k3, p)
        z = z + h / 6 * (k1 + 2 * k2 + 2 * k3 + k4)
        t += h
    return np.sum(z ** 2)


def trips(step, end):
    """How many times `while t < end: t += step` runs, in the same float steps."""
    t, count = 0.0, 0
    while t < end:
        t, count = t + step, count + 1
    return count


def jax_rk4(p):
    def rhs(z):
        return jnp.array([p[0] * z[0] - p[1] * z[0] * z[1], p[2] * z[0] * z[1] - p[3] * z[1]])

    def step(_, z):
        h = 0.1
        k1 = rhs(z)
        k2 = rhs(z + 0.5 * h * k1)
        k3 = rhs(z + 0.5 * h * k2)
        k4 = rhs(z + h * k3)
        return z + h / 6 * (k1 + 2 * k2 + 2 * k3 + k4)
    z = jax.lax.fori_loop(0, trips(0.1, 1.0), step, jnp.array([1.0, 0.5]))
    return jnp.sum(z ** 2)


@pytest.mark.slow
def test_hessian_of_an_rk4_while_loop_carrying_an_array_state():
    check_hessian(rk4_while, jax_rk4, np.array([1.1, 0.4, 0.3, 0.9]))


def array_state_rebuilt_in_a_loop(p):
    z = np.array([1.0, 0.5])
    for _ in range(2):
        dz = np.array([p[0] * z[0] * z[1], p[1] * z[1]])
        z = z + 0.1 * dz
    return np.sum(z * z)


def test_forward_code_binds_an_array_state_tangent_once_so_reverse_over_forward_takes_it():
    # the forward code once zeroed `z_dot` as a float before binding it to an array (a
    # tangent "read before set" it was not), which srcad's reverse mode then refused
    p = np.array([0.7, 1.3])
    H = srcad.hessian(array_state_rebuilt_in_a_loop, p, mode="reverse-over-forward")
    np.testing.assert_allclose(H, gradient_differences(array_state_rebuilt_in_a_loop, p),
                               rtol=1e-6, atol=1e-6)
