"""Spectral decompositions and what is built on them: np.linalg.eigh and eigvalsh (UPLO=),
svd (full_matrices=, compute_uv=), qr, pinv, lstsq and cond (p=None, 2), on matrices
and stacks of them (eigh, eigvalsh, svd).

A decomposition returns a tuple; each part a program reads is its own primitive:
`w, v = np.linalg.eigh(A)` is unpacked (transform/normalize/desugar.py) into
`np.linalg.eigh(A).eigenvalues` and `.eigenvectors`, and `np.linalg.svd(A)[1]` is
`np.linalg.svd(A).S`. The parts' formulas are srcad/runtime/spectral_runtime.py's.

| primitive                     | tangent                       | adjoint                       |
|-------------------------------|-------------------------------|-------------------------------|
| eigh(A).eigenvalues, eigvalsh | diag(V^T dA V)                | V diag(g) V^T, on A's triangle |
| eigh(A).eigenvectors          | V (F * (V^T dA V))            | V (F * (V^T g)) V^T, the same |
| svd(A).S, compute_uv=False    | diag(U^T dA V)                | U diag(g) V^T                 |
| svd(A).U, .Vh                 | Townsend's formulas           | their transposes              |
| qr(A).Q, .R (rows >= columns) | dQ = Q (D - C) + X, dR = (C - D) R | their transposes         |
| pinv(A) (P)                   | -P dA P + P P^T dA^T (I - A P) + (I - P A) dA^T P^T P      |
| lstsq(A, b)[0] (x = P b)      | dP b + P db                   | pinv's adjoint of g b^T, P^T g |
| cond(A) (s[0] / s[-1])        | (ds[0] - ans ds[-1]) / s[-1]  | the transpose                 |

At repeated eigenvalues or singular values the vectors have no derivative (inf or nan, as
JAX); U and Vh with full_matrices=True of a matrix that is not square are refused when the
derivative runs (their extra columns are not unique: JAX refuses them too).
numba: eigh and eigvalsh of one matrix compile (srcad/runtime/numba_spectral.py); the others
run on the python backend, and the numba backend refuses them by name.
"""

from __future__ import annotations

import numpy as np

from srcad.errors import SrcadError
from srcad.rules.rule_type import linear
from srcad.runtime.spectral_runtime import LeastSquares, lstsq_parts

NUMBA_REFUSAL = ("`{name}`'s derivative runs on the python backend: the numba backend "
                 "refuses it")


def numba_refusal(fn) -> str:
    """Why the numba backend refuses the derivative of `fn` ("": it compiles it, for one
    matrix: srcad/runtime/numba_spectral.py)."""
    if fn in (np.linalg.eigh, np.linalg.eigvalsh, np.linalg.svd, np.linalg.qr, np.linalg.pinv,
              np.linalg.cond, np.linalg.lstsq, lstsq_parts):
        return ""
    return NUMBA_REFUSAL.format(name=f"np.linalg.{fn.__name__}")


def _matrix(name, ranks, stacks=True):
    if ranks[0] < 2 or (ranks[0] > 2 and not stacks):
        raise SrcadError(f"np.linalg.{name} of an array of rank {ranks[0]}", construct=name,
                         hint=f"np.linalg.{name} takes a matrix" + (" or a stack of them"
                                                                   if stacks else ""))


def _uplo(name, keywords):
    uplo = keywords.get("UPLO", "L")
    if uplo not in ("L", "U"):
        raise SrcadError(f"np.linalg.{name} with UPLO={uplo!r}", construct=name,
                         hint="UPLO is 'L' or 'U'")
    return uplo


def eigenvalues(ranks, keywords, name="eigvalsh"):
    """np.linalg.eigvalsh(A, UPLO='L') and np.linalg.eigh(A).eigenvalues."""
    _matrix(name, ranks)
    uplo = _uplo(name, keywords)
    return linear(name, "x", (f"eigh_tangent(x, g, {uplo!r}, 0)",
                              f"eigh_adjoint(x, g, {uplo!r}, 0)"),
                  shape="x_shape[:-1]", rank=ranks[0] - 1)


def eigenvectors(ranks, keywords):
    """np.linalg.eigh(A).eigenvectors."""
    _matrix("eigh", ranks)
    uplo = _uplo("eigh", keywords)
    return linear("eigenvectors", "x", (f"eigh_tangent(x, g, {uplo!r}, 1)",
                                        f"eigh_adjoint(x, g, {uplo!r}, 1)"),
                  shape="x_shape", rank=ranks[0])


def _svd_part(part):
    """A `select` for part `part` (U 0, S 1, Vh 2) of np.linalg.svd(A)."""
    def select(ranks, keywords):
        _matrix("svd", ranks)
        if keywords.get("hermitian"):
            raise SrcadError("np.linalg.svd with hermitian=True", construct="svd",
                             hint="leave hermitian out (or use np.linalg.eigh)")
        full = bool(keywords.get("full_matrices", True))
        k = "min(x_shape[-2:])"
        shape = {0: f"x_shape[:-1] + ({k},)", 1: f"x_shape[:-2] + ({k},)",
                 2: f"x_shape[:-2] + ({k}, x_shape[-1])"}[part]
        if full and part != 1:  # square: the same shape (other shapes are refused by it)
            shape = "x_shape"
        return linear(("U", "S", "Vh")[part], "x", (f"svd_tangent(x, g, {full}, {part})",
                                                   f"svd_adjoint(x, g, {full}, {part})"),
                      shape=shape, rank=ranks[0] - (part == 1))
    return select


