"""JAX as the reference of the JAX-style tests (tests/api/test_jax_habits.py,
tests/api/test_composed_transforms.py): float64 in JAX, the same containers, shapes and
values, and central differences of a float or array function of an array."""

import numpy as np
import pytest

from helpers.differences import central  # noqa: F401  (imported from here by the tests)

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
