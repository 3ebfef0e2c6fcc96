"""`srcad.vmap`'s lifting into whole-array code (srcad/transform/batching/): index arrays,
joins, scans, linear algebra on stacks, `if` statements differing between examples, each
checked against `jax.vmap` and a loop over the examples, and the loop for a function whose
source srcad cannot read."""

import math

import numpy as np
import pytest
from helpers import jax_reference
from helpers.jax_reference import jax_in_float64  # noqa: F401  (JAX in float64)

import srcad

jax = pytest.importorskip("jax")
jnp = pytest.importorskip("jax.numpy")

rng = np.random.default_rng(11)
W = rng.normal(size=3)
X = rng.normal(size=(5, 3))


def same_tree(ours, theirs, tol=1e-10):
    jax_reference.same_tree(ours, theirs, tol)


def test_index_arrays_joins_and_scans_are_lifted_and_match_jax():
    idx = np.array([2, 0, 2])

    def gather(x, w):
        picked = x[idx] * w[idx]
        joined = np.concatenate([picked, np.cumsum(x), w[:1]])
        return np.stack([joined, joined * 2.0], axis=1), np.hstack([x[:, None][0], w])

    def gather_jax(x, w):
        picked = x[idx] * w[idx]
        joined = jnp.concatenate([picked, jnp.cumsum(x), w[:1]])
        return jnp.stack([joined, joined * 2.0], axis=1), jnp.hstack([x[:, None][0], w])
    batched = srcad.vmap(gather, in_axes=(0, None))
    same_tree(batched(X, W), jax.vmap(gather_jax, in_axes=(0, None))(X, W))
    assert batched.__srcad_vmap_form__(X, W)[0] == "lifted"


@pytest.mark.parametrize("in_axes", [(0, None, 0),
                                     pytest.param((None, None, 0), marks=pytest.mark.slow),
                                     pytest.param((0, None, None), marks=pytest.mark.slow)])
def test_solve_inv_reshape_and_dot_are_lifted_and_match_jax(in_axes):
    def f(A, b, x):
        M = 2.0 * np.eye(3) + 0.1 * np.outer(x, x)
        y = np.linalg.solve(M, b) + np.linalg.solve(A + 3.0 * np.eye(3), x)
        z = np.reshape(np.linalg.inv(M), (9,)) + np.reshape(A, -1)
        return y.dot(x) + np.sum(np.expand_dims(z, 0) * 2.0, axis=1), x.dot(A)

    def f_jax(A, b, x):
        M = 2.0 * jnp.eye(3) + 0.1 * jnp.outer(x, x)
        y = jnp.linalg.solve(M, b) + jnp.linalg.solve(A + 3.0 * jnp.eye(3), x)
        z = jnp.reshape(jnp.linalg.inv(M), (9,)) + jnp.reshape(A, -1)
        return y.dot(x) + jnp.sum(jnp.expand_dims(z, 0) * 2.0, axis=1), jnp.dot(x, A)
    A = rng.normal(size=(5, 3, 3)) if in_axes[0] == 0 else rng.normal(size=(3, 3))
    x = X if in_axes[2] == 0 else W
    batched = srcad.vmap(f, in_axes=in_axes)
    same_tree(batched(A, W, x), jax.vmap(f_jax, in_axes=in_axes)(A, W, x))
    assert batched.__srcad_vmap_form__(A, W, x)[0] == "lifted"


def test_a_function_without_source_runs_in_the_loop():
    same_tree(srcad.vmap(np.sin)(X), jax.vmap(jnp.sin)(X))
    same_tree(srcad.vmap(lambda x, y: x * y + 1.0, in_axes=(0, None))(X, W),
              jax.vmap(lambda x, y: x * y + 1.0, in_axes=(0, None))(X, W))


def test_an_if_differing_between_examples_is_lifted_as_a_choice_per_example():
    def branches(x, c):
        s = 0.0
        for i in range(x.shape[0]):
            if x[i] > c:
                s += x[i] * 2.0
                t = math.sqrt(x[i] + 5.0)
            elif x[i] < -c:
                s -= 1.0
                t = 0.5
            else:
                t = x[i] ** 2
            s = s + t
        return s

    def branches_jax(x, c):
        t = jnp.where(x > c, jnp.sqrt(x + 5.0), jnp.where(x < -c, 0.5, x ** 2))
        return jnp.sum(jnp.where(x > c, x * 2.0, jnp.where(x < -c, -1.0, 0.0)) + t)
    batched = srcad.vmap(branches, in_axes=(0, None))
    ours = batched(X, 0.3)
    assert batched.__srcad_vmap_form__(X, 0.3)[0] == "lifted"  # still lifted after the run
    np.testing.assert_allclose(ours, [branches(x, 0.3) for x in X], rtol=1e-13)
    same_tree(ours, jax.vmap(branches_jax, in_axes=(0, None))(X, 0.3))
    assert "np.where(chosen" in batched.source(X, 0.3)
