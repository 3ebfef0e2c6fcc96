"""The leaves of an expression the reverse sweep reads, and reading them from the tape.

`index_leaves`: the values an index reads (names outside subscripts, subscripts, and `len(x)`
calls, which read only a shape); `replaced`: a copy of an expression reading the taped copies
`ReverseRecording._record` made of its recorded values.
"""

from __future__ import annotations

import gast

from srcad.frontend import syntax as S


def from_dump(key, expr):
    """The node of `expr` whose gast.dump is `key` (None for a value `expr` does not read, such
    as an index of the assignment's target)."""
    return next((n for n in gast.walk(expr) if gast.dump(n) == key), None)


def replaced(node, subst: dict):
    """A copy of `node` reading the taped copies `subst` ({gast.dump: name}, from `_record`)
    wherever it reads a recorded value, the outermost first: `x[idx[0]]` with `idx[0]` taped
    reads `x[idx_value]` (idx may have changed since), and `x_bar[idx_value]` takes its
    adjoint."""
    if not subst:
        return S.clone(node)

    class Replace(gast.NodeTransformer):
        def visit(self, n):
            found = subst.get(gast.dump(n)) if isinstance(n, gast.expr) else None
            return S.clone(found) if found is not None else self.generic_visit(n)

    return Replace().visit(S.clone(node))


def index_leaves(index) -> list:
    out = length_reads(index)
    inside = {id(call.args[0]) for call in out}
    for n in gast.walk(index):
        if id(n) in inside:
            continue
        if isinstance(n, gast.Subscript) or (isinstance(n, gast.Name)
                                              and not inside_subscript(n, index)):
            out.append(n)
    return out


def length_reads(expr) -> list:
    """The `len(x)` calls in `expr` outside subscripts: leaves that read only a shape (an
    array whose elements are written later is still readable through them)."""
    return [n for n in gast.walk(expr) if isinstance(n, gast.Call)
            and isinstance(n.func, gast.Name) and n.func.id == "len" and len(n.args) == 1
            and not n.keywords and isinstance(n.args[0], gast.Name)
            and not inside_subscript(n, expr)]


def inside_subscript(name, root) -> bool:
    for n in S.nodes(root):
        if isinstance(n, gast.Subscript) and any(c is name for c in S.nodes(n)):
            return True
    return False
