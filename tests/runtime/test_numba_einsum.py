"""srcad/runtime/numba_einsum.py and numba_quantiles.py against NumPy and
srcad/runtime/linalg_runtime.py (the python backend's einsum_adjoint): explicit and implicit
outputs, repeated labels, an ellipsis, numbers as results; np.median, np.quantile and
np.percentile along an axis, all of them and with keepdims=. Compiles numba code:
make test-all."""

import numpy as np
import pytest

numba = pytest.importorskip("numba")

from srcad.runtime import numba_quantiles as Q  # noqa: E402
from srcad.runtime.linalg_runtime import einsum_adjoint  # noqa: E402
from srcad.runtime.numba_einsum import moved_einsum  # noqa: E402

pytestmark = pytest.mark.slow
RNG = np.random.default_rng(0)


def _same(got, expected):
    for k, (g, e) in enumerate(zip(got, expected, strict=True)):
        assert np.shape(g) == np.shape(e), (k, np.shape(g), np.shape(e))
        np.testing.assert_allclose(g, e, rtol=1e-13, atol=1e-15, err_msg=str(k))


def test_einsum_and_its_adjoint_are_the_python_backends():
    a, b, c = RNG.normal(size=(3, 4)), RNG.normal(size=(4, 2)), RNG.normal(size=(3, 3))
    s, g1, g2 = RNG.normal(size=(2, 3, 4)), RNG.normal(size=(3, 2)), RNG.normal(size=3)

    @numba.njit
    def compiled(a, b, c, s, g1, g2):
        return (moved_einsum("ij,jk->ik", a, b), moved_einsum("ij,jk", a, b),
                moved_einsum("ii", c), moved_einsum("ii->i", c), moved_einsum("ij->", a),
                moved_einsum("...ij,jk->...ik", s, b), moved_einsum("ji", a),
                einsum_adjoint("ij,jk->ik", 0, g1, a, b), einsum_adjoint("ij,jk->ik", 1, g1, a, b),
                einsum_adjoint("ii->", 0, 1.5, c), einsum_adjoint("ii->i", 0, g2, c),
                einsum_adjoint("ij->", 0, 2.0, a))
    _same(compiled(a, b, c, s, g1, g2), (
        np.einsum("ij,jk->ik", a, b), np.einsum("ij,jk", a, b), np.einsum("ii", c),
        np.einsum("ii->i", c), np.einsum("ij->", a), np.einsum("...ij,jk->...ik", s, b),
        np.einsum("ji", a), einsum_adjoint("ij,jk->ik", 0, g1, a, b),
        einsum_adjoint("ij,jk->ik", 1, g1, a, b), einsum_adjoint("ii->", 0, 1.5, c),
        einsum_adjoint("ii->i", 0, g2, c), einsum_adjoint("ij->", 0, 2.0, a)))


def test_quantiles_are_numpys():
    x = RNG.permutation(12).reshape(3, 4) + RNG.uniform(0.1, 0.4, (3, 4))
    with_nan = x.copy()
    with_nan[1, 2] = np.nan

    @numba.njit
    def compiled(x, y):
        return (Q.moved_median(x), Q.moved_median(x, axis=0), Q.moved_quantile(x, 0.3),
                Q.moved_percentile(x, 75, axis=1, keepdims=True), Q.moved_quantile(x, 0.9, -1),
                Q.moved_median(y, 1), Q.moved_median(x, keepdims=True))
    got = compiled(x, with_nan)
    expected = (np.median(x), np.median(x, axis=0), np.quantile(x, 0.3),
                np.percentile(x, 75, axis=1, keepdims=True), np.quantile(x, 0.9, -1),
                np.median(with_nan, 1), np.median(x, keepdims=True))
    for k, (g, e) in enumerate(zip(got, expected, strict=True)):
        assert np.shape(g) == np.shape(e), k
        np.testing.assert_allclose(g, e, rtol=1e-14, err_msg=str(k))
