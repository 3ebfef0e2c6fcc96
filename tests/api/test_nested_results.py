"""Tuple results nested as JAX nests them (srcad/api/nested_results.py): a function returning
`y, (u, v)` on every return; jacfwd, jacrev, jvp, vjp and vmap give JAX's nesting and values
(1e-9), checked against JAX and central differences; a flat tuple's Jacobians too.
"""

import numpy as np
import pytest

import srcad

jax = pytest.importorskip("jax")
jnp = pytest.importorskip("jax.numpy")

from helpers.jax_reference import central, jax_in_float64, same_tree  # noqa: E402, F401


def nested(x, a):
    y = np.sin(x) * a
    u = np.sum(x ** 2) * a
    v = x[0] * x[1]
    if u > 100.0:
        return y, (u * 2.0, v)
    return y, (u, v)


def nested_jax(x, a):
    return jnp.sin(x) * a, (jnp.sum(x ** 2) * a, x[0] * x[1])


def flat(x):
    return np.sin(x), np.sum(x * x)


def flat_jax(x):
    return jnp.sin(x), jnp.sum(x * x)


X, A = np.array([0.3, 0.7]), 1.5


@pytest.mark.parametrize("transform", ["jacfwd", "jacrev"])
@pytest.mark.parametrize("argnums", [0, (0, 1)], ids=["x", "x-and-a"])
def test_jacobians_of_a_nested_tuple_result_are_jaxs(transform, argnums):
    ours = getattr(srcad, transform)(nested, argnums=argnums)(X, A)
    same_tree(ours, getattr(jax, transform)(nested_jax, argnums=argnums)(X, A))
    if argnums == 0:
        np.testing.assert_allclose(ours[1][0], central(lambda x: nested(x, A)[1][0], X),
                                   rtol=1e-6)


def test_jvp_and_vjp_of_a_nested_tuple_result_are_jaxs():
    same_tree(srcad.jvp(nested, (X, A), (X, 1.0)), jax.jvp(nested_jax, (X, A), (X, 1.0)))
    value, pullback = srcad.vjp(nested, X, A)
    their_value, their_pullback = jax.vjp(nested_jax, X, A)
    same_tree(value, their_value)
    cotangent = (np.array([1.0, -2.0]), (0.5, 2.0))
    same_tree(pullback(cotangent), their_pullback(cotangent))
    same_tree(pullback([cotangent[0], [0.5, 2.0]]), their_pullback(cotangent))  # lists too
    with pytest.raises(srcad.ArgumentError, match="nested as the function's result"):
        pullback((cotangent[0], 0.5, 2.0))


def test_vmap_of_a_nested_tuple_result_is_jaxs():
    batch = np.stack([X, 2 * X, -X])
    same_tree(srcad.vmap(nested, in_axes=(0, None))(batch, A),
              jax.vmap(nested_jax, in_axes=(0, None))(batch, A))


@pytest.mark.parametrize("transform", ["jacfwd", "jacrev"])
def test_jacobians_of_a_flat_tuple_result_are_jaxs(transform):
    same_tree(getattr(srcad, transform)(flat)(X), getattr(jax, transform)(flat_jax)(X))


@pytest.mark.slow
def test_numba_gives_the_nesting_too():
    for transform in ("jacfwd", "jacrev"):
        same_tree(getattr(srcad, transform)(nested, backend="numba")(X, A),
                  getattr(jax, transform)(nested_jax)(X, A))
    same_tree(srcad.jvp(nested, (X, A), (X, 1.0), backend="numba"),
              jax.jvp(nested_jax, (X, A), (X, 1.0)))


def writes_input(x):
    x *= 0.74
    v = np.sum(x ** 3)
    return v, (2.0 * v, x[0])


def test_a_tuple_result_of_a_function_writing_its_input_is_taken_at_the_given_input():
    """The jacobian runs the function once per lane group: each run starts from the input
    given, not from what the previous run wrote into it."""
    x = np.array([-0.04, 0.988, -0.971, -0.552])
    gradient = 3.0 * 0.74 ** 3 * x ** 2
    first = np.array([0.74, 0.0, 0.0, 0.0])
    for transform in ("jacfwd", "jacrev"):
        ours = getattr(srcad, transform)(writes_input)(x.copy())
        for got, want in zip((ours[0], *ours[1]), (gradient, 2.0 * gradient, first)):
            np.testing.assert_allclose(got, want, rtol=1e-12, atol=1e-15)
    for mode in ("forward", "reverse"):  # the operator itself
        ours = srcad.jacobian(flat_writer, x.copy(), mode=mode)
        np.testing.assert_allclose(ours[0], gradient, rtol=1e-12)
        np.testing.assert_allclose(ours[1], 2.0 * gradient, rtol=1e-12)


def flat_writer(x):
    x *= 0.74
    v = np.sum(x ** 3)
    return v, 2.0 * v
