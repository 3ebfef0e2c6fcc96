"""Adjoint sums into a loop-invariant element kept in a local: in a reverse loop,
`a_bar[i] += e` with `i` the same on every iteration becomes `acc += e`, and
`a_bar[i] += acc` after the loop (when it ran).

Guarantees: the element receives the same terms (added in another order: the last bits may
differ). Applied only where nothing else can see the element while the loop runs: the array is
private, a local bound only to new zeros (`np.zeros`, `np.zeros_like`) and otherwise used only
through single elements `a_bar[k]`, so no view or other name shares it; the loop binds neither
it nor a name of the index (an index of names and arithmetic only), and every other use of it
inside the loop is itself a sum `a_bar[k] += e` (sums commute). The element is added to after
the loop only when the loop ran (its trip count taken before it). Loops with `break`,
`continue` or `return` are left alone. Worth it in numba: the compiler cannot keep the element
in a register across iterations that write other arrays it cannot prove distinct (gmm's
triangle loop, `xcentered_bar[i] += l[idx] * qx_bar`).
"""

from __future__ import annotations

import gast

from srcad.frontend import syntax as S


def sums_in_locals(body: list, context: list, params: set, scalar_element, namer) -> list:
    """`body` (statements of the reverse sweep; its loops are changed in place) with the
    invariant sums of its loops kept in locals. `context`: the whole generated function body
    (where arrays are bound); `scalar_element(name, index)`: does `name[index]` read one number
    (not a row)?"""
    def private(name) -> bool:
        return _private(name, context, scalar_element)

    def visit(block):
        out = []
        for stmt in block:
            for field in ("body", "orelse"):
                sub = getattr(stmt, field, None)
                if isinstance(sub, list):
                    setattr(stmt, field, visit(sub))
            if isinstance(stmt, gast.For):
                out += _rewrite(stmt, params, private, scalar_element, namer)
            else:
                out.append(stmt)
        return out

    return visit(body)


def _rewrite(loop, params, private, scalar_element, namer) -> list:
    if not (isinstance(loop.iter, gast.Call) and isinstance(loop.iter.func, gast.Name)
            and loop.iter.func.id == "range"):
        return [loop]
    if not any(isinstance(s, gast.AugAssign) and isinstance(s.op, gast.Add)
               and isinstance(s.target, gast.Subscript) and isinstance(s.target.value, gast.Name)
               for s in loop.body):
        return [loop]  # no sum of its own: no walk (each loop of a nest walked the nest)
    nodes = list(S.nodes(loop))  # one walk of the loop for every question below
    if any(isinstance(n, (gast.Break, gast.Continue, gast.Return)) for n in nodes):
        return [loop]
    names = [n for n in nodes if isinstance(n, gast.Name)]
    bound = {n.id for n in names if isinstance(n.ctx, gast.Store)}
    sum_nodes = [n for n in nodes if isinstance(n, gast.AugAssign)
                 and isinstance(n.op, gast.Add) and isinstance(n.target, gast.Subscript)]
    sums = {id(n.target) for n in sum_nodes}
    # names used in the loop other than as the array of a sum `x[j] += e`
    sum_arrays = {id(n.target.value) for n in sum_nodes}
    seen = {n.id for n in names if id(n) not in sum_arrays}
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
        if name in params or name in bound or others or name in seen \
                or not _plain_index(target.slice) or S.loaded_names(target.slice) & bound \
                or not scalar_element(name, target.slice) or not private(name):
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
    trips = namer.fresh("trips")
    pre.append(S.assign(S.name(trips), S.call("len", S.clone(loop.iter))))
    ran = gast.Compare(left=S.name(trips), ops=[gast.Gt()], comparators=[S.const(0)])
    return pre + [loop, gast.If(test=ran, body=post, orelse=[])]


def _plain_index(index) -> bool:
    """Names, constants and arithmetic only (no element read, call or attribute that the loop
    could change without binding a name)."""
    return all(isinstance(n, (gast.Name, gast.Constant, gast.BinOp, gast.UnaryOp, gast.Tuple,
                              gast.operator, gast.unaryop, gast.expr_context))
               for n in S.walk(index))


_NEW_ZEROS = {"zeros", "zeros_like"}


def _private(name, context, scalar_element) -> bool:
    """Is `name` bound only to new zeros and otherwise used only through single elements?"""
    elements = set()
    for node in S.walk(gast.Module(body=context, type_ignores=[])):
        if isinstance(node, gast.Subscript) and isinstance(node.value, gast.Name) \
                and node.value.id == name:
            if not scalar_element(name, node.slice):
                return False
            elements.add(id(node.value))
        elif isinstance(node, gast.Assign) and any(
                isinstance(t, gast.Name) and t.id == name for t in node.targets):
            call = node.value
            if not (len(node.targets) == 1 and isinstance(call, gast.Call)
                    and isinstance(call.func, gast.Attribute)
                    and isinstance(call.func.value, gast.Name) and call.func.value.id == "np"
                    and call.func.attr in _NEW_ZEROS):
                return False
            elements.add(id(node.targets[0]))
    return all(id(n) in elements for n in S.walk(gast.Module(body=context, type_ignores=[]))
               if isinstance(n, gast.Name) and n.id == name)

