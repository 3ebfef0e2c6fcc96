"""Adjoint sums into a loop-invariant element kept in a local: in a reverse loop,
`a_bar[i] += e` with `i` the same on every iteration becomes `acc += e`, and
`a_bar[i] += acc` after the loop (when it ran).

Guarantees: the element receives the same terms (added in another order: the last bits may
differ). Applied only where nothing else in the loop can see the element: the array is a local
adjoint no parameter shares (its alias class, `array_aliases` of the generated code, has no
parameter), the loop binds neither it nor a name of the index, and every other use of it or of
an array that may share its elements inside the loop is itself a sum `x[j] += e` (sums commute).
Loops with `break`, `continue` or `return` are left alone. Worth it in numba: the compiler
cannot keep the element in a register across iterations that write other arrays it cannot
prove distinct (gmm's triangle loop, `xcentered_bar[i] += l[idx] * qx_bar`).
"""

from __future__ import annotations

import gast

from srcad import syntax as S
from srcad.analysis.recording import array_aliases


def sums_in_locals(body: list, context: list, params: set, scalar_element, namer) -> list:
    """`body` (statements of the reverse sweep; its loops are changed in place) with the
    invariant sums of its loops kept in locals. `context`: the whole generated function body
    (where arrays are bound); `scalar_element(name, index)`: does `name[index]` read one number
    (not a row)?"""
    aliases = array_aliases(context)

    def shared(name) -> set:
        return {name} | aliases.get(name, set())

    def visit(block):
        out = []
        for stmt in block:
            for field in ("body", "orelse"):
                sub = getattr(stmt, field, None)
                if isinstance(sub, list):
                    setattr(stmt, field, visit(sub))
            if isinstance(stmt, gast.For):
                out += _rewrite(stmt, params, shared, scalar_element, namer)
            else:
                out.append(stmt)
        return out

    return visit(body)


def _rewrite(loop, params, shared, scalar_element, namer) -> list:
    if any(isinstance(n, (gast.Break, gast.Continue, gast.Return)) for n in gast.walk(loop)):
        return [loop]
    if not (isinstance(loop.iter, gast.Call) and isinstance(loop.iter.func, gast.Name)
            and loop.iter.func.id == "range"):
        return [loop]
    bound = {n.id for n in gast.walk(loop) if isinstance(n, gast.Name)
             and isinstance(n.ctx, gast.Store)}
    if S.loaded_names(loop.iter) & bound:
        return [loop]
    sums = {id(n.target) for n in gast.walk(loop) if isinstance(n, gast.AugAssign)
            and isinstance(n.op, gast.Add) and isinstance(n.target, gast.Subscript)}
    # names used in the loop other than as the array of a sum `x[j] += e`
    sum_arrays = {id(n.target.value) for n in gast.walk(loop)
                  if isinstance(n, gast.AugAssign) and id(n.target) in sums}
    seen = {n.id for n in gast.walk(loop) if isinstance(n, gast.Name) and id(n) not in sum_arrays}
    post, pre = [], []
    body = []
    for stmt in loop.body:
        target = stmt.target if isinstance(stmt, gast.AugAssign) else None
        if target is None or id(target) not in sums or not isinstance(target.value, gast.Name):
            body.append(stmt)
            continue
        name = target.value.id
        others = [s for s in loop.body if s is not stmt and isinstance(s, gast.AugAssign)
                  and isinstance(s.target, gast.Subscript)
                  and isinstance(s.target.value, gast.Name) and s.target.value.id == name]
        if name in params or shared(name) & params or name in bound or others \
                or S.loaded_names(target.slice) & bound or shared(name) & seen \
                or name in S.loaded_names(stmt.value) or not scalar_element(name, target.slice):
            body.append(stmt)
            continue
        acc = namer.fresh(f"{name}_sum")
        pre.append(S.assign(S.name(acc), S.const(0.0)))
        body.append(gast.AugAssign(target=S.name(acc, store=True), op=gast.Add(),
                                   value=stmt.value))
        post.append(gast.AugAssign(target=S.clone(target), op=gast.Add(), value=S.name(acc)))
    if not post:
        return [loop]
    loop.body = body
    ran = gast.Compare(left=S.call("len", S.clone(loop.iter)), ops=[gast.Gt()],
                       comparators=[S.const(0)])
    return pre + [loop, gast.If(test=ran, body=post, orelse=[])]

