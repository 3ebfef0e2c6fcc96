"""Writes through an index array, `y[idx] = v` and `y[idx] += v`, as NumPy runs them.

NumPy evaluates the right side whole, then assigns its entries to `y[idx[0]]`, `y[idx[1]]`,
... in order: a repeated index takes the last value written, and `y[idx] += v` is
`y[idx] = y[idx] + v` (the gather read before any write), so it does NOT accumulate over
repeated indices (`np.add.at` does). This pass writes exactly that, with the array rules
srcad already differentiates in every mode on both backends (a gather read, whole-array
arithmetic, element writes in a loop):

    y[idx] op= v   ->   idx_w = idx
                        y_new = y[idx_w] op v          (`= v`: np.zeros(len(idx_w)) + v)
                        for k in range(idx_w.shape[0]):
                            y[idx_w[k]] = y_new[k]

The whole right side broadcast against the gather makes NumPy's shape check (a `v` of
another length raises as NumPy does) and is a new array, so `v` sharing memory with `y`
reads what NumPy reads.

Guarantees: only a statement writing a 1-D float array variable through one 1-D int array
(not a mask, not with other indices) is rewritten; any other index-array write is left as
written (and refused by line later, srcad/analysis/type_refusals.py). Nothing is rewritten
when the function's module binds `np` to something other than NumPy.
"""

from __future__ import annotations

import gast
import numpy as np

from srcad.analysis.types import Array, Types
from srcad.frontend import syntax as S
from srcad.transform.normalize.array_rows import each_statement


def lower_index_array_writes(norm, arg_types: dict) -> bool:
    """Rewrite each write through an index array srcad lowers (module docstring) in
    `norm.body`; True if any was."""
    if not any(_written_subscript(node) is not None for stmt in norm.body
               for node in S.nodes(stmt)):
        return False
    if norm.extra_names.get("np", norm.parsed.namespace.get("np", np)) is not np:
        return False
    types = Types(norm, arg_types, check=False)
    changed = False

    def rewrite(stmt) -> list:
        nonlocal changed
        target = _written_subscript(stmt)
        if target is None or not _lowered(types, target):
            return [stmt]
        changed = True
        return _lowered_write(norm, stmt, target)

    norm.body = each_statement(norm.body, rewrite)
    if changed:
        norm.extra_names.setdefault("np", np)
    return changed


def _written_subscript(stmt):
    """`y[e]` of `y[e] = v` or `y[e] op= v` (y a name, e one index), else None."""
    if isinstance(stmt, gast.Assign) and len(stmt.targets) == 1:
        target = stmt.targets[0]
    elif isinstance(stmt, gast.AugAssign):
        target = stmt.target
    else:
        return None
    if isinstance(target, gast.Subscript) and isinstance(target.value, gast.Name) \
            and not isinstance(target.slice, (gast.Tuple, gast.Slice)):
        return target
    return None


def _lowered(types, target) -> bool:
    array, index = types.of(target.value), types.of(target.slice)
    return isinstance(array, Array) and array.ndim == 1 and array.is_float \
        and isinstance(index, Array) and index.ndim == 1 and not index.is_float \
        and not index.is_bool


def _lowered_write(norm, stmt, target) -> list:
    array = target.value.id
    index = norm.namer.fresh(f"{array}_index")
    values = norm.namer.fresh(f"{array}_written")
    k = norm.namer.fresh("k")
    gathered = gast.Subscript(value=S.name(array), slice=S.name(index), ctx=gast.Load())
    if isinstance(stmt, gast.AugAssign):
        new = gast.BinOp(left=gathered, op=stmt.op, right=stmt.value)
    else:
        length = gast.Attribute(value=S.name(index), attr="shape", ctx=gast.Load())
        zeros = S.call("np.zeros", gast.Subscript(value=length, slice=S.const(0),
                                                  ctx=gast.Load()))
        new = gast.BinOp(left=zeros, op=gast.Add(), right=stmt.value)
    element = gast.Subscript(value=S.name(index), slice=S.name(k), ctx=gast.Load())
    write = S.assign(gast.Subscript(value=S.name(array), slice=element, ctx=gast.Store()),
                     gast.Subscript(value=S.name(values), slice=S.name(k), ctx=gast.Load()))
    count = gast.Subscript(value=gast.Attribute(value=S.name(index), attr="shape",
                                                ctx=gast.Load()),
                           slice=S.const(0), ctx=gast.Load())
    loop = gast.For(target=S.name(k, store=True), iter=S.call("range", count), body=[write],
                    orelse=[], type_comment=None)
    out = [S.assign(S.name(index), target.slice), S.assign(S.name(values), new), loop]
    return S.located(out, stmt)
