"""`linalg_solve` (srcad/runtime/numba_lapack.py), numba's `np.linalg.solve` compiled once per
rank of the right-hand side: the same bits as numba's own solve (and NumPy's) for operands of
every layout, numba's errors, and one compilation for every layout of the operands; likewise
`linalg_inv` (NumPy's inverse, the solve of `a x = I`), `linalg_slogdet` and `linalg_det`
(numba's)."""

import numpy as np
import pytest

numba = pytest.importorskip("numba")

from srcad.runtime.numba_lapack import (  # noqa: E402
    _determinant,
    _inverse,
    _slogdet,
    _solve_matrix,
    _solve_vector,
    linalg_det,
    linalg_inv,
    linalg_slogdet,
    linalg_solve,
)

RNG = np.random.default_rng(11)


@numba.njit
def _ours(a, b):
    return linalg_solve(a, b)


@numba.njit
def _numbas(a, b):
    return np.linalg.solve(a, b)


def _lying(matrix, how):
    """`matrix`'s values in a C-ordered array, a transpose (F) or a strided view (A)."""
    if how == "C":
        return np.ascontiguousarray(matrix)
    if how == "F":
        return np.ascontiguousarray(matrix.T).T
    wide = np.zeros((matrix.shape[0], 2 * matrix.shape[1]))
    wide[:, ::2] = matrix
    return wide[:, ::2]


@pytest.mark.slow  # numba compiles its own solve and srcad's for nine pairs of layouts
def test_every_layout_solves_to_numbas_and_numpys_bits_with_one_compilation():
    before = {f: set(f.signatures) for f in (_solve_matrix, _solve_vector)}  # other tests'
    a = RNG.standard_normal((4, 4)) + 4 * np.eye(4)
    vector, matrix = RNG.standard_normal(4), RNG.standard_normal((4, 3))
    for how_a in "CFA":
        for how_b in "CFA":
            x = _ours(_lying(a, how_a), _lying(matrix, how_b))
            np.testing.assert_array_equal(x, np.linalg.solve(a, matrix))
            np.testing.assert_array_equal(
                x, _numbas(np.ascontiguousarray(a), np.ascontiguousarray(matrix)))
            assert x.flags.f_contiguous  # numba's layout of a matrix solution
        strided_vector = np.repeat(vector, 2)[::2]
        for b in (vector, strided_vector):
            y = _ours(_lying(a, how_a), b)
            np.testing.assert_array_equal(y, np.linalg.solve(a, vector))
            np.testing.assert_array_equal(y, _numbas(np.ascontiguousarray(a), vector))
    # the work is typed for layout "A" only: one compilation per rank of b
    for solve, known in before.items():
        signatures = set(solve.signatures)
        assert len(signatures - known) <= 1 and len(signatures) >= 1, solve.signatures
        assert all(t.layout == "A" for signature in signatures for t in signature)


def test_numbas_errors_are_kept():
    a = np.array([[1.0, 2.0], [2.0, 4.0]])
    with pytest.raises(np.linalg.LinAlgError, match="singular"):
        _ours(a, np.ones(2))
    with pytest.raises(np.linalg.LinAlgError, match="infs or NaNs"):
        _ours(np.eye(2), np.array([1.0, np.nan]))
    with pytest.raises(np.linalg.LinAlgError, match="infs or NaNs"):
        _ours(np.array([[1.0, np.inf], [0.0, 1.0]]), np.ones((2, 2)))
    with pytest.raises(np.linalg.LinAlgError, match="square"):
        _ours(np.ones((2, 3)), np.ones(2))
    with pytest.raises(np.linalg.LinAlgError, match="dimensionally valid"):
        _ours(np.eye(2), np.ones((3, 1)))
    assert _ours(np.zeros((0, 0)), np.zeros((0, 2))).shape == (0, 2)


@pytest.mark.slow  # numba compiles its own float32 solve
def test_other_dtypes_take_numbas_solve():
    a = (RNG.standard_normal((3, 3)) + 3 * np.eye(3)).astype(np.float32)
    b = RNG.standard_normal(3).astype(np.float32)
    np.testing.assert_array_equal(_ours(a.T, b), _numbas(np.ascontiguousarray(a.T), b))
    for ours, theirs in zip(_our_factored(a.T), _numbas_factored(np.ascontiguousarray(a.T))):
        np.testing.assert_array_equal(ours, theirs)


@numba.njit
def _our_factored(a):
    sign, logdet = linalg_slogdet(a)
    return linalg_inv(a), sign, logdet, linalg_det(a)


@numba.njit
def _numbas_factored(a):
    sign, logdet = np.linalg.slogdet(a)
    return np.linalg.inv(a), sign, logdet, np.linalg.det(a)


@pytest.mark.slow  # numba compiles its own inv, slogdet and det
def test_every_layout_inverts_to_numpys_bits_and_factors_to_numbas_with_one_compilation():
    before = {f: set(f.signatures) for f in (_inverse, _slogdet, _determinant)}
    cases = [RNG.standard_normal((4, 4)) + 4 * np.eye(4),  # pivots and signs of each kind
             -np.eye(3)[[1, 0, 2]] * np.array([2.0, 3.0, 0.5]) + 0.1,
             RNG.standard_normal((5, 5))]
    for a in cases:
        theirs = _numbas_factored(np.ascontiguousarray(a))
        for how in "CFA":
            inverse, sign, logdet, det = _our_factored(_lying(a, how))
            # the inverse is NumPy's (the solve of a x = I, as np.linalg.inv computes it)
            np.testing.assert_array_equal(inverse, np.linalg.inv(a))
            assert inverse.flags.f_contiguous  # numba's layout of an inverse
            # slogdet and det are numba's to the bit: one LU, the same sum of logarithms
            assert (sign, logdet, det) == theirs[1:]
            np.testing.assert_allclose(inverse, theirs[0], rtol=1e-13, atol=1e-15)
            assert sign == np.linalg.slogdet(a)[0]
            np.testing.assert_allclose(logdet, np.linalg.slogdet(a)[1], rtol=1e-14)
    for function, known in before.items():
        signatures = set(function.signatures)
        assert len(signatures - known) <= 1 and len(signatures) >= 1, function.signatures
        assert all(t.layout == "A" for signature in signatures for t in signature)


def test_inv_slogdet_and_det_keep_numbas_errors_and_edge_cases():
    singular = np.array([[1.0, 2.0], [2.0, 4.0]])
    with pytest.raises(np.linalg.LinAlgError, match="singular"):
        _our_factored(singular)
    assert _slogdet(singular) == (0.0, -np.inf) and _determinant(singular) == 0.0
    with pytest.raises(np.linalg.LinAlgError, match="infs or NaNs"):
        _our_factored(np.array([[1.0, np.nan], [0.0, 1.0]]))
    with pytest.raises(np.linalg.LinAlgError, match="square"):
        _our_factored(np.ones((2, 3)))
    inverse, sign, logdet, det = _our_factored(np.zeros((0, 0)))
    assert inverse.shape == (0, 0) and (sign, logdet, det) == (1.0, 0.0, 1.0)
    assert _slogdet(np.diag([-2.0, 3.0])) == (-1.0, np.log(2.0) + np.log(3.0))
