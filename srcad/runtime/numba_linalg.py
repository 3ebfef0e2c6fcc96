"""scipy.linalg on the numba backend: numba has no scipy.linalg, so this module gives numba
an implementation of the functions of srcad's scipy.linalg family that numba can build from
its own np.linalg (solve_triangular, cholesky, solve, inv, det) and of srcad's spellings of
cho_factor / cho_solve (srcad/runtime/scipy_factors.py), as numba `overload`s of those
objects. Generated code calls `scipy.linalg.solve_triangular(a, b, lower=True)` as the python
backend's does; a generated numba module that calls one imports this module
(srcad/build/numba_constants.py), srcad itself never does.

SciPy's meaning is kept: each function reads the triangle SciPy reads (`lower=`), a
triangular solve with a zero on the diagonal and a Cholesky factorization of a matrix that is
not positive definite raise numpy.linalg.LinAlgError, as SciPy's do. Not followed:
`check_finite` (an inf or NaN gives NaN results where SciPy raises ValueError). The values
agree with SciPy's to rounding (tests/runtime/test_numba_linalg.py).
"""

from __future__ import annotations

import numpy as np
import scipy.linalg
from numba import types
from numba.core.errors import TypingError
from numba.extending import overload, register_jitable

from srcad.runtime import numba_expm  # noqa: F401 (registers scipy.linalg.expm, expm_frechet)
from srcad.runtime.numba_movement import omitted_argument
from srcad.runtime.scipy_factors import cho_factor_matrix, cho_solve_matrix

# what generated numba code calls by these names (srcad/runtime/runtime_names.py)
__all__ = ["cho_factor_matrix", "cho_solve_matrix"]


@register_jitable
def triangular_solve(a, b, lower, transpose, unit, check):
    """The solution of T x = b (T^T x = b with `transpose`), T the lower or upper triangle
    of `a` (with ones on the diagonal if `unit`); `check`: a zero on the diagonal raises."""
    n = a.shape[0]
    if b.shape[0] != n:
        raise ValueError("solve_triangular: shapes of a and b do not match")
    x = np.ascontiguousarray(b).astype(np.float64)
    rows = x.reshape((n, -1))
    forward = lower != transpose
    for step in range(n):
        i = step if forward else n - 1 - step
        row = rows[i].copy()
        for done in range(step):
            j = done if forward else n - 1 - done
            row -= (a[j, i] if transpose else a[i, j]) * rows[j]
        if not unit:
            if check and a[i, i] == 0.0:
                raise np.linalg.LinAlgError("singular matrix: a zero on the diagonal")
            row /= a[i, i]
        rows[i] = row
    return x


@register_jitable
def mirrored(a, lower):
    """The symmetric matrix of `a`'s lower (upper) triangle."""
    half = np.tril(a) if lower else np.triu(a)
    return np.ascontiguousarray(half + half.T - np.diag(np.diag(a)))


def _transposes(trans) -> str:
    if omitted_argument(trans):
        return "False"
    if isinstance(trans, (types.Integer, types.IntegerLiteral)):
        return "trans != 0"
    if isinstance(trans, (types.UnicodeType, types.StringLiteral)):
        return "trans != 'N'"
    raise TypingError("solve_triangular: srcad compiles trans 0, 1, 2, 'N', 'T' or 'C'")


def _boolean(value) -> str:
    return "False" if omitted_argument(value) else "bool({})"


def _compile(source: str):
    namespace = {"np": np, "triangular_solve": triangular_solve, "mirrored": mirrored}
    exec(source, namespace)
    return namespace["impl"]


@overload(scipy.linalg.solve_triangular)
def _solve_triangular(a, b, trans=0, lower=False, unit_diagonal=False, overwrite_b=False,
                      check_finite=True):
    return _compile(
        "def impl(a, b, trans=0, lower=False, unit_diagonal=False, overwrite_b=False,\n"
        "         check_finite=True):\n"
        f"    return triangular_solve(a, b, {_boolean(lower).format('lower')}, "
        f"{_transposes(trans)}, {_boolean(unit_diagonal).format('unit_diagonal')}, True)")


