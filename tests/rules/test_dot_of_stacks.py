"""np.dot of an operand of rank above 2 contracts the last axis of its first operand with
the second-to-last of its second (NumPy's dot), not matmul's broadcasting of stacks: for a
matrix and a stack of two matrices both give a (2, 2, 4) array, with the axes in another
order, so the old rule gave a derivative of the right shape and wrong values. Checked in
every mode against central differences and against JAX's jnp.dot."""

import numpy as np
import pytest

import srcad
from srcad.testing import check_grads

RNG = np.random.default_rng(5)
PAIRS = [((2, 3), (2, 3, 4)), ((3,), (2, 3, 4)), ((2, 4, 3), (3, 5)), ((2, 3), (5, 2, 3, 4))]
W = {pair: RNG.normal(size=np.dot(np.ones(pair[0]), np.ones(pair[1])).shape) for pair in PAIRS}


def weighted_dot(x, y, w):
    return np.sum(np.dot(x, y) * w)


def weighted_method(x, y, w):
    return np.sum(x.dot(y) * w)


@pytest.mark.parametrize("pair", PAIRS, ids=str)
def test_dot_of_stacks_agrees_with_finite_differences(pair):
    x, y = RNG.normal(size=pair[0]), RNG.normal(size=pair[1])
    check_grads(weighted_dot, srcad.Duplicated(x, np.zeros_like(x)),
                srcad.Duplicated(y, np.zeros_like(y)), W[pair])


@pytest.mark.parametrize("f", [weighted_dot, weighted_method])
def test_dot_of_a_matrix_and_a_stack_agrees_with_jax(f):
    jax = pytest.importorskip("jax")
    jax.config.update("jax_enable_x64", True)
    pair = PAIRS[0]
    x, y, w = RNG.normal(size=pair[0]), RNG.normal(size=pair[1]), W[pair]
    expected = jax.grad(lambda a, b: jax.numpy.sum(jax.numpy.dot(a, b) * w),
                        argnums=(0, 1))(x, y)
    for ours, theirs in zip(srcad.grad(f, argnums=(0, 1))(x, y, w), expected):
        np.testing.assert_allclose(ours, theirs, rtol=1e-12, atol=1e-12)
