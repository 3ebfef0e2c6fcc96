"""numba vector mode: the tangents of array views (`row = A[i]`, `for row in A`, `a = x`).

A view's tangents are the same view of its array's tangents, bound once outside the lane
loops: `row_dot = A_dot[:, i]` when `A_dot` keeps the caller's layout, lanes first (W, n, m),
`row_dot = A_dot[i]` when it keeps the lanes last (n, m, W). Either way the view keeps its
array's layout, so each name's tangents have one layout everywhere: a view bound in one place
to a lanes-first array and in another to a lanes-last one (or to a branch's zeros) would not.
`view_layouts` decides the layouts up front, before any statement is differentiated: a view
is lanes first when every array it is bound to is, and an argument some lanes-last view is
bound to is copied lanes last at entry (transform/forward/lanes.py) instead of used in place.

Only what indexing makes without arithmetic is a view here: a name, and subscripts of a name
(basic indices; an int array or mask index makes a copy, and so does its tangent). Whole-array
expressions are refused in this layout before (analysis/array_bindings.refuse_array_code).
"""

from __future__ import annotations

import gast

from srcad.analysis.types import Array
from srcad.frontend import syntax as S


def view_base(value) -> str | None:
    """The array a view expression indexes: `A` of `A`, `A[i]`, `A[i][1:]`; else None.

    >>> [view_base(gast.parse(e).body[0].value) for e in ("A[i][1:]", "2 * A")]
    ['A', None]
    """
    while isinstance(value, gast.Subscript):
        value = value.value
    return value.id if isinstance(value, gast.Name) else None


def view_bindings(body: list, types, active: set) -> dict:
    """{view: the active arrays it is bound to} for the active array names that some plain
    assignment binds to a view of an active array; None among them: the name is also bound
    to something else (an allocation, lanes last). A view of an inactive array has zero
    tangents, in either layout."""
    out: dict = {}
    others = set()
    for stmt in body:
        for node in gast.walk(stmt):
            if not (isinstance(node, gast.Assign) and isinstance(node.targets[0], gast.Name)):
                continue
            name = node.targets[0].id
            if name not in active or not isinstance(types[name], Array):
                continue
            base = view_base(node.value)
            if base is not None and base in active and base != name:
                out.setdefault(name, set()).add(base)
            elif base is None:
                others.add(name)
    for name in others & set(out):
        out[name].add(None)
    return out


def view_layouts(bindings: dict, first: set) -> tuple[set, set]:
    """(views kept lanes first, arguments in `first` that must be copied lanes last).

    `first`: the arguments whose tangents stay in the caller's layout. A view is lanes first
    when all its arrays are; a lanes-last view makes all of them lanes last, as far as it goes.

    >>> view_layouts({"row": {"A"}, "r": {"A", "C"}}, {"A"})
    (set(), {'A'})
    >>> views, copied = view_layouts({"row": {"A"}, "r": {"row"}}, {"A"})
    >>> sorted(views), copied
    (['r', 'row'], set())
    """
    kept = set(first) | set(bindings)
    changed = True
    while changed:
        changed = False
        for view, arrays in bindings.items():
            if view not in kept or not arrays <= kept:
                for name in ({view} | arrays) & kept:
                    kept.discard(name)
                    changed = True
    return kept & set(bindings), set(first) - kept


def view_tangent(value, shadow: str, lanes_first: bool):
    """The tangents of the view `value` (a name, or subscripts of one) of an array whose
    tangents are `shadow`: `shadow[:, i]` lanes first, `shadow[i]` lanes last (`shadow[...,
    0, :]` for `x[..., 0]`, so that the lane axis stays last)."""
    if isinstance(value, gast.Name):
        return S.name(shadow)
    inner = view_tangent(value.value, shadow, lanes_first)
    parts = [S.clone(p) for p in (value.slice.elts if isinstance(value.slice, gast.Tuple)
                                  else [value.slice])]
    every = gast.Slice(lower=None, upper=None, step=None)
    if lanes_first:
        parts.insert(0, every)
    elif any(isinstance(p, gast.Constant) and p.value is Ellipsis for p in parts):
        parts.append(every)
    index = parts[0] if len(parts) == 1 else gast.Tuple(elts=parts, ctx=gast.Load())
    return gast.Subscript(value=inner, slice=index, ctx=gast.Load())


def bind_view(style, view: str, shadow: str, value, base_shadow: str | None) -> gast.Assign:
    """`shadow = ...`: the tangents of `view = value` in the layout `style` (Looped) gives
    them, from the tangents `base_shadow` of the array `value` views (None: it has none,
    the view's tangents are zeros).

    >>> from srcad.transform.forward.styles import Looped
    >>> style = Looped(width=2, lanes_first=frozenset({"A_dot", "row_dot"}))
    >>> S.unparse_expr(bind_view(style, "row", "row_dot", gast.parse("A[i]").body[0].value,
    ...                          "A_dot").value)
    'A_dot[:, i]'
    """
    first = shadow in style.lanes_first
    if base_shadow is None:
        tangent = style.zeros_result(view) if first else style.zeros_like(view)
    else:
        tangent = view_tangent(value, base_shadow, first)
    return S.assign(S.name(shadow, store=True), tangent)


_VIEWS = {"broadcast_to", "transpose", "expand_dims", "reshape", "ravel", "asarray", "squeeze"}


def is_view(node) -> bool:
    """May the expression `node` be an existing array or a view of one (not a new array)?"""
    if isinstance(node, (gast.Name, gast.Subscript, gast.Attribute)):
        return True
    return isinstance(node, gast.Call) and (
        isinstance(node.func, gast.Attribute) and node.func.attr in _VIEWS
        or isinstance(node.func, gast.Name) and node.func.id in _VIEWS)
