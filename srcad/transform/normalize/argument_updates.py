"""`p += e` on an array that other names may share (an argument: the caller's array; a name
bound to one, `q = p`; a view, `q = p[1:]`) as NumPy runs it: in place, the whole array.

NumPy's `p += e` is `p[:] += e` for an array of one or more dimensions: `e` broadcast into
p's shape, the result cast to p's dtype, p's memory written (the caller sees it, as every
alias does) and p bound to the same array again. srcad writes it so, as the slice update it
differentiates like any in-place write of an argument (`-=`, `*=` and `/=` too). Updates of
a local array no other name can share were made `acc = acc + e` before
(srcad/transform/normalize/array_params.py); in forward mode, `p += e` and `p -= e` on an
argument nothing shares stay as written (the tangent updated in place beside the value).

>>> import gast
>>> from srcad.frontend import syntax as S
>>> stmt = S.parse_stmts("p *= 2.0")[0]
>>> S.unparse_expr(_sliced(stmt).target)
'p[:]'
"""

from __future__ import annotations

import gast

from srcad.analysis.array_bindings import unshared_argument_updates
from srcad.analysis.types import Array
from srcad.frontend import syntax as S

_WHOLE_ARRAY_OPS = (gast.Add, gast.Sub, gast.Mult, gast.Div, gast.Pow)


def update_shared_arrays_in_place(norm, types, active: set, forward: bool = False) -> None:
    """Make each `a op= e` (op one of + - * / **) on an active array `a` that is still written
    so `a[:] op= e` (those of `unshared_argument_updates` kept with + and - in forward
    mode)."""
    kept = unshared_argument_updates(norm) if forward else set()

    def updates(node) -> bool:
        if not (isinstance(node, gast.AugAssign) and isinstance(node.target, gast.Name)
                and isinstance(node.op, _WHOLE_ARRAY_OPS)):
            return False
        name = node.target.id
        return name in active and isinstance(types[name], Array) \
            and not (name in kept and isinstance(node.op, (gast.Add, gast.Sub)))

    for stmt in norm.body:
        for node in S.walk(stmt):
            if updates(node):
                _sliced(node)


def _sliced(node):
    """`node` (`a op= e`) made `a[:] op= e`, in place."""
    whole = gast.Slice(lower=None, upper=None, step=None)
    node.target = gast.copy_location(gast.Subscript(
        value=S.name(node.target.id), slice=whole, ctx=gast.Store()), node.target)
    for sub in S.walk(node.target):
        gast.copy_location(sub, node)
    return node
