"""Writes through an index array or a mask, `y[idx] = v`, `y[idx] += v`, `Y[idx, j] = v`,
`y[mask] *= 2`, as NumPy runs them.

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

A matrix takes rows the same way (`Y[idx] = v`: the right side broadcast into zeros of shape
(len(idx), Y.shape[1])), and `Y[idx, j] op= v` / `Y[j, idx] op= v` with an int j gathers the
elements in a loop first. A 1-D mask (`y[mask] op= v`, `Y[mask, j]`) writes its True
positions in order, each taking the next entry of the right side (a number, one value
broadcast, or one entry per True entry); a mask or a right side of another length raises
when it runs (NumPy raises IndexError or ValueError), as a run-time refusal.

Guarantees: only a statement writing a 1-D or 2-D float array variable through one 1-D int
array or mask (beside at most one int index) is rewritten; any other index-array write (a
2-D mask, two index arrays, an index array beside a slice) is left as written (and refused
by line later, srcad/analysis/type_refusals.py). Nothing is rewritten when the function's
module binds `np` to something other than NumPy.
"""

from __future__ import annotations

import gast
import numpy as np

from srcad.analysis.types import INT, Array, Types
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
        place = None if target is None else _place(types, target)
        if place is None:
            return [stmt]
        changed = True
        per_entry = isinstance(types.of(stmt.value), Array)
        return _lowered_write(norm, stmt, target, *place, per_entry)

    norm.body = each_statement(norm.body, rewrite)
    if changed:
        norm.extra_names.setdefault("np", np)
    return changed


def _written_subscript(stmt):
    """`y[e]` of `y[e] = v` or `y[e] op= v` (y a name), else None."""
    if isinstance(stmt, gast.Assign) and len(stmt.targets) == 1:
        target = stmt.targets[0]
    elif isinstance(stmt, gast.AugAssign):
        target = stmt.target
    else:
        return None
    if isinstance(target, gast.Subscript) and isinstance(target.value, gast.Name) \
            and not isinstance(target.slice, gast.Slice):
        return target
    return None


def _is_index(t) -> bool:
    """A 1-D int array or a 1-D mask."""
    return isinstance(t, Array) and t.ndim == 1 and not t.is_float


def _place(types, target):
    """(position of the index array or mask among the indices, is it a mask, the array's
    rank) of a write
    srcad lowers, else None: `y[idx]` of a 1-D or 2-D float array (rows of a matrix), or
    `Y[idx, j]` / `Y[j, idx]` of a 2-D one with an int j."""
    array = types.of(target.value)
    if not (isinstance(array, Array) and array.is_float):
        return None
    parts = _parts(target)
    if any(isinstance(p, (gast.Slice, gast.Starred)) for p in parts):
        return None
    kinds = [types.of(p) for p in parts]
    if len(parts) == 1 and _is_index(kinds[0]) and array.ndim in (1, 2):
        return 0, kinds[0].is_bool, array.ndim
    if len(parts) == 2 and array.ndim == 2:
        for k in (0, 1):
            if _is_index(kinds[k]) and kinds[1 - k] == INT:
                return k, kinds[k].is_bool, 2
    return None


def _parts(target) -> list:
    return list(target.slice.elts) if isinstance(target.slice, gast.Tuple) else [target.slice]


