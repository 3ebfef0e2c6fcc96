"""Second order on the numba backend: where numba refuses a function (its gradient too), the
refusal names the user's lines in the user's words and suggests the python backend only
once srcad has checked that it takes the function; the suggestion is followed here and gives
JAX's Hessian."""

import numpy as np
import pytest
import scipy.linalg

import srcad

jax = pytest.importorskip("jax")
jnp = pytest.importorskip("jax.numpy")
jsl = pytest.importorskip("jax.scipy.linalg")

from helpers.jax_reference import jax_in_float64  # noqa: E402, F401

THIS_FILE = __file__


def triangular_loss(x):
    L = np.tril(np.outer(x, x)) + 2.0 * np.eye(3)
    z = scipy.linalg.solve_triangular(L, np.sin(x), lower=True)
    return np.sum(z * z)


def triangular_loss_in_jax(x):
    L = jnp.tril(jnp.outer(x, x)) + 2.0 * jnp.eye(3)
    z = jsl.solve_triangular(L, jnp.sin(x), lower=True)
    return jnp.sum(z * z)


def contracted_loss(x):
    A = np.outer(x, x) + 2.0 * np.eye(3)
    z = np.cross(A, np.sin(x), axisa=0)  # numba's np.cross takes no axisa=
    return np.sum(z * z)


def contracted_loss_in_jax(x):
    A = jnp.outer(x, x) + 2.0 * jnp.eye(3)
    return jnp.sum(jnp.cross(A, jnp.sin(x), axisa=0) ** 2)


@pytest.mark.parametrize("operator", ["hessian", pytest.param("hvp", marks=pytest.mark.slow)])
def test_a_numba_refusal_suggests_the_python_backend_which_works(operator):
    x = np.array([0.7, -0.4, 1.1])
    v = np.array([1.0, 0.5, -2.0])
    options = {"tangent": v} if operator == "hvp" else {}
    with pytest.raises(srcad.SrcadError) as refused:
        getattr(srcad, operator)(contracted_loss, x, backend="numba", **options)
    text = str(refused.value)
    assert text.endswith("(use backend='python')")
    assert all(p.filename == THIS_FILE and p.line is not None for p in refused.value.problems)
    assert "_dot" not in text and "_bar" not in text and "<srcad" not in text
    assert "srcad/" not in text
    ours = getattr(srcad, operator)(contracted_loss, x, backend="python", **options)
    H = np.asarray(jax.jit(jax.hessian(contracted_loss_in_jax))(x))
    np.testing.assert_allclose(ours, H @ v if operator == "hvp" else H, rtol=1e-9, atol=1e-9)


@pytest.mark.slow  # numba compilations
def test_numba_gives_the_hessian_of_a_triangular_solve():
    # scipy.linalg.solve_triangular runs on numba (srcad/runtime/numba_linalg.py)
    x = np.array([0.7, -0.4, 1.1])
    H = np.asarray(jax.jit(jax.hessian(triangular_loss_in_jax))(x))
    np.testing.assert_allclose(srcad.hessian(triangular_loss, x, backend="numba"), H,
                               rtol=1e-9, atol=1e-9)
