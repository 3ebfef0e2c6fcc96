"""Arrays bound to a whole-array expression and then written element by element.

`y = np.exp(x); y[0] = 1.0; for i ...: y[i] = y[i] + 0.5 * y[i - 1]`: NumPy makes a new array
for `np.exp(x)`, and the writes change that array. srcad differentiates an array either
through the whole-array rules (an array bound to expressions) or element by element (an array
bound to an allocation: a constructor or a copy), so such a binding becomes two: the
expression's value under a name of its own, and the written array a copy of it
(`y_value = np.exp(x); y = y_value.copy()`). Nothing else can hold the expression's new
array, so the copy computes what NumPy computes.

Guarantees: only bindings of a name whose elements some statement writes (`y[i] = ...`,
`y[1:] += ...`, or through a chain of views of it: `v = y[1:]; t = v[1:]; t[0] = c`) are
touched, and only those to an expression that makes a new array (an
arithmetic operation, or a call of a NumPy function srcad has a rule for that is not a view
of its argument); a name, a subscript, `x.T`, `x.reshape(...)` or a conditional expression
may share memory with another array and stays as written (transform/normalize/aliases.py
and views.py follow those).
"""

from __future__ import annotations

import gast

from srcad.analysis.array_bindings import is_allocation, is_growth, viewed_array
from srcad.analysis.primitives import array_call
from srcad.analysis.types import Array, Types
from srcad.frontend import syntax as S
from srcad.transform.normalize.array_rows import each_statement


def copy_written_results(norm, arg_types: dict) -> bool:
    """Bind each element-written array's expression values to names of their own, the
    array to copies of them (module docstring); True if any binding was changed."""
    written = _through_views(norm, _element_written(norm.body))
    if not written:
        return False
    types = Types(norm, arg_types, check=False)
    candidates = {n for n in written if isinstance(types[n], Array)}
    changed = False

    def rewrite(stmt) -> list:
        nonlocal changed
        if not (isinstance(stmt, gast.Assign) and len(stmt.targets) == 1
                and isinstance(stmt.targets[0], gast.Name)
                and stmt.targets[0].id in candidates and _makes_new_array(norm, stmt)):
            return [stmt]
        name = stmt.targets[0].id
        value_name = norm.namer.fresh(f"{name}_value")
        first = S.assign(S.name(value_name), stmt.value)
        copied = S.assign(S.name(name), gast.Call(
            func=gast.Attribute(value=S.name(value_name), attr="copy", ctx=gast.Load()),
            args=[], keywords=[]))
        changed = True
        return [gast.copy_location(first, stmt), gast.copy_location(copied, stmt)]

    norm.body = each_statement(norm.body, rewrite)
    return changed


def _element_written(body) -> set:
    """Names whose elements or slices some statement stores into."""
    out = set()
    for stmt in body:
        for node in S.nodes(stmt):
            targets = node.targets if isinstance(node, gast.Assign) else \
                [node.target] if isinstance(node, gast.AugAssign) else []
            out.update(t.value.id for t in targets
                       if isinstance(t, gast.Subscript) and isinstance(t.value, gast.Name))
    return out


def _through_views(norm, written) -> set:
    """`written` with the arrays each written name is a view of, through chains of views
    (`v = a[1:]; t = v[1:]; t[0] = c` writes `a`)."""
    viewed: dict = {}
    for stmt in norm.body:
        for node in S.nodes(stmt):
            if isinstance(node, gast.Assign) and len(node.targets) == 1 \
                    and isinstance(node.targets[0], gast.Name):
                base = viewed_array(norm, node.value)
                if base is not None and base != node.targets[0].id:
                    viewed.setdefault(node.targets[0].id, set()).add(base)
    out, todo = set(written), list(written)
    while todo:
        for base in viewed.get(todo.pop(), ()):
            if base not in out:
                out.add(base)
                todo.append(base)
    return out


def _makes_new_array(norm, stmt) -> bool:
    value = stmt.value
    if is_allocation(norm, value) or is_growth(stmt) or viewed_array(norm, value) is not None:
        return False
    if isinstance(value, (gast.BinOp, gast.UnaryOp)):
        return True
    return isinstance(value, gast.Call) and array_call(norm, value) is not None
