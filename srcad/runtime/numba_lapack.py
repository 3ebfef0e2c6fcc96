"""`linalg_solve(a, b)`: `np.linalg.solve(a, b)` in numba-compiled code, compiled once per
rank of `b` whatever the layouts of the operands (srcad/transform/numba_linalg_calls.py spells
the generated code's `np.linalg.solve` of float64 operands so); `linalg_inv(a)`,
`linalg_slogdet(a)` and `linalg_det(a)` likewise, compiled once whatever the layout of `a`.

numba's own `np.linalg.solve` compiles once per combination of the operands' layouts (an
adjoint solves with `A.T`, layout F, where the primal solved with `A`), and copies the
right-hand side with a slice assignment whose shape-mismatch message numba formats at run
time: about 45 of numba's string and builtin functions compiled in every process that solves.
Here both operands are typed as layout "A" (a cast that copies nothing, made at the call:
srcad/runtime/numba_direct_calls.py), copied
by loops into the Fortran-ordered work arrays LAPACK overwrites, and solved by the one LAPACK
call numba's solve makes (`numba_xgesv` of numba's helper library: `dgesv` through SciPy).
LAPACK sees the same values in the same order, so the solution is numba's (and NumPy's) to the
bit; the code is cached on disk like the rest of srcad's runtime (srcad/runtime/numba_cache.py).

numba's checks are kept, with numba's messages: a non-square `a`, a `b` whose rows do not
match, an inf or NaN in either operand and a singular matrix raise `numpy.linalg.LinAlgError`.
The solution of a 1-D `b` is a new C-ordered vector, of a 2-D `b` a new Fortran-ordered matrix
(as numba's). Operands of other dtypes (and any without SciPy) take numba's own solve of
C-ordered copies.

The inverse is NumPy's: the solve of `a x = I` (dgesv with the identity for the right-hand
side, what `np.linalg.inv` runs), through the solve above, so it adds no function of its own
to compile but its call (numba's inv, dgetrf then dgetri, brought its own copy to Fortran
order, finiteness check and LAPACK glue, per layout of `a`: NumPy's differs from it in the
last bits). `linalg_slogdet` is numba's: dgetrf on the Fortran-ordered copy, the sign from
the pivots, the logarithms of the diagonal's magnitudes added in order (so the same bits),
`(0.0, -inf)` for a singular matrix and `(1.0, 0.0)` for an empty one; `linalg_det` is
numba's `sign * exp(logdet)` of it. Same checks and messages as numba's (square, finite).
Other dtypes take numba's own of a C-ordered copy.
"""

from __future__ import annotations

import numba
import numpy as np
from numba import types
from numba.extending import overload
from numba.np.linalg import _LAPACK, F_INT_nptype, ensure_lapack

from srcad.runtime.numba_cache import runtime_cache_in_srcad_folder
from srcad.runtime.numba_direct_calls import register_direct_call

runtime_cache_in_srcad_folder()  # before its cached functions (srcad/runtime/numba_cache.py)

try:  # numba's LAPACK calls go through SciPy's
    ensure_lapack()
    LAPACK = True
except ImportError:  # pragma: no cover - SciPy is installed where srcad is tested
    LAPACK = False
_XGESV = _LAPACK().numba_xgesv(types.float64)
_XXGETRF = _LAPACK().numba_xxgetrf(types.float64)
_DOUBLE = np.int8(ord("d"))


def linalg_solve(a, b):
    return np.linalg.solve(a, b)


def linalg_inv(a):
    return np.linalg.inv(a)


def linalg_slogdet(a):
    return np.linalg.slogdet(a)


def linalg_det(a):
    return np.linalg.det(a)


@numba.njit(cache=True)
def _checked_system(a, b):
    """A Fortran-ordered copy of the square float64 matrix `a` of the system `a x = b`
    (numba's checks: `a` square and finite, `b` of as many rows)."""
    n = a.shape[1]
    if a.shape[0] != n:
        raise np.linalg.LinAlgError("Last 2 dimensions of the array must be square.")
    work = _finite_copy(a, np.empty((n, n)).T)
    if b.shape[0] != n:
        raise np.linalg.LinAlgError(
            "Incompatible array sizes, system is not dimensionally valid.")
    return work


@numba.njit(cache=True)
def _finite_copy(source, copy):
    """`copy[...] = source` (matrices of one shape), with numba's error for an inf or NaN."""
    for j in range(source.shape[1]):
        for i in range(source.shape[0]):
            value = source[i, j]
            if not np.isfinite(value):
                raise np.linalg.LinAlgError("Array must not contain infs or NaNs.")
            copy[i, j] = value
    return copy


