"""The types of reads through index arrays and masks: `x[idx]` with `idx` an int array
(alone or with ints and slices: NumPy's advanced indexing) and `x[mask]` with a boolean
array. Their adjoints differ from a view's (repeated indices add up), so the transformations
ask `index_kind` which kind of read a subscript is."""

from __future__ import annotations

import gast

from srcad.analysis.value_types import INT, Array, is_new_axis
from srcad.frontend import syntax as S


def index_kind(types, subscript) -> str | None:
    """"gather" for `x[idx]` with an int array among the indices, "mask" for `x[mask]`,
    else None (ints, slices, new axes: a view or an element)."""
    parts = subscript.slice.elts if isinstance(subscript.slice, gast.Tuple) else [subscript.slice]
    kinds = [types.of(p) for p in parts if not isinstance(p, gast.Slice)]
    if any(isinstance(t, Array) and t.is_bool for t in kinds):
        return "mask"
    return "gather" if any(isinstance(t, Array) for t in kinds) else None


def gathered_type(types, e, base, parts, kinds):
    """The type of `x[idx]` (idx an int array, alone or with ints and slices: NumPy's
    advanced indexing) or `x[mask]` (a boolean array, alone)."""
    masks = [t for t in kinds if isinstance(t, Array) and t.is_bool]
    shown = S.unparse_expr(e)
    if any(isinstance(t, Array) and t.is_float for t in kinds):
        raise types.norm.parsed.error(
            e, "array index", f"`{shown}` indexes with an array of floats (NumPy indexes with "
            "ints or bools only)", hint="write the index array of ints: np.array([0, 2]), "
            "np.arange(n)")
    if any(is_new_axis(p) for p in parts) or (masks and len(parts) > 1):
        raise types.norm.parsed.error(
            e, "array index", f"`{shown}` mixes an index array with other indices in a "
            "way srcad does not differentiate", hint="index with one int array (with ints "
            "and slices) or one boolean mask, and add new axes in a separate step")
    if masks:
        if masks[0].ndim > base.ndim:
            raise types.norm.parsed.error(e, "array index", f"`{shown}`: the mask has more "
                                         "axes than the array")
        return Array(base.ndim - masks[0].ndim + 1, base.is_float)
    gathered = max(t.ndim for t in kinds if isinstance(t, Array))
    consumed = sum(1 for p in parts if not isinstance(p, gast.Slice))
    if consumed > base.ndim:
        raise types.norm.parsed.error(e, "array index", f"`{shown}` has more indices "
                                     "than the array has axes")
    return Array(gathered + base.ndim - consumed, base.is_float)


def holds_ints(type_of, values) -> bool:
    """Are `values` (the entries of `np.array([...])`, lists written out inside it too) all
    ints? NumPy then makes an int array: `np.array([0, 2, 2])` is an index array."""
    for v in values:
        if isinstance(v, (gast.List, gast.Tuple)):
            if not v.elts or not holds_ints(type_of, v.elts):
                return False
            continue
        t = type_of(v)
        if not (t == INT or (isinstance(t, Array) and not t.is_float and not t.is_bool)):
            return False
    return bool(values)
