"""BLAS products on strided views in place (srcad/runtime/numba_gemm.py), against NumPy's
`c + a @ b`: every way a matrix can lie that BLAS reads (contiguous rows or columns, a leading
dimension longer than the row, a matrix of a 3-D array, a transposed matrix, an axis of
length 1 with any step) is computed without copies; any other view (a step of two elements
in both axes, a broadcast axis, a reversed axis) is refused with nothing written."""

import numpy as np
import pytest

numba = pytest.importorskip("numba")

from srcad.runtime.numba_gemm import BLAS, gemm_into, stored  # noqa: E402

pytestmark = pytest.mark.skipif(not BLAS, reason="numba's BLAS calls need SciPy")
RNG = np.random.default_rng(7)


def _lying(shape, how):
    """A float64 view of `shape` lying `how`: "rows" (rows contiguous, a longer leading
    dimension), "columns" (a transposed matrix, likewise), "batch" (x[:, j, :] of a 3-D
    array)."""
    m, n = shape
    if how == "rows":
        return RNG.standard_normal((m, n + 3))[:, 1:n + 1]
    if how == "columns":
        return RNG.standard_normal((n, m + 2))[:, :m].T
    return RNG.standard_normal((m, 4, n))[:, 2, :]


HOWS = ["rows", "columns", "batch"]


@pytest.mark.slow  # numba compiles gemm_into for each combination of layouts
@pytest.mark.parametrize("m, k, n", [(5, 7, 3), (1, 6, 4), (6, 1, 5), (4, 5, 1)])
def test_every_way_a_matrix_lies_gives_numpy_values(m, k, n):
    for how_a in HOWS:
        for how_b in HOWS:
            for how_c in HOWS:
                a, b, c = _lying((m, k), how_a), _lying((k, n), how_b), _lying((m, n), how_c)
                want = 0.5 * c + a @ b
                assert gemm_into(a, b, c, 0.5), (how_a, how_b, how_c)
                np.testing.assert_allclose(c, want, rtol=1e-13, atol=1e-13)


def test_a_view_blas_cannot_read_is_refused_with_nothing_written():
    a = RNG.standard_normal((8, 10))[::2, ::2]  # steps of two elements in both axes
    b = RNG.standard_normal((5, 3))
    c = np.zeros((4, 3))
    assert not gemm_into(a, b, c, 1.0)
    assert not c.any()
    spread = np.broadcast_to(RNG.standard_normal((1, 5)), (4, 5))  # a stretched axis
    assert not gemm_into(spread, b, c, 1.0)
    assert not gemm_into(RNG.standard_normal((4, 5))[::-1], b, c, 1.0)  # reversed
    assert not c.any()


def test_how_views_lie():
    x = np.zeros((6, 10))
    assert stored(x) == (0, 10) and stored(x[:, 2:5]) == (0, 10)
    assert stored(x.T) == (1, 10) and stored(x[:3].T) == (1, 10)
    assert stored(x[::2, ::2])[0] == -1
    assert stored(np.zeros((3, 4, 5))[:, 1, :]) == (0, 20)


def test_beta_zero_overwrites_and_an_empty_sum_scales():
    a, b = RNG.standard_normal((3, 4)), RNG.standard_normal((4, 2))
    c = np.full((3, 2), np.nan)
    assert gemm_into(a, b, c, 0.0)
    np.testing.assert_allclose(c, a @ b, rtol=1e-13)
    c = np.ones((3, 2))
    assert gemm_into(np.zeros((3, 0)), np.zeros((0, 2)), c, 2.0)
    assert (c == 2.0).all()
    with pytest.raises(ValueError, match="shapes"):
        gemm_into(a, b, np.zeros((2, 2)), 0.0)


def test_a_product_of_strided_matrices_in_compiled_code_is_numpys():
    from srcad.runtime.numba_arrays import array_matmul

    product = numba.njit(lambda a, b: array_matmul(a, b))
    x = RNG.standard_normal((16, 12, 12))
    for a, b in [(x[:, 1, :], RNG.standard_normal((9, 12))[:, ::-1].T),  # b: BLAS cannot read
                 (x[:, 2, :], x[0, :, :].T),  # BLAS in place
                 (x[:3, 2, :4], x[0, :4, :2])]:  # tiny: loops
        # each element within the rounding of its own sum (|a| @ |b| bounds it): an element
        # that cancels to 3e-4 from terms of order 1 differs from NumPy's relatively by 5e-13
        bound = 1e-14 * a.shape[1] * (np.abs(a) @ np.abs(b))
        assert np.all(np.abs(product(a, b) - a @ b) <= bound)


def test_how_views_lie_is_compiled_once_for_read_only_and_writable_views():
    # `stored(x)` compiled once per array type: gemm_into's read-only operands and writable
    # target (and the matrix-vector product's matrix) made two compilations of it in every
    # process that multiplied; `lying` reads the numbers and compiles once
    from numba.core import event

    from srcad.runtime.numba_blas import matrix_vector_product

    class Compiled(event.Listener):
        names = []

        def on_start(self, ev):
            self.names.append(ev.data["dispatcher"].py_func.__qualname__)

        def on_end(self, ev):
            pass

    @numba.njit
    def kernel(a, b, c, x):
        gemm_into(a, b, c, 0.0)
        return matrix_vector_product(c, x)

    a = np.ones((3, 4))
    a.flags.writeable = False
    compiled = Compiled()
    with event.install_listener("numba:compile", compiled):
        y = kernel(a, np.ones((4, 2)), np.zeros((3, 2)), np.ones(2))
    np.testing.assert_array_equal(y, np.full(3, 8.0))
    assert "stored" not in compiled.names and compiled.names.count("lying") <= 1