@overload(scipy.linalg.cholesky)
def _cholesky(a, lower=False, overwrite_a=False, check_finite=True):
    low = _boolean(lower).format("lower")
    return _compile(
        "def impl(a, lower=False, overwrite_a=False, check_finite=True):\n"
        f"    factor = np.linalg.cholesky(mirrored(a, {low}))\n"
        f"    return factor if {low} else np.ascontiguousarray(factor.T)")


@register_jitable
def _kind(assume_a):
    """0 general, 1 symmetric, 2 positive definite, 3 upper, 4 lower triangular, 5 diagonal."""
    if assume_a in ("gen", "general"):
        return 0
    if assume_a in ("sym", "symmetric", "her", "hermitian"):
        return 1
    if assume_a in ("pos", "positive definite"):
        return 2
    if assume_a == "upper triangular":
        return 3
    if assume_a == "lower triangular":
        return 4
    if assume_a == "diagonal":
        return 5
    raise ValueError("scipy.linalg.solve: an assume_a srcad does not compile")


@register_jitable
def _solved(a, b, kind, lower, transposed):
    if kind == 0:
        return np.ascontiguousarray(np.linalg.solve(np.ascontiguousarray(a.T) if transposed
                                                    else np.ascontiguousarray(a), b))
    if kind == 1:
        return np.ascontiguousarray(np.linalg.solve(mirrored(a, lower), b))
    if kind == 2:
        factor = np.linalg.cholesky(mirrored(a, lower))
        half = triangular_solve(factor, b, True, False, False, False)
        return triangular_solve(factor, half, True, True, False, False)
    if kind in (3, 4):
        return triangular_solve(a, b, kind == 4, transposed, False, True)
    out = np.ascontiguousarray(b).astype(np.float64)
    rows = out.reshape((a.shape[0], -1))
    for i in range(a.shape[0]):
        if a[i, i] == 0.0:
            raise np.linalg.LinAlgError("singular matrix: a zero on the diagonal")
        rows[i] = rows[i] / a[i, i]
    return out


@overload(scipy.linalg.solve)
def _solve(a, b, lower=False, overwrite_a=False, overwrite_b=False, check_finite=True,
           assume_a=None, transposed=False):
    kind = "0" if omitted_argument(assume_a) else "_kind(assume_a)"
    namespace = {"_solved": _solved, "_kind": _kind}
    exec("def impl(a, b, lower=False, overwrite_a=False, overwrite_b=False, "
         "check_finite=True,\n         assume_a=None, transposed=False):\n"
         f"    return _solved(a, b, {kind}, {_boolean(lower).format('lower')}, "
         f"{_boolean(transposed).format('transposed')})", namespace)
    return namespace["impl"]


@overload(scipy.linalg.inv)
def _inv(a, overwrite_a=False, check_finite=True):
    return lambda a, overwrite_a=False, check_finite=True: np.linalg.inv(
        np.ascontiguousarray(a))


@overload(scipy.linalg.det)
def _det(a, overwrite_a=False, check_finite=True):
    return lambda a, overwrite_a=False, check_finite=True: np.linalg.det(
        np.ascontiguousarray(a))


@overload(cho_factor_matrix)
def _cho_factor_matrix(a, lower=False):
    low = _boolean(lower).format("lower")
    return _compile(
        "def impl(a, lower=False):\n"
        f"    factor = np.linalg.cholesky(mirrored(a, {low}))\n"
        f"    if {low}:\n"
        "        return np.ascontiguousarray(factor + np.triu(a, 1))\n"
        "    return np.ascontiguousarray(factor.T + np.tril(a, -1))")


@overload(cho_solve_matrix)
def _cho_solve_matrix(c, b, lower):
    def impl(c, b, lower):
        # a = T T^T (lower) or T^T T, T the triangle of c: two triangular solves
        half = triangular_solve(c, b, lower, not lower, False, False)
        return triangular_solve(c, half, lower, lower, False, False)
    return impl
