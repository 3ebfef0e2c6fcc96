"""`linalg_solve` (srcad/runtime/numba_lapack.py), numba's `np.linalg.solve` compiled once per
rank of the right-hand side: the same bits as numba's own solve (and NumPy's) for operands of
every layout, numba's errors, and one compilation for every layout of the operands."""

import numpy as np
import pytest

numba = pytest.importorskip("numba")

from srcad.runtime.numba_lapack import (  # noqa: E402
    _solve_matrix,
    _solve_vector,
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
