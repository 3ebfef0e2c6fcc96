"""scipy.linalg: solve_triangular (lower=, trans=, unit_diagonal=), cholesky (lower=), solve
(assume_a=, lower=), inv, det, expm, cho_factor/cho_solve and lu_factor/lu_solve (trans=);
x is the matrix a, y the right-hand side b, ans the result. Loaded only once the user's code
has imported scipy.linalg (srcad/rules/table.py), as scipy.special's family is.

| primitive (result X)          | tangent                        | adjoint (bb: b's adjoint)  |
|-------------------------------|--------------------------------|----------------------------|
| solve_triangular(a, b)        | -st(a, op(T(da)) @ X), st(a, db) | T(-op(bb X^T)), st(a^T, g) |
| cholesky(a, lower=True)       | as np.linalg.cholesky          | the same                   |
| cholesky(a) (U = L^T)         | the lower rule of a^T, transposed | the same                |
| solve(a, b, assume_a="gen")   | -solve(a, da @ X), solve(a, db) | -bb X^T, solve(a^T, g)    |
| solve(..., "sym", "pos")      | da's triangle mirrored         | -bb X^T folded on it       |
| inv(a), det(a)                | as np.linalg                   | as np.linalg               |
| expm(a)                       | expm_frechet(a, da)            | expm_frechet(a^T, g)       |
| cho_factor, cho_solve         | through the Cholesky factor    | the same                   |
| lu_factor(a) (packed L, U)    | L tril(F, -1) + triu(F) U      | srcad/runtime/scipy_lu.py  |
| lu_solve((lu, piv), b, trans) | -op(a)^-1 op(da) X, solve(db)  | through a = P L U          |

T(m) keeps the triangle SciPy reads (tril for lower=True, triu otherwise, without the
diagonal for unit_diagonal=True); op is the transpose for trans=1 ("T", "C": real arrays).
SciPy reads only that triangle of a, so the adjoint is zero off it: the derivative of what
SciPy computes, also for an a that is not triangular (or symmetric, for assume_a="sym"/"pos").
numba has no scipy.linalg: srcad/runtime/numba_linalg.py compiles these (expm:
srcad/runtime/numba_expm.py; lu_factor and lu_solve, LAPACK's getrf and getrs unblocked:
srcad/runtime/numba_lu.py).
"""

from __future__ import annotations

import scipy.linalg

from srcad.errors import SrcadError
from srcad.rules.decompositions import det as numpy_det
from srcad.rules.decompositions import inv as numpy_inv
from srcad.rules.rule_type import linear
from srcad.runtime.scipy_factors import cho_factor_matrix, cho_solve_matrix
from srcad.runtime.scipy_lu import lu_factor_matrix, lu_pivots, lu_solve_matrix

_L = "scipy.linalg."
NUMBA_REFUSAL = ("numba has no scipy.linalg: `{name}` is differentiated on the python "
                 "backend")
# compiled on the numba backend by srcad/runtime/numba_linalg.py (the others: NUMBA_REFUSAL)
IN_NUMBA = (scipy.linalg.solve_triangular, scipy.linalg.cholesky, scipy.linalg.solve,
            scipy.linalg.inv, scipy.linalg.det, cho_factor_matrix, cho_solve_matrix,
            # unpacked and passed written out, they are the two above
            # (srcad/transform/normalize/factor_calls.py)
            scipy.linalg.cho_factor, scipy.linalg.cho_solve,
            scipy.linalg.expm,  # srcad/runtime/numba_expm.py
            lu_factor_matrix, lu_solve_matrix,  # srcad/runtime/numba_lu.py
            scipy.linalg.lu_factor, scipy.linalg.lu_solve)


def numba_refusal(fn) -> str:
    """Why the numba backend refuses the derivative of `fn` ("": it compiles it)."""
    spelled = SPELLED.get(fn.__name__, fn.__name__)
    return "" if fn in IN_NUMBA else NUMBA_REFUSAL.format(name=f"scipy.linalg.{spelled}")


def _refuse_overwrite(name, keywords):
    for key in ("overwrite_a", "overwrite_b"):
        if keywords.get(key):
            raise SrcadError(f"scipy.linalg.{name} with {key}=True", construct=name,
                             hint=f"leave {key} out: SciPy may overwrite the array, whose "
                             "value the derivative reads")