def svd(ranks, keywords):
    """np.linalg.svd(A, compute_uv=False): the singular values (with compute_uv=True the
    result is a tuple, whose parts are read: `U, S, Vh = np.linalg.svd(A)`)."""
    if keywords.get("compute_uv", True):
        raise SrcadError("np.linalg.svd's tuple used whole", construct="svd",
                         hint="unpack it (U, S, Vh = np.linalg.svd(A)), index it "
                         "(np.linalg.svd(A)[1]), or pass compute_uv=False")
    return _svd_part(1)(ranks, keywords)


def eigh(ranks, keywords):
    """np.linalg.eigh(A) whole: a tuple, read by its parts."""
    raise SrcadError("np.linalg.eigh's tuple used whole", construct="eigh",
                     hint="unpack it (w, v = np.linalg.eigh(A)) or index it "
                     "(np.linalg.eigh(A)[0])")


def _qr_part(part):
    """A `select` for part `part` (Q 0, R 1) of np.linalg.qr(A), mode='reduced'."""
    def select(ranks, keywords):
        _matrix("qr", ranks)
        if keywords.get("mode", "reduced") != "reduced":
            raise SrcadError(f"np.linalg.qr with mode={keywords['mode']!r}", construct="qr",
                             hint="srcad differentiates mode='reduced' (the default)")
        shape = "x_shape[:-1] + (min(x_shape[-2:]),)" if part == 0 else \
            "x_shape[:-2] + (min(x_shape[-2:]), x_shape[-1])"
        return linear(("Q", "R")[part], "x", (f"qr_tangent(x, g, {part})",
                                              f"qr_adjoint(x, g, {part})"),
                      shape=shape, rank=ranks[0])
    return select


def qr(ranks, keywords):
    """np.linalg.qr(A) whole: a tuple, read by its parts."""
    raise SrcadError("np.linalg.qr's tuple used whole", construct="qr",
                     hint="unpack it (Q, R = np.linalg.qr(A)) or index it")


_P = "np.linalg.pinv(x)"


def _pinv_parts(stacked):
    """The transpose (of the last two axes, for a stack of matrices) and the identities of
    A's row and column counts (broadcast against a stack)."""
    def transposed(e):
        return f"np.swapaxes({e}, -1, -2)" if stacked else f"{e}.T"
    rows, columns = ("x_shape[-2]", "x_shape[-1]") if stacked else ("x_shape[0]", "x_shape[1]")
    return transposed, f"np.eye({rows})", f"np.eye({columns})"


def _pinv_adjoint(seed, stacked=False) -> str:
    """The adjoint of A for the seed `seed` of P = pinv(A) (the transpose of the tangent)."""
    t, i_m, i_n = _pinv_parts(stacked)
    return (f"(-({t(_P)} @ {seed} @ {t(_P)}) + ({i_m} - x @ {_P}) @ {t(seed)} @ {_P} @ "
            f"{t(_P)} + {t(_P)} @ {_P} @ {t(seed)} @ ({i_n} - {_P} @ x))")


def _pinv_tangent(seed, stacked=False) -> str:
    t, i_m, i_n = _pinv_parts(stacked)
    return (f"(-({_P} @ {seed} @ {_P}) + {_P} @ {t(_P)} @ {t(seed)} @ ({i_m} - x @ {_P})"
            f" + ({i_n} - {_P} @ x) @ {t(seed)} @ {t(_P)} @ {_P})")


def pinv(ranks, keywords):
    """np.linalg.pinv(A) of a matrix or a stack of them, differentiable where A's rank does
    not change."""
    _matrix("pinv", ranks)
    if keywords.get("hermitian"):
        raise SrcadError("np.linalg.pinv with hermitian=True", construct="pinv",
                         hint="leave hermitian out")
    stacked = ranks[0] > 2
    shape = "x_shape[::-1]" if not stacked else "x_shape[:-2] + (x_shape[-1], x_shape[-2])"
    return linear("pinv", "x", (_pinv_tangent("g", stacked), _pinv_adjoint("g", stacked)),
                  shape=shape, rank=ranks[0])


def cond(ranks, keywords):
    """np.linalg.cond(A, p=None): the largest singular value over the smallest."""
    _matrix("cond", ranks, stacks=False)
    if keywords.get("p") not in (None, 2):
        raise SrcadError(f"np.linalg.cond with p={keywords['p']!r}", construct="cond",
                         hint="srcad differentiates cond with p=None or 2 (write the norms "
                         "out for another p: np.linalg.norm(A, p) * np.linalg.norm(inv(A), p))")
    return linear("cond", "x", ("cond_tangent(x, g, ans)", "cond_adjoint(x, g, ans)"),
                  shape="()", rank=0)


