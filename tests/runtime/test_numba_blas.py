"""srcad/runtime/numba_blas.py: `array_matmul` of float64 C- and F-contiguous operands,
compiled once for every layout, gives numba's `np.dot` (and NumPy's) bits where no dimension
is 1, and NumPy's values to rounding for every shape."""

import numpy as np
import pytest

numba = pytest.importorskip("numba")

from srcad.runtime.numba_arrays import array_matmul  # noqa: E402
from srcad.runtime.numba_blas import (  # noqa: E402
    matrix_product,
    matrix_vector_product,
    vector_matrix_product,
)
from srcad.runtime.numba_gemm import BLAS  # noqa: E402

pytestmark = pytest.mark.skipif(not BLAS, reason="numba's BLAS calls need SciPy")
RNG = np.random.default_rng(5)


@numba.njit
def _ours(a, b):
    return array_matmul(a, b)


@numba.njit
def _numbas(a, b):
    return np.dot(a, b)


def _laid(x, how):
    return np.ascontiguousarray(x) if how == "C" or x.ndim == 1 else np.asfortranarray(x)


@pytest.mark.slow  # numba compiles its own np.dot for each pair of layouts
@pytest.mark.parametrize("m, k, n", [(4, 3, 5), (1, 3, 2), (3, 1, 2), (2, 3, 1), (0, 2, 3),
                                     (2, 0, 3)])
def test_each_layout_is_numbas_product_and_compiles_once(m, k, n):
    before = {f: set(f.signatures)  # other tests' compilations (read-only operands, ...)
              for f in (matrix_product, matrix_vector_product, vector_matrix_product)}
    a, b = RNG.standard_normal((m, k)), RNG.standard_normal((k, n))
    x, y = RNG.standard_normal(k), RNG.standard_normal(m)
    exact = min(m, k, n) > 1
    for how_a in "CF":
        for how_b in "CF":
            pairs = [(_laid(a, how_a), _laid(b, how_b)), (_laid(a, how_a), x),
                     (y, _laid(a, how_a))]
            for left, right in pairs:
                got = _ours(left, right)
                if exact:
                    np.testing.assert_array_equal(got, _numbas(left, right))
                np.testing.assert_allclose(got, left @ right, rtol=1e-14, atol=1e-14)
                assert got.flags.c_contiguous
    for product, known in before.items():  # layout "A" only: one compilation each
        signatures = set(product.signatures)
        assert len(signatures - known) <= 1 and len(signatures) >= 1, product.signatures
        assert all(t.layout == "A" for signature in signatures for t in signature)


def test_mismatched_shapes_are_refused():
    with pytest.raises(ValueError, match="incompatible"):
        _ours(np.ones((2, 3)), np.ones((2, 3)))
    with pytest.raises(ValueError, match="incompatible"):
        _ours(np.ones((2, 3)), np.ones(2))
    with pytest.raises(ValueError, match="incompatible"):
        _ours(np.ones(3), np.ones((2, 3)))
