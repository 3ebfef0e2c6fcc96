"""np.cross with its vectors along other axes (axisa=, axisb=, axisc=, axis=, by name or by
position) and operands that broadcast, in every mode against central differences and
against JAX's jnp.cross; numba refuses the keywords by name."""

import numpy as np
import pytest

import srcad
from srcad.errors import SrcadError
from srcad.testing import check_grads

RNG = np.random.default_rng(2)
X, Y = RNG.normal(size=(3, 3)), RNG.normal(size=(3, 3))
STACK, VECTOR = RNG.normal(size=(4, 3, 2)), RNG.normal(size=(3,))
WEIGHTS = RNG.normal(size=(3, 3))


def crossed_first(x, y):
    return np.sum(np.cross(x, y, axisa=0, axisb=1, axisc=1) * WEIGHTS)


def crossed_second(x, y):
    return np.sum(np.cross(x, y, axisa=-1, axisb=0, axisc=-1) * WEIGHTS)


def crossed_third(x, y):
    return np.sum(np.cross(x, y, axisa=0, axisb=0, axisc=0) * WEIGHTS)


AXES = {crossed_first: (0, 1, 1), crossed_second: (-1, 0, -1), crossed_third: (0, 0, 0)}


def along_axis(x, y):
    return np.sum(np.sin(np.cross(x, y, axis=0)))


def stack_and_vector(x, y):
    return np.sum(np.cross(x, y, 1, -1, 0) ** 2)


@pytest.mark.parametrize("f", list(AXES), ids=lambda f: f.__name__)
def test_cross_along_axes_agrees_with_jax(f):
    jax = pytest.importorskip("jax")
    jax.config.update("jax_enable_x64", True)
    jnp = jax.numpy
    a, b, c = AXES[f]
    expected = jax.grad(lambda x, y: jnp.sum(jnp.cross(x, y, axisa=a, axisb=b, axisc=c)
                                             * WEIGHTS), argnums=(0, 1))(X, Y)
    got = srcad.grad(f, argnums=(0, 1))(X, Y)
    for ours, theirs in zip(got, expected):
        np.testing.assert_allclose(ours, theirs, rtol=1e-12, atol=1e-13)


@pytest.mark.parametrize("f, x, y", [(along_axis, X, Y), (stack_and_vector, STACK, VECTOR)])
def test_cross_along_axes_agrees_with_finite_differences(f, x, y):
    check_grads(f, srcad.Duplicated(x.copy(), np.zeros_like(x)),
                srcad.Duplicated(y.copy(), np.zeros_like(y)))


def test_numba_refuses_the_axes_by_name():
    with pytest.raises(SrcadError, match="np.cross` takes no axisa="):
        srcad.grad(along_axis, backend="numba")(X, Y)
