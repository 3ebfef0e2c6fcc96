"""srcad/runtime/numba_decompositions.py, numba_products.py and numba_expm.py against NumPy,
SciPy and the python backend's formulas (srcad/runtime/spectral_runtime.py,
linalg_runtime.py): the values numba computes for np.linalg.svd, qr, pinv, lstsq (NumPy's
keywords and defaults), np.tensordot, scipy.linalg.expm and expm_frechet, and the tangents and
adjoints of svd, qr, cond and matrix_power. Each test compiles numba code: the first is the
family's smoke test, the rest run in `make test-all`."""

import numba
import numpy as np
import pytest
import scipy.linalg

import srcad.runtime.numba_linalg  # noqa: F401 (numba's scipy.linalg)
from srcad.runtime.linalg_runtime import matrix_power_adjoint, matrix_power_tangent
from srcad.runtime.numba_decompositions import linalg_pinv, linalg_qr, linalg_svd, lstsq_parts
from srcad.runtime.numba_products import moved_tensordot
from srcad.runtime.spectral_runtime import (
    cond_adjoint,
    cond_tangent,
    qr_adjoint,
    qr_tangent,
    svd_adjoint,
    svd_tangent,
)

RNG = np.random.default_rng(3)


def test_tensordot_of_written_axes_is_numpys():
    @numba.njit
    def contracted(x, y):
        return moved_tensordot(x, y, "([0, 2], [1, 0])"), moved_tensordot(x[0], y[:, 0], "1")

    x, y = RNG.normal(size=(2, 3, 4)), RNG.normal(size=(4, 2, 5))
    both, one = contracted(x, y)
    np.testing.assert_allclose(both, np.tensordot(x, y, ([0, 2], [1, 0])), rtol=1e-13)
    np.testing.assert_allclose(one, np.tensordot(x[0], y[:, 0], 1), rtol=1e-13)


@pytest.mark.slow  # numba compiles LAPACK bindings
def test_decompositions_follow_numpys_keywords():
    @numba.njit
    def parts(a, b):
        u, s, vh = linalg_svd(a, full_matrices=False)
        q, r = linalg_qr(a, "reduced")
        return (u, s, vh, linalg_svd(a, compute_uv=False), q, r, linalg_pinv(a),
                lstsq_parts(a, b), lstsq_parts(a, b, 0.5))

    a = RNG.normal(size=(5, 3))
    a[:, 2] = a[:, 0] + 1e-14 * a[:, 1]  # rank 2 under NumPy's rcond, 3 under numba's
    b = RNG.normal(size=5)
    u, s, vh, values, q, r, pinv, fitted, cut = parts(a, b)
    np.testing.assert_allclose(u * s @ vh, a, atol=1e-12)
    np.testing.assert_allclose(values, np.linalg.svd(a, compute_uv=False), rtol=1e-12)
    np.testing.assert_allclose(q @ r, a, atol=1e-12)
    np.testing.assert_allclose(pinv, np.linalg.pinv(a), rtol=1e-8, atol=1e-8)
    for got, rcond in ((fitted, None), (cut, 0.5)):
        expected = np.linalg.lstsq(a, b, rcond=rcond)
        assert got[2] == expected[2]  # the rank NumPy's rcond gives
        np.testing.assert_allclose(got[0], expected[0], rtol=1e-8, atol=1e-8)
        np.testing.assert_allclose(got[1], expected[1])
        np.testing.assert_allclose(got[3], expected[3], rtol=1e-12)


@numba.njit
def _svd_derivatives(a, d, g, h, k):
    return (svd_tangent(a, d, False, 0), svd_tangent(a, d, False, 1),
            svd_tangent(a, d, False, 2), svd_adjoint(a, g, False, 0),
            svd_adjoint(a, h, False, 1), svd_adjoint(a, k, False, 2))


@pytest.mark.slow  # numba compilations
@pytest.mark.parametrize("shape", [(5, 3), (3, 5), (4, 4)])
def test_svd_derivatives_are_the_python_backends(shape):
    a, d = RNG.normal(size=shape), RNG.normal(size=shape)
    g, h = RNG.normal(size=(shape[0], min(shape))), RNG.normal(size=min(shape))
    k = RNG.normal(size=(min(shape), shape[1]))  # the seeds of U, S and Vh
    got = _svd_derivatives(a, d, g, h, k)
    expected = [svd_tangent(a, d, False, part) for part in range(3)] + [
        svd_adjoint(a, g, False, 0), svd_adjoint(a, h, False, 1), svd_adjoint(a, k, False, 2)]
    for mine, theirs in zip(got, expected):
        np.testing.assert_allclose(mine, theirs, rtol=1e-9, atol=1e-11)


@pytest.mark.slow  # numba compilations
def test_qr_cond_and_matrix_power_derivatives_are_the_python_backends():
    @numba.njit
    def derivatives(a, d, square, e):
        return (qr_tangent(a, d, 0), qr_tangent(a, d, 1), qr_adjoint(a, d, 0),
                qr_adjoint(a, d[:3], 1), cond_tangent(square, e, 2.0),
                cond_adjoint(square, 1.5, 2.0), matrix_power_tangent(square, e, 3),
                matrix_power_adjoint(square, e, -2))

    a, d = RNG.normal(size=(5, 3)), RNG.normal(size=(5, 3))
    square, e = RNG.normal(size=(3, 3)) + 3.0 * np.eye(3), RNG.normal(size=(3, 3))
    got = derivatives(a, d, square, e)
    expected = (qr_tangent(a, d, 0), qr_tangent(a, d, 1), qr_adjoint(a, d, 0),
                qr_adjoint(a, d[:3], 1), cond_tangent(square, e, 2.0),
                cond_adjoint(square, 1.5, 2.0), matrix_power_tangent(square, e, 3),
                matrix_power_adjoint(square, e, -2))
    for mine, theirs in zip(got, expected):
        np.testing.assert_allclose(mine, theirs, rtol=1e-9, atol=1e-11)


@pytest.mark.slow  # numba compilations
@pytest.mark.parametrize("scale", [0.01, 1.0, 30.0])
def test_expm_and_its_frechet_derivative_are_scipys(scale):
    @numba.njit
    def exponential(a, e):
        both = scipy.linalg.expm_frechet(a, e)
        return scipy.linalg.expm(a), scipy.linalg.expm_frechet(a, e, compute_expm=False), both

    a, e = scale * RNG.normal(size=(4, 4)), RNG.normal(size=(4, 4))
    value, frechet, (value_again, frechet_again) = exponential(a, e)
    expected, expected_frechet = scipy.linalg.expm_frechet(a, e)
    np.testing.assert_allclose(value, scipy.linalg.expm(a), rtol=1e-10)
    np.testing.assert_allclose(frechet, expected_frechet,
                               rtol=1e-9, atol=1e-12 * np.abs(expected_frechet).max())
    np.testing.assert_allclose(value_again, value, rtol=0)
    np.testing.assert_allclose(frechet_again, frechet, rtol=0)
