"""The types of reads through index arrays and masks: `x[idx]` with `idx` an int array
(alone or with ints and slices: NumPy's advanced indexing) and `x[mask]` with a boolean
array. Their adjoints differ from a view's (repeated indices add up), so the transformations
ask `index_kind` which kind of read a subscript is."""

from __future__ import annotations

import gast

from srcad.analysis.value_types import FLOAT, INT, OTHER, Array, is_new_axis
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
        _refuse_guessed_index(types, e, parts)
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


def refuse_scalar_index(types, e, base, parts, kinds) -> None:
    """Refuse `x[i]` whose index comes from a call srcad has no type for where the type it
    guessed makes no index NumPy takes as such: a float, a value srcad cannot see into, or
    more indices than x has axes. Such a call is taken to return a float array
    (`np.nonzero(m)` is a tuple of int arrays): `x[np.nonzero(m)[0]]` would be one element.
    A float index from srcad's own types is left (a name bound to an int and to a float is
    typed a float: `c` below a loop `for c in range(4)` and `c = math.cos(t)`)."""
    bad = [p for p, t in zip(parts, kinds) if t in (FLOAT, OTHER)
           and not isinstance(p, gast.Slice) and not is_new_axis(p)]
    consumed = sum(1 for p in parts if not isinstance(p, gast.Slice) and not is_new_axis(p))
    if bad or consumed > base.ndim:
        _refuse_guessed_index(types, e, parts)


def guessed_call(types, names, followed=(gast.Name,), rounds=3):
    """The first call with no rule (its result's type a guess: a float, or a float array of
    its arguments' rank) that a name of `names` is bound to, through assignments of the
    `followed` kinds (`lower = tri_value`; with Subscript, `idx = nonzero_value[0]`); None."""
    if not types.opaque_calls:  # nothing guessed (yet): no walk of the function per index
        return None
    names = set(names)
    assigns = [n for stmt in types.norm.body for n in S.walk(stmt)
               if isinstance(n, gast.Assign) and isinstance(n.targets[0], gast.Name)]
    for _ in range(rounds):
        names |= {n.id for a in assigns if a.targets[0].id in names
                  and isinstance(a.value, followed)
                  for n in S.walk(a.value) if isinstance(n, gast.Name)}
    return next((a.value for a in assigns if a.targets[0].id in names
                 and id(a.value) in types.opaque_calls), None)


def _refuse_guessed_index(types, e, parts) -> None:
    """Raise the refusal of the call with no rule an index comes from, if it does."""
    names = {n.id for p in parts for n in S.walk(p) if isinstance(n, gast.Name)}
    call = guessed_call(types, names, (gast.Name, gast.Subscript, gast.Attribute), rounds=4)
    if call is None:
        call = next((c for p in parts for c in S.walk(p) if id(c) in types.opaque_calls), None)
    if call is not None:
        raise types.norm.parsed.error(
            call, "call", f"`{S.unparse_expr(call)}` has no type srcad knows: srcad takes the "
            "result of a call it has no rule for to be a float (or a float array of its array "
            f"arguments' rank), and `{S.unparse_expr(e)}` indexes with it",
            hint="np.flatnonzero(m) and np.argwhere(m) give int arrays srcad knows; or index "
            "with the mask itself: x[m]; or compute the indices outside and pass them in")
