"""np.linalg.det at singular matrices: det is a polynomial in the entries, so its gradient,
the cofactor matrix, exists everywhere (JAX's convention); srcad gives it in reverse, forward
and vector mode, on both backends, for one matrix and for stacks mixing singular and regular
matrices. slogdet's log |det| has no finite derivative there: srcad refuses it by line."""

import numpy as np
import pytest

import srcad
from srcad.testing import check_grads

# singular matrices and their cofactor matrices, worked by hand (C_ij = (-1)^(i+j) M_ij)
SINGULAR = [
    (np.array([[1.0, 2.0], [2.0, 4.0]]), np.array([[4.0, -2.0], [-2.0, 1.0]])),
    (np.zeros((2, 2)), np.zeros((2, 2))),
    (np.array([[1.0, 2.0, 3.0], [4.0, 5.0, 6.0], [7.0, 8.0, 9.0]]),
     np.array([[-3.0, 6.0, -3.0], [6.0, -12.0, 6.0], [-3.0, 6.0, -3.0]])),
    # rank 1: every 2x2 minor vanishes
    (np.outer([1.0, 2.0, 3.0], [1.0, 1.0, 2.0]), np.zeros((3, 3))),
    # a zero row: only that row's cofactors survive
    (np.array([[0.0, 0.0, 0.0], [1.0, 2.0, 0.0], [0.0, 1.0, 3.0]]),
     np.array([[6.0, -3.0, 1.0], [0.0, 0.0, 0.0], [0.0, 0.0, 0.0]])),
]
IDS = ["rank1-2x2", "zero-2x2", "rank2-3x3", "rank1-3x3", "zero-row-3x3"]


def det(A):
    return np.linalg.det(A)


def weighted_dets(A, c):
    return np.sum(c * np.linalg.det(A))


def scaled_det(A, s):
    return np.linalg.det(s * A)


def log_abs_det(A):
    sign, logabs = np.linalg.slogdet(A)
    return logabs


@pytest.mark.parametrize("A, cofactors", SINGULAR, ids=IDS)
def test_det_gradient_at_a_singular_matrix_is_the_cofactor_matrix(A, cofactors):
    np.testing.assert_allclose(srcad.grad(det)(A), cofactors, atol=1e-12)
    np.testing.assert_allclose(srcad.jacfwd(det)(A), cofactors, atol=1e-12)


@pytest.mark.parametrize("A, cofactors", SINGULAR[:1] + SINGULAR[2:3], ids=IDS[:1] + IDS[2:3])
def test_det_at_a_singular_matrix_agrees_with_finite_differences_in_every_mode(A, cofactors):
    check_grads(det, srcad.Duplicated(A.copy(), np.zeros_like(A)))
    check_grads(scaled_det, srcad.Duplicated(A.copy(), np.zeros_like(A)), srcad.Active(0.7))
    # a constant matrix: d/ds det(s A) = n s^(n-1) det(A) = 0; the differences see only the
    # rounding of NumPy's det of s A (about 1e-9 at this step)
    check_grads(scaled_det, srcad.Const(A.copy()), srcad.Active(1.3), atol=1e-8)
    assert srcad.grad(scaled_det, argnums=1)(A, 1.3) == pytest.approx(0.0, abs=1e-12)


def test_a_stack_mixing_singular_and_regular_matrices_gives_each_its_cofactors():
    regular = np.array([[2.0, 1.0], [1.0, 3.0]])
    stack = np.stack([SINGULAR[0][0], regular, SINGULAR[1][0]])
    expected = np.stack([SINGULAR[0][1], np.array([[3.0, -1.0], [-1.0, 2.0]]), np.zeros((2, 2))])
    c = np.array([1.0, -2.0, 0.5])
    np.testing.assert_allclose(srcad.grad(weighted_dets)(stack, c), c[:, None, None] * expected,
                               atol=1e-12)
    np.testing.assert_allclose(srcad.jacfwd(weighted_dets)(stack, c),
                               c[:, None, None] * expected, atol=1e-12)
    check_grads(weighted_dets, srcad.Duplicated(stack, np.zeros_like(stack)), srcad.Const(c))


def test_det_hessian_of_a_regular_matrix_is_unchanged():
    # det [[a, b], [c, d]] = a d - b c: d2/da dd = 1, d2/db dc = -1, the rest 0
    H = srcad.hessian(det)(np.array([[2.0, 1.0], [1.0, 3.0]])).reshape(4, 4)
    expected = np.zeros((4, 4))
    expected[0, 3] = expected[3, 0] = 1.0
    expected[1, 2] = expected[2, 1] = -1.0
    np.testing.assert_allclose(H, expected, atol=1e-12)


def test_det_gradient_at_singular_matrices_agrees_with_jax():
    jax = pytest.importorskip("jax")
    jax.config.update("jax_enable_x64", True)
    import jax.numpy as jnp

    for A, _ in SINGULAR:
        expected = np.asarray(jax.grad(jnp.linalg.det)(jnp.asarray(A)))
        np.testing.assert_allclose(srcad.grad(det)(A), expected, atol=1e-12)


def test_slogdet_at_a_singular_matrix_is_refused_naming_the_line():
    with pytest.raises(srcad.SrcadError) as refused:
        srcad.grad(log_abs_det)(SINGULAR[0][0])
    assert "non-finite derivative" in str(refused.value)
    assert any(p.filename == __file__ for p in refused.value.problems)


@pytest.mark.slow  # compiles numba's derivative code
def test_numba_det_gradient_at_singular_matrices_is_the_cofactor_matrix():
    for A, cofactors in SINGULAR:
        np.testing.assert_allclose(srcad.grad(det, backend="numba")(A), cofactors, atol=1e-12)
        np.testing.assert_allclose(srcad.jacfwd(det, backend="numba")(A), cofactors,
                                   atol=1e-12)
    A = SINGULAR[2][0]
    check_grads(scaled_det, srcad.Duplicated(A.copy(), np.zeros_like(A)), srcad.Active(0.7),
                backend="numba")