def _matrix_and_rhs(name, ranks):
    if ranks[0] != 2 or ranks[1] not in (1, 2):
        raise SrcadError(f"scipy.linalg.{name} of arrays of ranks {tuple(ranks)}",
                         construct=name, hint="a square matrix and a vector or matrix of "
                         "right-hand sides (no stacks)")


def _triangle(expr, lower, unit=False) -> str:
    k = (", -1" if lower else ", 1") if unit else ""
    return f"np.{'tril' if lower else 'triu'}({expr}{k})"


def _outer(left, right, rhs_rank) -> str:
    """left right^T of two right-hand sides (vectors: np.outer)."""
    return f"np.outer({left}, {right})" if rhs_rank == 1 else f"({left} @ {right}.T)"


def solve_triangular(ranks, keywords):
    """scipy.linalg.solve_triangular(a, b, trans=0, lower=False, unit_diagonal=False)."""
    _matrix_and_rhs("solve_triangular", ranks)
    _refuse_overwrite("solve_triangular", keywords)
    trans = {0: 0, "N": 0, 1: 1, "T": 1, 2: 1, "C": 1}.get(keywords.get("trans", 0))
    if trans is None:
        raise SrcadError(f"scipy.linalg.solve_triangular with trans={keywords['trans']!r}",
                         construct="solve_triangular", hint="trans is 0, 1, 2, 'N', 'T' or 'C'")
    lower, unit = bool(keywords.get("lower", False)), bool(keywords.get("unit_diagonal", False))

    def solved(a, b, t):
        return f"{_L}solve_triangular({a}, {b}, trans={t}, lower={lower}, unit_diagonal={unit})"

    moved = _triangle("g", lower, unit)
    moved = f"{moved}.T" if trans else moved
    b_bar = solved("x", "g", 1 - trans)
    a_bar = _outer("ans", b_bar, ranks[1]) if trans else _outer(b_bar, "ans", ranks[1])
    return linear("solve_triangular", "x y",
                  (f"-{solved('x', f'{moved} @ ans', trans)}", f"-{_triangle(a_bar, lower, unit)}"),
                  (solved("x", "g", trans), b_bar), shape="y_shape", rank=ranks[1])


def cholesky(ranks, keywords):
    """scipy.linalg.cholesky(a, lower=False): the upper factor U (U^T U = a) by default."""
    if ranks[0] != 2:
        raise SrcadError(f"scipy.linalg.cholesky of an array of rank {ranks[0]}",
                         construct="cholesky", hint="a square matrix (no stacks)")
    _refuse_overwrite("cholesky", keywords)
    if keywords.get("lower", False):
        pair = ("cholesky_tangent(ans, g)", "cholesky_adjoint(ans, g)")
    else:
        pair = ("cholesky_tangent(ans.T, g.T).T", "cholesky_adjoint(ans.T, g.T).T")
    return linear("cholesky", "x", pair, shape="x_shape", rank=2)


_KINDS = {None: "gen", "gen": "gen", "general": "gen", "sym": "sym", "symmetric": "sym",
          "her": "sym", "hermitian": "sym", "pos": "sym", "positive definite": "sym",
          "upper triangular": "upper", "lower triangular": "lower", "diagonal": "diagonal"}


