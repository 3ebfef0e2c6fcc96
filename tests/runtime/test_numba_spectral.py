"""srcad/runtime/numba_spectral.py against NumPy and srcad/runtime/spectral_runtime.py (the
python backend's formulas, checked against finite differences and JAX in
tests/rules/test_linalg_rules.py): np.linalg.eigh and eigvalsh with UPLO=, and the tangents and
adjoints of both parts. Compiles numba code: make test-all."""

import numpy as np
import pytest

numba = pytest.importorskip("numba")

from srcad.runtime import numba_spectral as N  # noqa: E402
from srcad.runtime import spectral_runtime as P  # noqa: E402

pytestmark = pytest.mark.slow
RNG = np.random.default_rng(3)
A = RNG.normal(size=(4, 4))  # not symmetric: each UPLO reads its own triangle
DA, G1, G2 = RNG.normal(size=(4, 4)), RNG.normal(size=4), RNG.normal(size=(4, 4))


@numba.njit
def _compiled(a, da, g1, g2):
    return (N.spectral_eigh(a)[0], N.spectral_eigh(a, UPLO="U")[1], N.spectral_eigvalsh(a, "U"),
            N.eigh_tangent(a, da, "L", 0), N.eigh_tangent(a, da, "U", 1),
            N.eigh_adjoint(a, g1, "U", 0), N.eigh_adjoint(a, g2, "L", 1))


def test_values_and_derivatives_are_the_python_backends():
    expected = (np.linalg.eigh(A)[0], np.linalg.eigh(A, UPLO="U")[1],
                np.linalg.eigvalsh(A, "U"), P.eigh_tangent(A, DA, "L", 0),
                P.eigh_tangent(A, DA, "U", 1), P.eigh_adjoint(A, G1, "U", 0),
                P.eigh_adjoint(A, G2, "L", 1))
    got = _compiled(A, DA, G1, G2)
    # eigenvectors (of UPLO="U" both): each column up to its sign, LAPACK's choice, which
    # their tangents follow
    signs = np.sign(got[1][0]) * np.sign(expected[1][0])
    for k, (g, e) in enumerate(zip(got, expected)):
        np.testing.assert_allclose(g * signs if k in (1, 4) else g, e, rtol=1e-9, atol=1e-11,
                                   err_msg=str(k))