def lstsq_solution(ranks, keywords):
    """np.linalg.lstsq(A, b, rcond)[0]: the solution P b (P = pinv(A)), differentiable where
    A's rank does not change; its tangent is dP b + P db."""
    _matrix("lstsq", ranks, stacks=False)
    if ranks[1] not in (1, 2):
        raise SrcadError(f"np.linalg.lstsq with b of rank {ranks[1]}", construct="lstsq",
                         hint="b is a vector or a matrix of right-hand sides")
    outer = "np.outer(g, y)" if ranks[1] == 1 else "(g @ y.T)"
    return linear("lstsq", "x y", (f"({_pinv_tangent('g')} @ y)", _pinv_adjoint(outer)),
                  (f"{_P} @ g", f"{_P}.T @ g"), shape="x_shape[1:] + y_shape[1:]",
                  rank=ranks[1])


def lstsq_residuals(ranks, keywords):
    """np.linalg.lstsq(A, b)[1]: the squared residuals |A x - b|^2 per column of b (NumPy
    gives them where A has full column rank and more rows than columns, else none). At the
    least-squares x, A^T (A x - b) = 0, so x's own change drops out: 2 r^T dA x - 2 r^T db."""
    _matrix("lstsq", ranks, stacks=False)
    r = f"(x @ ({_P} @ y) - y)"
    solution = f"({_P} @ y)"
    if ranks[1] == 1:
        full = "np.ones(ans.shape)"
        pairs = ((f"np.sum(2.0 * {r} * (g @ {solution})) * {full}",
                  f"2.0 * np.sum(g) * np.outer({r}, {solution})"),
                 (f"-2.0 * np.sum({r} * g) * {full}", f"-2.0 * np.sum(g) * {r}"))
        shape = "(1,)"
    else:
        padded = "np.pad(g, (0, y_shape[1] - g.shape[0]))"  # no residuals: a zero seed
        pairs = ((f"np.sum(2.0 * {r} * (g @ {solution}), axis=0)[:ans.shape[0]]",
                  f"2.0 * ({r} * {padded}) @ {solution}.T"),
                 (f"-2.0 * np.sum({r} * g, axis=0)[:ans.shape[0]]", f"-2.0 * {r} * {padded}"))
        shape = "y_shape[1:]"
    return linear("lstsq", "x y", *pairs, shape=shape, rank=1)


def lstsq_singular_values(ranks, keywords):
    """np.linalg.lstsq(A, b)[3]: A's singular values (svd's), which b does not change."""
    _matrix("lstsq", ranks, stacks=False)
    return linear("lstsq", "x y", ("svd_tangent(x, g, False, 1)", "svd_adjoint(x, g, False, 1)"),
                  (None, None), shape="(min(x_shape),)", rank=1)


def lstsq_rank(ranks, keywords):
    """np.linalg.lstsq(A, b)[2]: an int, with no derivative."""
    return linear("lstsq", "x y", (None, None), (None, None), shape="()", rank=0)


# the functions the table adds: (function, select, keywords by position after the operands,
# positional operands, {part (attribute and index): select})
ENTRIES = [
    (np.linalg.eigvalsh, eigenvalues, ("UPLO",), 1, {}),
    (np.linalg.eigh, eigh, ("UPLO",), 1, {"eigenvalues": eigenvalues, 0: eigenvalues,
                                          "eigenvectors": eigenvectors, 1: eigenvectors}),
    (np.linalg.svd, svd, ("full_matrices", "compute_uv", "hermitian"), 1,
     {"U": _svd_part(0), 0: _svd_part(0), "S": _svd_part(1), 1: _svd_part(1),
      "Vh": _svd_part(2), 2: _svd_part(2)}),
    (np.linalg.qr, qr, ("mode",), 1, {"Q": _qr_part(0), 0: _qr_part(0), "R": _qr_part(1),
                                      1: _qr_part(1)}),
    (np.linalg.pinv, pinv, ("rcond", "hermitian"), 1, {}),
    (np.linalg.cond, cond, ("p",), 1, {}),
    (lstsq_parts, lstsq_solution, ("rcond",), 2,
     {"solution": lstsq_solution, 0: lstsq_solution, "residuals": lstsq_residuals,
      1: lstsq_residuals, "rank": lstsq_rank, 2: lstsq_rank,
      "singular_values": lstsq_singular_values, 3: lstsq_singular_values}),
    (np.linalg.lstsq, lstsq_solution, ("rcond",), 2, {}),  # read as lstsq_parts (desugar)
]
# the parts of a tuple a program unpacks (`w, v = np.linalg.eigh(A)`: desugar.py)
FIELDS = {np.linalg.eigh: ("eigenvalues", "eigenvectors"), np.linalg.svd: ("U", "S", "Vh"),
          np.linalg.qr: ("Q", "R"), lstsq_parts: LeastSquares._fields}