def solve(ranks, keywords):
    """scipy.linalg.solve(a, b, lower=False, assume_a=None): a read whole ("gen"), as its
    triangle mirrored ("sym", "her", "pos"), as a triangle or as its diagonal."""
    _matrix_and_rhs("solve", ranks)
    _refuse_overwrite("solve", keywords)
    if keywords.get("transposed"):
        raise SrcadError("scipy.linalg.solve with transposed=True", construct="solve",
                         hint="solve with a.T instead")
    assume = keywords.get("assume_a")
    kind = _KINDS.get(assume, "") if isinstance(assume, (str, type(None))) else ""
    if not kind:
        raise SrcadError(f"scipy.linalg.solve with assume_a={assume!r}", construct="solve",
                         hint="srcad reads assume_a 'gen', 'sym', 'her', 'pos', 'upper "
                         "triangular', 'lower triangular' and 'diagonal'")
    lower = bool(keywords.get("lower", False))
    spelled = "" if assume is None else f", assume_a={assume!r}"
    spelled += f", lower={lower}" if kind == "sym" else ""

    def solved(a, b, transposed=False):
        return f"{_L}solve({a}, {b}{spelled}{', transposed=True' if transposed else ''})"

    b_bar = solved("x", "g", transposed=kind != "sym")  # a mirrored is its own transpose
    full = f"-{_outer(b_bar, 'ans', ranks[1])}"
    if kind == "gen":
        moved, a_bar = "g", full
    elif kind == "sym":
        tri = "tril" if lower else "triu"
        moved = f"(np.{tri}(g) + np.{tri}(g, {-1 if lower else 1}).T)"
        a_bar = f"np.{tri}(({full}) + ({full}).T, {-1 if lower else 1}) + np.diag(np.diag({full}))"
    elif kind == "diagonal":
        moved, a_bar = "np.diag(np.diag(g))", f"np.diag(np.diag({full}))"
    else:
        moved, a_bar = _triangle("g", kind == "lower"), _triangle(full, kind == "lower")
    return linear("solve", "x y", (f"-{solved('x', f'{moved} @ ans')}", a_bar),
                  (solved("x", "g"), b_bar), shape="y_shape", rank=ranks[1])


def _no_overwrite(name, select):
    def checked(ranks, keywords):
        _refuse_overwrite(name, keywords)
        return select(ranks, keywords)
    return checked


def expm(ranks, keywords):
    """scipy.linalg.expm(a): its Frechet derivative, whose adjoint is the Frechet derivative
    at a^T."""
    if ranks[0] != 2:
        raise SrcadError(f"scipy.linalg.expm of an array of rank {ranks[0]}", construct="expm",
                         hint="a square matrix (no stacks)")
    return linear("expm", "x", (f"{_L}expm_frechet(x, g, compute_expm=False)",
                                f"{_L}expm_frechet(x.T, g, compute_expm=False)"),
                  shape="x_shape", rank=2)


def cho_factor(ranks, keywords):
    """cho_factor(a, lower)[0] (srcad's cho_factor_matrix): the Cholesky factor in one
    triangle, a's own entries in the other (SciPy leaves them: their derivative is 1)."""
    if ranks[0] != 2:
        raise SrcadError(f"scipy.linalg.cho_factor of an array of rank {ranks[0]}",
                         construct="cho_factor", hint="a square matrix (no stacks)")
    if keywords.get("lower"):
        pair = ("cholesky_tangent(np.tril(ans), g) + np.triu(g, 1)",
                "cholesky_adjoint(np.tril(ans), np.tril(g)) + np.triu(g, 1)")
    else:
        pair = ("cholesky_tangent(np.triu(ans).T, g.T).T + np.tril(g, -1)",
                "cholesky_adjoint(np.triu(ans).T, np.triu(g).T).T + np.tril(g, -1)")
    return linear("cho_factor", "x", pair, shape="x_shape", rank=2)


def cho_solve(ranks, keywords):
    """cho_solve((c, low), b) (srcad's cho_solve_matrix(c, b, low)): with T c's triangle and
    a = T T^T (low) or T^T T, X = a^-1 b; a's adjoint -b_bar X^T (S its symmetric sum)
    reaches T as tril(S T) or triu(T S)."""
    _matrix_and_rhs("cho_solve", ranks[:2])
    triangle = "(np.tril(x) if low else np.triu(x))"
    moved = "(np.tril(g) if low else np.triu(g))"
    product = (f"(({moved} @ {triangle}.T + {triangle} @ {moved}.T) if low else "
               f"({moved}.T @ {triangle} + {triangle}.T @ {moved}))")
    b_bar = "cho_solve_matrix(x, g, low)"
    full = f"(-{_outer(b_bar, 'ans', ranks[1])})"
    summed = f"({full} + {full}.T)"
    a_bar = f"(np.tril({summed} @ {triangle}) if low else np.triu({triangle} @ {summed}))"
    return linear("cho_solve", "x y low", (f"-cho_solve_matrix(x, {product} @ ans, low)", a_bar),
                  (b_bar, b_bar), (None, None), shape="y_shape", rank=ranks[1])


