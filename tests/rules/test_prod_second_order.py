"""Second order of np.prod where the product has zeros: the weights of its rule (the product
of the other elements) are exact there, and so is their own derivative, which second order
takes by differentiating them (the Hessian of np.prod([x, x + 2]) at 0 was 1, not 2; the
entries between a zero and the other elements were missing or on one side only). Checked
against JAX, which differentiates np.prod exactly at zeros."""

import math

import numpy as np
import pytest
from helpers.jax_reference import jax, jax_in_float64  # noqa: F401

import srcad

jnp = jax.numpy


def product(x):
    return np.prod(x)


def rows_and_columns(x):
    return np.sum(np.prod(x, axis=1) ** 2) + np.sum(np.prod(x, axis=0, keepdims=True))


def jax_rows_and_columns(x):
    return jnp.sum(jnp.prod(x, axis=1) ** 2) + jnp.sum(jnp.prod(x, axis=0, keepdims=True))


def literal_product(x):
    return np.prod((x, x + 2))


def math_product(x):
    return math.prod((x, x + 2))


@pytest.mark.parametrize("x", [[0.0, 2.0, 1.5, 3.0], [1.0, 0.0, 0.0, 2.0],
                               [0.0, 0.0, 0.0, 2.0], [1.0, 3.0, 2.0, 0.5]])  # one length:
# one compilation per mode
@pytest.mark.parametrize("mode", [None, "reverse-over-forward"])
def test_hessian_of_a_product_with_zeros_is_jaxs(x, mode):
    x = np.array(x)
    want = np.asarray(jax.hessian(jnp.prod)(jnp.array(x)))
    np.testing.assert_allclose(srcad.hessian(product, x, mode=mode), want, atol=1e-12)


@pytest.mark.slow  # among the slowest of make test: make test-all
def test_hessian_along_axes_with_zeros_is_jaxs():
    A = np.array([[0.0, 2.0, 1.5], [0.0, 0.0, 3.0], [1.0, 2.0, 0.5]])
    want = np.asarray(jax.hessian(jax_rows_and_columns)(jnp.array(A))).reshape(9, 9)
    np.testing.assert_allclose(srcad.hessian(rows_and_columns, A).reshape(9, 9), want,
                               atol=1e-12)


@pytest.mark.parametrize("f", [literal_product, math_product])
def test_second_derivative_of_a_literal_product_at_its_zero(f):
    # x * (x + 2) = x ** 2 + 2 x: the second derivative is 2 everywhere, 0 included
    assert srcad.second_derivative(f, 0.0) == 2.0
    assert srcad.hessian(f, 0.0) == 2.0


@pytest.mark.slow  # compiles numba code: make test-all
def test_hessian_of_a_product_with_zeros_on_numba():
    x = np.array([1.0, 0.0, 0.0, 2.0])
    want = np.asarray(jax.hessian(jnp.prod)(jnp.array(x)))
    np.testing.assert_allclose(srcad.hessian(product, x, backend="numba"), want, atol=1e-12)
