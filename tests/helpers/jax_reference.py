"""JAX as the reference of the JAX-style tests (tests/api/test_jax_habits.py,
tests/api/test_composed_transforms.py): float64 in JAX, the same containers, shapes and
values, and central differences of a float or array function of an array."""

import numpy as np
import pytest

jax = pytest.importorskip("jax")


@pytest.fixture(autouse=True)
def jax_in_float64():
    """Import it into a test module: every test there runs JAX in float64."""
    jax.config.update("jax_enable_x64", True)


def same_tree(ours, theirs, tol=1e-9):
    """The same containers (dicts, lists, tuples), leaf shapes and values."""
    assert jax.tree_util.tree_structure(ours) == jax.tree_util.tree_structure(theirs)
    for a, b in zip(jax.tree_util.tree_leaves(ours), jax.tree_util.tree_leaves(theirs)):
        assert np.shape(a) == np.shape(b)
        np.testing.assert_allclose(np.asarray(a, dtype=float), np.asarray(b, dtype=float),
                                   rtol=tol, atol=tol)


def central(f, x, h=1e-6):
    """The central-difference derivative of f (float or array valued) along every element of
    x (a float or an array): shape out + x.shape."""
    x = np.asarray(x, dtype=float)
    columns = []
    for k in range(x.size):
        e = np.zeros(x.size)
        e[k] = h
        e = e.reshape(x.shape)
        columns.append((np.asarray(f(x + e)) - np.asarray(f(x - e))) / (2 * h))
    return np.moveaxis(np.array(columns), 0, -1).reshape(np.shape(f(x)) + x.shape)