def lu_factor(ranks, keywords):
    """lu_factor(a)[0] (srcad's lu_factor_matrix): L and U packed (srcad/runtime/scipy_lu.py)."""
    if ranks[0] != 2:
        raise SrcadError(f"scipy.linalg.lu_factor of an array of rank {ranks[0]}",
                         construct="lu_factor", hint="a square matrix (no stacks)")
    return linear("lu_factor", "x", ("lu_factor_tangent(x, ans, g)",
                                     "lu_factor_adjoint(x, ans, g)"), shape="x_shape", rank=2)


def lu_solve(ranks, keywords):
    """lu_solve((lu, piv), b, trans) (srcad's lu_solve_matrix): b's adjoint solves the
    transposed system; lu's goes through a = P L U (srcad/runtime/scipy_lu.py)."""
    _matrix_and_rhs("lu_solve", (ranks[0], ranks[2]))
    trans = keywords.get("trans", 0)
    b_bar = f"lu_solve_matrix(x, p, g, trans={1 - trans})"
    return linear("lu_solve", "x p y", (f"lu_solve_tangent(x, p, g, ans, {trans})",
                                        f"lu_solve_adjoint(x, p, {b_bar}, ans, {trans})"),
                  (None, None), (f"lu_solve_matrix(x, p, g, trans={trans})", b_bar),
                  shape="y_shape", rank=ranks[2])


def _factor_whole(ranks, keywords):
    raise SrcadError("scipy.linalg.cho_factor's tuple kept whole, or cho_solve of it",
                     construct="cho_factor", hint="unpack it (c, low = "
                     "scipy.linalg.cho_factor(a)) and pass cho_solve the tuple written out, "
                     "cho_solve((c, low), b), or call cho_solve(cho_factor(a), b); lower= a "
                     "literal")


def _lu_whole(ranks, keywords):
    raise SrcadError("scipy.linalg.lu_factor's tuple kept whole, or lu_solve of it",
                     construct="lu_factor", hint="unpack it (lu, piv = "
                     "scipy.linalg.lu_factor(a)) and pass lu_solve the tuple written out, "
                     "lu_solve((lu, piv), b), or call lu_solve(lu_factor(a), b); trans= a "
                     "literal; leave overwrite_a/overwrite_b out")


_CHECKS = ("overwrite_a", "check_finite")
# (function, select, keywords by position after the operands, positional operands)
SHAPED = [
    (scipy.linalg.solve_triangular, solve_triangular,
     ("trans", "lower", "unit_diagonal", "overwrite_b", "check_finite"), 2),
    (scipy.linalg.cholesky, cholesky, ("lower",) + _CHECKS, 1),
    (scipy.linalg.solve, solve, ("lower", "overwrite_a", "overwrite_b", "check_finite",
                                 "assume_a", "transposed"), 2),
    (scipy.linalg.inv, _no_overwrite("inv", numpy_inv), _CHECKS, 1),
    (scipy.linalg.det, _no_overwrite("det", numpy_det), _CHECKS, 1),
    (scipy.linalg.expm, expm, (), 1),
    (cho_factor_matrix, cho_factor, ("lower",), 1),
    (cho_solve_matrix, cho_solve, (), 3),
    (scipy.linalg.cho_factor, _factor_whole, ("lower",) + _CHECKS, 1),
    (scipy.linalg.cho_solve, _factor_whole, ("overwrite_b", "check_finite"), 2),
    (lu_factor_matrix, lu_factor, (), 1),
    (lu_solve_matrix, lu_solve, ("trans",), 3),
    (scipy.linalg.lu_factor, _lu_whole, ("overwrite_a", "check_finite"), 1),
    (scipy.linalg.lu_solve, _lu_whole, ("trans", "overwrite_b", "check_finite"), 2),
]
# the runtime's calls by the names the user wrote (srcad/transform/normalize/factor_calls.py)
SPELLED = {"cho_factor_matrix": "cho_factor", "cho_solve_matrix": "cho_solve",
           "lu_factor_matrix": "lu_factor", "lu_solve_matrix": "lu_solve"}
# calls of the family whose results are ints (no derivative)
INTEGER_CALLS = (lu_pivots,)

