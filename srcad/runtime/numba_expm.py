"""scipy.linalg.expm and scipy.linalg.expm_frechet on the numba backend, as numba
`overload`s of the SciPy objects (registered when srcad/runtime/numba_linalg.py is imported,
which a generated numba module that calls scipy.linalg does).

expm is scaling and squaring with the [13/13] Padé approximant (Higham 2005, SciPy's
algorithm for all but the smallest norms, where SciPy takes a lower degree): A is scaled by
2^-s until its 1-norm is below theta_13, the approximant r(A) = (V - U)^-1 (V + U) is squared
s times. Its Fréchet derivative L(A, E), the tangent of expm (srcad/rules/scipy_linalg.py;
its adjoint is L(A^T, G)), is the upper right block of the exponential of the block matrix
[[A, E], [0, A]] (Mathias 1996; the block-triangular trick of Higham's book, Thm. 3.6).
Both agree with SciPy's to rounding (tests/runtime/test_numba_expm.py), for one square
matrix (a stack fails to type, which srcad reports naming the line).

Imported by srcad/runtime/numba_linalg.py only (it imports numba).
"""

from __future__ import annotations

import numpy as np
import scipy.linalg
from numba import types
from numba.core.errors import TypingError
from numba.extending import overload, register_jitable

_PADE_13 = np.array([64764752532480000.0, 32382376266240000.0, 7771770303897600.0,
                     1187353796428800.0, 129060195264000.0, 10559470521600.0, 670442572800.0,
                     33522128640.0, 1323241920.0, 40840800.0, 960960.0, 16380.0, 182.0, 1.0])
_THETA_13 = 5.371920351148152


@register_jitable
def matrix_exponential(a):
    """exp(a) of a square matrix, by scaling and squaring the [13/13] Padé approximant."""
    n = a.shape[0]
    if a.shape[1] != n:
        raise ValueError("expm: the matrix is not square")
    b = _PADE_13
    norm = 0.0
    for j in range(n):
        norm = max(norm, np.sum(np.abs(a[:, j])))
    s = 0
    if norm > _THETA_13:
        s = int(np.ceil(np.log2(norm / _THETA_13)))
    x = np.ascontiguousarray(a) / 2.0 ** s
    eye = np.eye(n)
    x2 = x @ x
    x4 = x2 @ x2
    x6 = x4 @ x2
    u = x @ (x6 @ (b[13] * x6 + b[11] * x4 + b[9] * x2) + b[7] * x6 + b[5] * x4 + b[3] * x2
             + b[1] * eye)
    v = x6 @ (b[12] * x6 + b[10] * x4 + b[8] * x2) + b[6] * x6 + b[4] * x4 + b[2] * x2 \
        + b[0] * eye
    r = np.linalg.solve(v - u, v + u)
    for _ in range(s):
        r = r @ r
    return r


@register_jitable
def frechet_derivative(a, e):
    """L(a, e): the upper right block of exp([[a, e], [0, a]])."""
    n = a.shape[0]
    block = np.zeros((2 * n, 2 * n))
    block[:n, :n] = a
    block[:n, n:] = e
    block[n:, n:] = a
    return np.ascontiguousarray(matrix_exponential(block)[:n, n:])


def _matrix(a, name):
    if getattr(a, "ndim", 0) != 2:
        raise TypingError(f"scipy.linalg.{name}: srcad compiles one matrix (rank 2), no stacks")


@overload(scipy.linalg.expm)
def _expm(A):  # noqa: N803 - SciPy's name
    _matrix(A, "expm")
    return lambda A: matrix_exponential(A)


@overload(scipy.linalg.expm_frechet, prefer_literal=True)
def _expm_frechet(A, E, method=None, compute_expm=True, check_finite=True):  # noqa: N803
    _matrix(A, "expm_frechet")
    both = compute_expm.value if isinstance(compute_expm, types.Omitted) else \
        getattr(compute_expm, "literal_value", compute_expm)
    if not isinstance(both, bool):
        raise TypingError("scipy.linalg.expm_frechet: srcad compiles compute_expm written "
                          "in the call")
    if both:
        return lambda A, E, method=None, compute_expm=True, check_finite=True: (
            matrix_exponential(A), frechet_derivative(A, E))
    return lambda A, E, method=None, compute_expm=True, check_finite=True: \
        frechet_derivative(A, E)