@numba.njit(cache=True)
def _gesv(work, solution):
    """LAPACK's dgesv on the Fortran-ordered copies (n x n, n x rhs, n > 0): `solution`
    becomes the solution."""
    n, rhs = solution.shape
    pivots = np.empty(n, dtype=F_INT_nptype)
    status = _XGESV(_DOUBLE, n, rhs, work.ctypes, n, pivots.ctypes, solution.ctypes, n)
    if status < 0:
        raise ValueError("np.linalg.solve: LAPACK's dgesv rejected an argument")
    if status > 0:
        raise np.linalg.LinAlgError("Matrix is singular to machine precision.")
    return pivots.size + work.size  # keeps the work arrays alive through the call


@numba.njit(cache=True)
def _solve_vector(a, b):
    work = _checked_system(a, b)
    n = work.shape[0]
    row = np.empty((1, n))  # numba's: the solution as a Fortran-ordered n x 1 matrix
    for i in range(n):
        value = b[i]
        if not np.isfinite(value):
            raise np.linalg.LinAlgError("Array must not contain infs or NaNs.")
        row[0, i] = value
    if n > 0:
        _gesv(work, row.T)
    return row[0]  # a C-ordered vector (numba returns the same view, by reshaping)


@numba.njit(cache=True)
def _solve_matrix(a, b):
    work = _checked_system(a, b)
    n = work.shape[0]
    rhs = b.shape[1]
    solution = _finite_copy(b, np.empty((rhs, n)).T)
    if n > 0:
        _gesv(work, solution)
    return solution


def _lapack_solve(a, b):
    """The solve of float64 operands (typed "A"), called with no function of its own per
    layout (srcad/runtime/numba_direct_calls.py)."""
    if LAPACK and isinstance(a, types.Array) and isinstance(b, types.Array) and a.ndim == 2 \
            and a.dtype == b.dtype == types.float64:
        return {1: _solve_vector, 2: _solve_matrix}.get(b.ndim)
    return None


@numba.njit(cache=True)
def _inverse(a):
    """NumPy's inverse: the solution of `a x = I` (numba's checks and messages)."""
    return linalg_solve(a, np.eye(a.shape[1]))


@numba.njit(cache=True)
def _slogdet(a):
    """numba's slogdet of a float64 matrix (module docstring)."""
    n = a.shape[1]
    if a.shape[0] != n:
        raise np.linalg.LinAlgError("Last 2 dimensions of the array must be square.")
    if n == 0:
        return 1.0, 0.0
    work = _finite_copy(a, np.empty((n, n)).T)
    pivots = np.empty(n, dtype=F_INT_nptype)
    status = _XXGETRF(_DOUBLE, n, n, work.ctypes, n, pivots.ctypes)
    if status > 0:  # singular: NumPy's answer
        return 0.0, -np.inf
    if status < 0:
        raise ValueError("np.linalg.slogdet: LAPACK's dgetrf rejected an argument")
    swaps = 0
    for k in range(n):
        swaps += pivots[k] != k + 1
    sign = 1.0 if swaps % 2 == 0 else -1.0
    logdet = 0.0
    for k in range(n):
        value = work[k, k]
        if value < 0.0:
            sign = -sign
            value = -value
        logdet = logdet + np.log(value)
    return sign, logdet


@numba.njit(cache=True)
def _determinant(a):
    sign, logdet = _slogdet(a)
    return sign * np.exp(logdet)


def _lapack_of_matrix(function):
    """`function` for a float64 matrix (typed "A"), else None (numba's own, of a copy)."""
    def chosen(a):
        if LAPACK and isinstance(a, types.Array) and a.ndim == 2 and a.dtype == types.float64:
            return function
        return None
    return chosen


register_direct_call(linalg_solve, _lapack_solve)  # before the overloads: tried first
register_direct_call(linalg_inv, _lapack_of_matrix(_inverse))
register_direct_call(linalg_slogdet, _lapack_of_matrix(_slogdet))
register_direct_call(linalg_det, _lapack_of_matrix(_determinant))


@overload(linalg_solve)
def _linalg_solve(a, b):  # other dtypes
    return lambda a, b: np.linalg.solve(np.ascontiguousarray(a), np.ascontiguousarray(b))


@overload(linalg_inv)
def _linalg_inv(a):  # other dtypes
    return lambda a: np.linalg.inv(np.ascontiguousarray(a))


@overload(linalg_slogdet)
def _linalg_slogdet(a):  # other dtypes
    return lambda a: np.linalg.slogdet(np.ascontiguousarray(a))


@overload(linalg_det)
def _linalg_det(a):  # other dtypes
    return lambda a: np.linalg.det(np.ascontiguousarray(a))
