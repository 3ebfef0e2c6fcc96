"""scipy.linalg.cho_factor's tuple written out, so that its factor is an array with a rule:

    scipy.linalg.cho_factor(a, lower=True)  ->  (cho_factor_matrix(a, True), True)
    scipy.linalg.cho_solve((c, low), b)     ->  cho_solve_matrix(c, b, low)
    scipy.linalg.lu_factor(a)               ->  (lu_factor_matrix(a), lu_pivots(a))
    scipy.linalg.lu_solve((lu, piv), b, t)  ->  lu_solve_matrix(lu, piv, b, trans=t)

Unpacking the tuple (`c, low = cho_factor(a)`) and passing it on (`cho_solve(cho_factor(a),
b)`) then read as any tuple written out. Only a literal `lower=` (or none) and no keyword
SciPy may use to overwrite its input are rewritten (lu_solve: a literal `trans=`); any other
form is left as it is (refused by name when its argument carries a derivative).
"""

from __future__ import annotations

import gast

from srcad.frontend import syntax as S
from srcad.runtime.scipy_factors import cho_factor_matrix, cho_solve_matrix
from srcad.runtime.scipy_lu import lu_factor_matrix, lu_pivots, lu_solve_matrix

RUNTIME = {f.__name__: f for f in (cho_factor_matrix, cho_solve_matrix, lu_factor_matrix,
                                   lu_pivots, lu_solve_matrix)}
SPELLINGS = {"cho_factor_matrix": "scipy.linalg.cho_factor",
             "cho_solve_matrix": "scipy.linalg.cho_solve",
             "lu_factor_matrix": "scipy.linalg.lu_factor",
             "lu_pivots": "scipy.linalg.lu_factor", "lu_solve_matrix": "scipy.linalg.lu_solve"}


def _is(function, name) -> bool:
    return getattr(function, "__name__", None) == name and \
        getattr(function, "__module__", "").startswith("scipy.linalg")


def factor_call(node, function):
    """The call `node` of `function` written out, or None to leave it as it is."""
    keywords = {k.arg: k.value for k in node.keywords}
    if _is(function, "cho_factor") and len(node.args) in (1, 2) \
            and set(keywords) <= {"lower", "check_finite"}:
        lower = node.args[1] if len(node.args) == 2 else keywords.get("lower", S.const(False))
        if not (isinstance(lower, gast.Constant) and isinstance(lower.value, bool)):
            return None
        matrix = S.relocated(S.call("cho_factor_matrix", S.const(0), S.const(0)), node)
        matrix.args = [node.args[0], S.const(lower.value)]
        return gast.copy_location(gast.Tuple(elts=[matrix, S.const(lower.value)],
                                             ctx=gast.Load()), node)
    if _is(function, "cho_solve") and len(node.args) == 2 and set(keywords) <= \
            {"check_finite"} and isinstance(node.args[0], gast.Tuple) \
            and len(node.args[0].elts) == 2:
        (factor, lower), b = node.args[0].elts, node.args[1]
        solved = S.relocated(S.call("cho_solve_matrix", S.const(0), S.const(0), S.const(0)),
                             node)
        solved.args = [factor, b, lower]
        return solved
    return lu_call(node, function, keywords)


def _runtime_call(name, args, node, keywords=()):
    call = S.relocated(S.call(name, *[S.const(0) for _ in args]), node)
    call.args = list(args)
    call.keywords = list(keywords)
    return call


def lu_call(node, function, keywords):
    """scipy.linalg.lu_factor / lu_solve written out (above), or None."""
    if _is(function, "lu_factor") and len(node.args) == 1 and set(keywords) <= \
            {"check_finite"}:
        a = node.args[0]
        pivots = _runtime_call("lu_pivots", [S.clone(a)], node)
        pivots.droppable = True  # no effect: `(lu, piv)[0]` is lu (desugar.py)
        return gast.copy_location(gast.Tuple(elts=[
            _runtime_call("lu_factor_matrix", [a], node), pivots], ctx=gast.Load()), node)
    if _is(function, "lu_solve") and len(node.args) in (2, 3) and set(keywords) <= \
            {"trans", "check_finite"} and isinstance(node.args[0], gast.Tuple) \
            and len(node.args[0].elts) == 2:
        trans = node.args[2] if len(node.args) == 3 else keywords.get("trans", S.const(0))
        if not (isinstance(trans, gast.Constant) and trans.value in (0, 1, 2)):
            return None
        (factor, pivots), b = node.args[0].elts, node.args[1]
        spelled = gast.keyword(arg="trans", value=S.const(min(trans.value, 1)))
        return _runtime_call("lu_solve_matrix", [factor, pivots, b], node, [spelled])
    return None