def _lowered_write(norm, stmt, target, position: int, mask: bool, rank: int,
                   per_entry: bool) -> list:
    array = target.value.id
    parts = _parts(target)
    index = norm.namer.fresh(f"{array}_{'mask' if mask else 'index'}")
    values = norm.namer.fresh(f"{array}_written")
    k = norm.namer.fresh("k")
    out = [S.assign(S.name(index), parts[position])]
    others = {}  # the int index beside the index array, bound once
    for p, part in enumerate(parts):
        if p != position:
            others[p] = norm.namer.fresh(f"{array}_at")
            out.append(S.assign(S.name(others[p]), part))

    def at(by):
        elts = [by if p == position else S.name(others[p]) for p in range(len(parts))]
        return elts[0] if len(elts) == 1 else gast.Tuple(elts=elts, ctx=gast.Load())

    if mask:
        return S.located(out + _mask_write(norm, stmt, array, index, position, at,
                                           per_entry, S.unparse_expr(parts[position])), stmt)

    count = f"{index}.shape[0]"
    element = S.parse_expr(f"{index}[{k}]")
    if len(parts) == 2:  # Y[idx, j]: the elements gathered in a loop
        gathered = norm.namer.fresh(f"{array}_read")
        out += S.parse_stmts(f"{gathered} = np.zeros({count})\n")
        out.append(gast.For(target=S.name(k, store=True), iter=S.parse_expr(f"range({count})"),
                            body=[S.assign(gast.Subscript(value=S.name(gathered),
                                                          slice=S.name(k), ctx=gast.Store()),
                                           gast.Subscript(value=S.name(array),
                                                          slice=at(element),
                                                          ctx=gast.Load()))],
                            orelse=[], type_comment=None))
        read, shape = S.name(gathered), count
    else:
        read = gast.Subscript(value=S.name(array), slice=S.name(index), ctx=gast.Load())
        shape = count if rank == 1 else f"({count}, {array}.shape[1])"
    if isinstance(stmt, gast.AugAssign):
        new = gast.BinOp(left=read, op=stmt.op, right=stmt.value)
    else:  # zeros of the written part's shape: NumPy's broadcast of the right side into it
        new = gast.BinOp(left=S.parse_expr(f"np.zeros({shape})"), op=gast.Add(),
                         right=stmt.value)
    write = S.assign(gast.Subscript(value=S.name(array), slice=at(element), ctx=gast.Store()),
                     S.parse_expr(f"{values}[{k}]"))
    loop = gast.For(target=S.name(k, store=True), iter=S.parse_expr(f"range({count})"),
                    body=[write], orelse=[], type_comment=None)
    out += [S.assign(S.name(values), new), loop]
    return S.located(out, stmt)


def _mask_write(norm, stmt, array, mask, position, at, per_entry: bool,
                spelled: str) -> list:
    """`y[mask] op= v` as NumPy runs it: the right side first (a number, or with
    `per_entry` an array holding one entry per True of the mask, in order), then each True
    position written (one value broadcast, as NumPy does); a mask or a right side of another
    length is refused when it runs (NumPy raises)."""
    k, taken = norm.namer.fresh("k"), norm.namer.fresh(f"{array}_taken")
    value = norm.namer.fresh(f"{array}_value")
    out = S.parse_stmts(
        f"if {mask}.shape[0] != {array}.shape[{position}]:\n"
        f"    raise ValueError({_MASK_LENGTH.format(spelled)!r})\n")
    out.append(S.assign(S.name(value), stmt.value))
    count = f"range({mask}.shape[0])"
    if per_entry:
        out += S.parse_stmts(f"{taken} = 0\nfor {k} in {count}:\n    if {mask}[{k}]:\n"
                             f"        {taken} += 1\n"
                             f"if {taken} != {value}.shape[0] and {value}.shape[0] != 1:\n"
                             f"    raise ValueError({_MASK_VALUES.format(spelled)!r})\n"
                             f"{value} = np.zeros({taken}) + {value}\n")
    out += S.parse_stmts(f"{taken} = 0\n")
    element = gast.Subscript(value=S.name(array), slice=at(S.name(k)), ctx=gast.Load())
    right = S.parse_expr(f"{value}[{taken}]") if per_entry else S.name(value)
    new = gast.BinOp(left=element, op=stmt.op, right=right) \
        if isinstance(stmt, gast.AugAssign) else right
    write = S.assign(gast.Subscript(value=S.name(array), slice=at(S.name(k)),
                                    ctx=gast.Store()), new)
    body = [write] + S.parse_stmts(f"{taken} += 1\n")
    loop = gast.For(target=S.name(k, store=True), iter=S.parse_expr(count),
                    body=[gast.If(test=S.parse_expr(f"{mask}[{k}]"), body=body, orelse=[])],
                    orelse=[], type_comment=None)
    return out + [loop]


_MASK_LENGTH = ("srcad: the mask `{}` written through does not match the length of the "
                "array's axis (NumPy raises IndexError)")
_MASK_VALUES = ("srcad: the values written through the mask `{}` are not one per True "
                "entry (NumPy raises ValueError)")
