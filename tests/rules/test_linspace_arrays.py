"""np.linspace with array ends (start and stop arrays that broadcast, the steps along a new
first axis), in every mode against central differences and against JAX's jnp.linspace."""

import numpy as np
import pytest

import srcad
from srcad.errors import SrcadError
from srcad.testing import check_grads

X = np.array([0.31, 0.77, 0.52, 0.64])
WEIGHTS = np.arange(6.0).reshape(3, 2)


def between_halves(x):
    return np.sum(np.sin(np.linspace(x[:2], x[2:], 3)) * WEIGHTS)


def from_a_number_to_a_vector(x):
    return np.sum(np.linspace(x[0], x[1:], 4, endpoint=False) ** 2)


def from_a_vector_to_a_constant(x):
    return np.sum(np.linspace(x, 2.0, num=5) ** 3)


def along_the_last_axis(x):
    return np.sum(np.linspace(x[:2], x[2:], 3, axis=-1))


CASES = [between_halves, from_a_number_to_a_vector, from_a_vector_to_a_constant]


@pytest.mark.parametrize("f", CASES)
def test_linspace_of_arrays_agrees_with_finite_differences(f):
    check_grads(f, srcad.Duplicated(X.copy(), np.zeros(4)))


def test_linspace_of_arrays_agrees_with_jax():
    jax = pytest.importorskip("jax")
    jax.config.update("jax_enable_x64", True)
    jnp = jax.numpy
    references = [
        lambda x: jnp.sum(jnp.sin(jnp.linspace(x[:2], x[2:], 3)) * WEIGHTS),
        lambda x: jnp.sum(jnp.linspace(x[0], x[1:], 4, endpoint=False) ** 2),
        lambda x: jnp.sum(jnp.linspace(x, 2.0, num=5) ** 3)]
    for f, reference in zip(CASES, references):
        np.testing.assert_allclose(srcad.gradient(f, X), jax.grad(reference)(X), rtol=1e-12)


def test_another_axis_is_refused_naming_it():
    with pytest.raises(SrcadError, match="axis=-1") as error:
        srcad.gradient(along_the_last_axis, X)
    assert error.value.filename == __file__
