"""Forward mode of srcad's own tapes: when generated reverse code is differentiated again,
an active tape (a Python list of floats) carries a list of tangents alongside, pushed and
popped in step with it. A mixin of `ForwardTransform` (transform/forward/transform.py); python
backend only.
"""

from __future__ import annotations

import gast

from srcad.analysis.types import Array, stack_call
from srcad.frontend import syntax as S
from srcad.transform.expressions import ExpressionDiff
from srcad.transform.forward.styles import Looped, Stacked
from srcad.transform.forward.views import is_view


class StackTangents:
    def stack_push(self, stmt):
        stack, method = stack_call(stmt.value)
        if stack not in self.active:
            return [stmt]
        if isinstance(self.styles[0], Looped):
            raise self.norm.parsed.error(stmt, "tape", "differentiating generated reverse code "
                                         "is supported by the python backend only")
        out = [stmt]
        for k in range(len(self.styles)):
            shadow = S.name(self.tangent_name(k, stack))
            if method == "pop":
                out.append(S.expr_stmt(gast.Call(
                    func=gast.Attribute(value=shadow, attr="pop", ctx=gast.Load()), args=[],
                    keywords=[])))
                continue
            value = stmt.value.args[0]
            tangent = S.const(0.0)
            if self.active_leaf(value) or not S.is_leaf(value):
                diff = ExpressionDiff(self.norm, self.namer, self.active_leaf, types=self.types)
                tangent = diff.tangent(value, self.leaf_tangent(k), diff.prepare(value)) \
                    or S.const(0.0)
                if is_view(tangent) and (isinstance(self.types.of(value), Array)
                                         or isinstance(self.styles[k], Stacked)):
                    # the tape keeps a value as it is now (`np.copy(y[1:])`, `x[0]`): its
                    # tangent too, not a view of a tangent array written later
                    tangent = gast.Call(func=gast.Attribute(value=tangent, attr="copy",
                                                            ctx=gast.Load()),
                                        args=[], keywords=[])
            out.append(S.expr_stmt(gast.Call(
                func=gast.Attribute(value=shadow, attr="append", ctx=gast.Load()),
                args=[tangent], keywords=[])))
        return out

    def stack_assign(self, stmt, target, value):
        """`tape = []` and `v = tape.pop()` with an active tape."""
        out = [stmt]
        method = stack_call(value)
        for k in range(len(self.styles)):
            if isinstance(value, gast.List):
                if target.id in self.active:
                    out.append(S.assign(S.name(self.tangent_name(k, target.id)),
                                        gast.List(elts=[], ctx=gast.Load())))
                continue
            pop = gast.Call(func=gast.Attribute(value=S.name(self.tangent_name(k, method[0])),
                                                attr="pop", ctx=gast.Load()),
                            args=[], keywords=[])
            if isinstance(target, gast.Name) and target.id in self.active:
                out.append(S.assign(self.target_tangent(k, target), pop))
                self.unset.write(target.id)
            else:
                out.append(S.expr_stmt(pop))
        return out
