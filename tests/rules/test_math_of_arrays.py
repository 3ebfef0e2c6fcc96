"""math.fsum, math.prod, statistics.fmean and math.dist of NumPy vectors (not only of lists
written out): the rules of np.sum, np.prod, np.mean and of the norm of a difference, in
every mode, against central differences and against JAX."""

import math
import statistics

import numpy as np
import pytest

import srcad
from srcad.errors import SrcadError
from srcad.testing import check_grads

X = np.array([0.31, -0.77, 1.52, 0.64])


def fsum_of_vector(x):
    return math.fsum(x * x)


def prod_of_vector(x):
    return math.prod(x)


def fmean_of_vector(x):
    return statistics.fmean(np.sin(x))


def dist_of_vectors(x):
    return math.dist(x[:2], x[2:] * x[2:])


def sum_of_matrix(x):
    return math.fsum(np.outer(x, x))


@pytest.mark.parametrize("f", [fsum_of_vector, prod_of_vector, fmean_of_vector,
                               dist_of_vectors])
def test_math_of_a_vector_agrees_with_finite_differences(f):
    check_grads(f, srcad.Duplicated(X.copy(), np.zeros(4)))


def test_math_of_a_vector_agrees_with_jax():
    jax = pytest.importorskip("jax")
    jax.config.update("jax_enable_x64", True)
    jnp = jax.numpy
    expected = [jax.grad(lambda x: jnp.sum(x * x))(X), jax.grad(jnp.prod)(X),
                jax.grad(lambda x: jnp.mean(jnp.sin(x)))(X),
                jax.grad(lambda x: jnp.linalg.norm(x[:2] - x[2:] * x[2:]))(X)]
    for f, reference in zip((fsum_of_vector, prod_of_vector, fmean_of_vector,
                             dist_of_vectors), expected):
        np.testing.assert_allclose(srcad.grad(f)(X), reference, rtol=1e-12, atol=1e-14)


def test_fsum_of_a_matrix_is_refused_at_its_line():
    with pytest.raises(SrcadError, match="math.fsum of arrays of ranks") as error:
        srcad.grad(sum_of_matrix)(X)
    assert error.value.filename == __file__


@pytest.mark.parametrize("f, name", [(fsum_of_vector, "math.fsum"),
                                     (fmean_of_vector, "statistics.fmean"),
                                     (dist_of_vectors, "math.dist")])
def test_math_of_a_vector_is_refused_by_name_on_numba(f, name):
    with pytest.raises(SrcadError, match=name.replace(".", r"\.")) as error:
        srcad.grad(f, backend="numba")(X)
    assert error.value.filename == __file__
