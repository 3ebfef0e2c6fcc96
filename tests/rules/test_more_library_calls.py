"""np.linalg.lstsq (each part, rcond= by position or name), np.hsplit / vsplit / dsplit and
math.dist (python and numba backends): every mode against central differences, gradients
against JAX where it has the function, and NumPy's own errors where NumPy raises."""

import math

import numpy as np
import pytest

import srcad
from srcad.testing import check_grads

A = np.array([[2.0, 0.3], [0.3, 1.5], [0.1, 0.2]])
B = np.array([0.5, -0.3, 1.2])


def _duplicated(*values):
    return [srcad.Duplicated(v.copy(), np.zeros_like(v)) for v in values]


def lstsq_all_parts(a, b):
    x, residuals, rank, s = np.linalg.lstsq(a, b, rcond=None)
    return np.sum(x ** 2) + 3.0 * np.sum(residuals) + np.sum(s ** 3) * rank


def lstsq_indexed(a, b):
    return np.sum(np.linalg.lstsq(a, b, None)[0] * np.arange(1.0, 3.0))


def lstsq_default_rcond(a, b):
    return np.sum(np.linalg.lstsq(a, b)[0] ** 2)


@pytest.mark.parametrize("f", [lstsq_all_parts, lstsq_indexed, lstsq_default_rcond])
@pytest.mark.parametrize("a, b", [(A, B), (A, np.stack([B, B ** 2], axis=1)),
                                  (A.T, B[:2])], ids=["tall", "columns", "wide"])
def test_lstsq_agrees_with_finite_differences(f, a, b):
    if f is lstsq_indexed and a.shape[1] != 2:
        pytest.skip("the weights are for two unknowns")
    check_grads(f, *_duplicated(a, b))


def test_lstsq_solution_gradient_agrees_with_jax():
    jax = pytest.importorskip("jax")
    jax.config.update("jax_enable_x64", True)

    def theirs(a, b):
        return jax.numpy.sum(jax.numpy.linalg.lstsq(a, b)[0] ** 2)
    ours = srcad.grad(lstsq_default_rcond, argnums=(0, 1))(A, B)
    for mine, reference in zip(ours, jax.grad(theirs, argnums=(0, 1))(A, B)):
        np.testing.assert_allclose(mine, np.asarray(reference), rtol=1e-10)


X = np.arange(1.0, 9.0).reshape(2, 4) / 3.0


def hsplit_matrix(x):
    a, b = np.hsplit(x, 2)
    return np.sum(a * b ** 2)


def hsplit_vector(x):
    a, b = np.hsplit(x.ravel(), [3])
    return np.sum(a) * np.sum(b ** 2)


def vsplit_matrix(x):
    a, b = np.vsplit(x, 2)
    return np.sum(a ** 3 * b)


def dsplit_cube(x):
    a, b = np.dsplit(np.reshape(x, (2, 2, 2)), 2)
    return np.sum(np.sin(a) * b)


@pytest.mark.parametrize("f", [hsplit_matrix, hsplit_vector, vsplit_matrix, dsplit_cube])
def test_fixed_axis_splits_agree_with_finite_differences(f):
    check_grads(f, *_duplicated(X))


def vsplit_vector(x):
    a, b = np.vsplit(x, 2)
    return np.sum(a * b)


def test_vsplit_of_a_vector_raises_numpys_error():
    with pytest.raises(ValueError, match="vsplit only works on arrays of 2 or more dimensions"):
        vsplit_vector(np.ones(4))
    with pytest.raises(ValueError, match="vsplit only works on arrays of 2 or more dimensions"):
        srcad.grad(vsplit_vector)(np.ones(4))


def distance(x):
    return math.dist([x[0], x[1] * 2.0], [1.0, x[2]]) + math.dist((x[2],), (x[0],))


def test_math_dist_of_points_written_out():
    check_grads(distance, *_duplicated(np.array([0.3, 1.2, -0.4])))
    x = np.array([0.3, 1.2, -0.4])
    d = math.dist([x[0], 2.0 * x[1]], [1.0, x[2]])
    expected = np.array([(x[0] - 1.0) / d + np.sign(x[0] - x[2]), 2.0 * (2.0 * x[1] - x[2]) / d,
                         -(2.0 * x[1] - x[2]) / d - np.sign(x[0] - x[2])])
    np.testing.assert_allclose(srcad.grad(distance)(x), expected, rtol=1e-12)


@pytest.mark.slow  # numba compiles (srcad/runtime/numba_math.py's math.dist)
def test_math_dist_of_points_written_out_on_numba():
    x = np.array([0.3, 1.2, -0.4])
    check_grads(distance, *_duplicated(x), backend="numba")
    value, _ = srcad.value_and_gradient(distance, x.copy(), backend="numba")
    assert value == pytest.approx(distance(x), rel=1e-15)


def divmod_unpacked(x, y):
    q, r = np.divmod(x, y)
    return np.sum(r * r + q * x)


def divmod_indexed(x, a):
    return np.sum(np.divmod(x * 3.0, a)[1] ** 2)


XS, YS = np.array([1.3, -2.5, 5.1]), np.array([0.7, 0.9, -1.1])


def test_divmod_parts_agree_with_finite_differences():
    check_grads(divmod_unpacked, *_duplicated(XS, YS))
    check_grads(divmod_indexed, *_duplicated(XS), srcad.Active(0.7))


def test_divmod_gradient_agrees_with_jax():
    jax = pytest.importorskip("jax")
    jax.config.update("jax_enable_x64", True)
    jnp = jax.numpy

    def theirs(x, y):
        q, r = jnp.divmod(x, y)
        return jnp.sum(r * r + q * x)
    ours = srcad.grad(divmod_unpacked, argnums=(0, 1))(XS, YS)
    for mine, reference in zip(ours, jax.grad(theirs, argnums=(0, 1))(XS, YS)):
        np.testing.assert_allclose(mine, np.asarray(reference), rtol=1e-12)


# np.divmod on numba: tests/rules/test_scans_stats_numba.py


def rounded_weights(x):
    return np.sum(x * np.round(x, decimals=1)) + np.sum(np.argmax(x, axis=None) * x)


def floor_into(x):
    out = np.zeros(3)
    np.floor(x, out=out)
    return np.sum(out * x)


def test_keywords_of_a_call_without_derivative_are_read_by_name():
    x = np.array([0.33, 1.27, -0.81])
    expected = np.round(x, 1) + np.argmax(x)
    np.testing.assert_allclose(srcad.grad(rounded_weights)(x), expected, rtol=1e-12)
    with pytest.raises(srcad.SrcadError, match="out="):
        srcad.grad(floor_into)(x)
