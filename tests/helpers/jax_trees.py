"""Comparing srcad's results with JAX's, for the tests pinning JAX's habits
(tests/api/test_jax_habits.py, tests/api/test_vmap.py)."""

import numpy as np


def same_tree(jax, ours, theirs, tol=1e-9):
    """The same containers (dicts, lists, tuples), leaf shapes and values."""
    assert jax.tree_util.tree_structure(ours) == jax.tree_util.tree_structure(theirs)
    for a, b in zip(jax.tree_util.tree_leaves(ours), jax.tree_util.tree_leaves(theirs)):
        assert np.shape(a) == np.shape(b)
        np.testing.assert_allclose(np.asarray(a, dtype=float), np.asarray(b, dtype=float),
                                   rtol=tol, atol=tol)
