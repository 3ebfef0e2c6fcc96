"""The reads through index arrays and masks the numba backend does not compile, refused
naming the line (srcad/runtime/numba_scatter.py adds the gathers' adjoints it does)."""

from __future__ import annotations

import gast

from srcad.analysis.activity import differentiable_reads
from srcad.analysis.types import Array, index_kind
from srcad.frontend import syntax as S


def refuse_numba_indexing(norm, types, active: set, reverse: bool) -> None:
    """Refuse, naming the line, the reads through index arrays and masks the numba backend
    does not compile: a mask of rank above 1 (numba indexes with 1-D masks only), and in
    reverse mode a gather from an active array other than through one 1-D int array (into a
    vector or a matrix's rows) or two (a matrix's elements): its adjoint adds repeated
    indices up (`scatter_add`, numba's `np.add.at`). Forward mode compiles 1-D masks and
    gathers."""
    statements = [n for stmt in norm.body for n in S.walk(stmt) if isinstance(n, gast.stmt)]
    for stmt in statements:  # each statement's own expressions (not its body's)
        reads = [e for c in gast.iter_child_nodes(stmt) if isinstance(c, gast.expr)
                 for e in S.walk(c)]
        for e in reads:
            if not isinstance(e, gast.Subscript) or not isinstance(types.of(e.value), Array):
                continue
            kind = index_kind(types, e)
            parts = e.slice.elts if isinstance(e.slice, gast.Tuple) else [e.slice]
            indices = [types.of(p) for p in parts if not isinstance(p, gast.Slice)]
            if kind == "mask" and any(isinstance(t, Array) and t.ndim > 1 for t in indices):
                message = f"`{S.unparse_expr(e)}` reads through a mask of rank above 1; " \
                    "numba indexes with 1-D masks only"
                hint = "use backend='python'"
            elif kind == "gather" and reverse and differentiable_reads(e, norm) & active \
                    and not _scattered_back(types, e, parts, indices):
                message = f"`{S.unparse_expr(e)}` reads through index arrays mixed with " \
                    "ints, slices or more axes; the numba backend compiles the reverse of " \
                    "one 1-D int array into a vector or a matrix's rows, or of two into a " \
                    "matrix's elements"
                hint = "gather in a loop, or use backend='python'"
            else:
                continue
            norm.refusals.add(norm.parsed.error(stmt, "index array", message, hint=hint))
            break  # one refusal per statement


def _scattered_back(types, e, parts, indices) -> bool:
    """Does the numba backend add a gather's adjoint back (`scatter_add`,
    srcad/runtime/numba_scatter.py): one 1-D int array into a vector or a matrix's rows, two
    into a matrix's elements?"""
    base = types.of(e.value)
    if len(indices) != len(parts) or not all(isinstance(t, Array) and t.ndim == 1
                                             and not t.is_bool for t in indices):
        return False
    return (len(parts) == 1 and base.ndim in (1, 2)) or (len(parts) == 2 and base.ndim == 2)
