"""An element or slice of a computed array gets its array named first.

`np.mean(X, axis=0)[1]`, `(A @ x)[0]`, `np.sum(X, axis=1)[i]`, `np.cumsum(x)[-1]`,
`(2.0 * x)[1:]`, `X.T[0]` read part of an array that no variable holds, and srcad reads back
only parts of array variables. Each such array is bound to a fresh variable just before the
statement (`mean = np.mean(X, axis=0)`, then `mean[1]`), which is what the user would write:
from there the ordinary rules of array bindings and subscripts apply in every mode, and the
array is computed once, where Python computes it.

Only expressions that are arrays whenever they can be subscripted are named: arithmetic
(`a * x`, `-x`, `A @ x`), `x.T`, and calls of the array primitives of the rule table
(srcad/analysis/primitives.py `array_call`). Other subscripted values (a tuple a library call
returns, `x.shape[0]`) are left as written. Like the library calls of
srcad/transform/normalize/stage.py, a part of an expression Python evaluates only on some
paths (an arm of `a if c else b`, the right of `and`/`or`) is left where it is (naming it
would compute it on every path; srcad/analysis/activity.py refuses such a read when it carries
a derivative, with its line), and so is a `while` test, evaluated once per iteration (a test
carries no derivative and reads the element as it is).
"""

from __future__ import annotations

from types import SimpleNamespace

import gast

from srcad.analysis.primitives import array_call
from srcad.errors import SrcadError
from srcad.frontend import syntax as S


def name_computed_arrays(parsed, body: list, namer, extra: dict) -> list:
    """`body` with each subscripted computed array bound to a fresh name before its
    statement (assignments, augmented assignments, returns and `if` tests, in every block)."""
    where = SimpleNamespace(parsed=parsed, extra_names=extra)
    out = []
    for stmt in body:
        if isinstance(stmt, (gast.For, gast.While, gast.If)):
            stmt.body = name_computed_arrays(parsed, stmt.body, namer, extra)
            stmt.orelse = name_computed_arrays(parsed, stmt.orelse, namer, extra)
        namer_ = _Namer(where, namer)
        if isinstance(stmt, (gast.Assign, gast.AugAssign, gast.Return)) \
                and stmt.value is not None:
            stmt.value = namer_.visit(stmt.value)
        elif isinstance(stmt, gast.If):
            stmt.test = namer_.visit(stmt.test)
        out.extend(gast.copy_location(b, stmt) for b in namer_.bound)
        out.append(stmt)
    return out


def _is_computed_array(where, node) -> bool:
    if isinstance(node, (gast.BinOp, gast.UnaryOp)):
        return not isinstance(node, gast.UnaryOp) or not isinstance(node.op, gast.Not)
    if isinstance(node, gast.Attribute) and node.attr != "T":
        return False
    if isinstance(node, (gast.Attribute, gast.Call)):
        try:
            return array_call(where, node) is not None
        except SrcadError:  # refused where the call is typed, with its line
            return False
    return False


class _Namer(S.AlwaysEvaluated):
    def __init__(self, where, namer):
        self.where, self.namer, self.bound = where, namer, []

    def visit_Subscript(self, node):
        self.generic_visit(node)
        if isinstance(node.ctx, gast.Load) and _is_computed_array(self.where, node.value):
            name_ = self.namer.fresh(_stem(node.value))
            self.where.parsed.expressions[name_] = S.clone(node.value)  # for messages
            self.bound.append(S.assign(S.name(name_), node.value))
            node.value = gast.copy_location(S.name(name_), node.value)
        return node


def _stem(node) -> str:
    """A readable name for the array: the function's (`mean`), else `computed`."""
    func = node.func if isinstance(node, gast.Call) else None
    if isinstance(func, gast.Attribute):
        return func.attr
    if isinstance(func, gast.Name):
        return func.id
    if isinstance(node, gast.BinOp) and isinstance(node.op, gast.MatMult):
        return "product"
    return "computed"
