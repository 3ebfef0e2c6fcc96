"""`linalg_solve(a, b)`: `np.linalg.solve(a, b)` in numba-compiled code, compiled once per
rank of `b` whatever the layouts of the operands (srcad/transform/numba_linalg_calls.py spells
the generated code's `np.linalg.solve` of float64 operands so).

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
_DOUBLE = np.int8(ord("d"))


def linalg_solve(a, b):
    return np.linalg.solve(a, b)


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


register_direct_call(linalg_solve, _lapack_solve)  # before the overload: tried first


@overload(linalg_solve)
def _linalg_solve(a, b):  # other dtypes
    return lambda a, b: np.linalg.solve(np.ascontiguousarray(a), np.ascontiguousarray(b))
