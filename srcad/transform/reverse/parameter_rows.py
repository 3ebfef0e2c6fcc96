"""Row views of parameters: a name bound once, in the whole function, to `a[i]` (or `a[i, j]`:
int indices only, fewer than `a`'s axes) of a parameter array `a` that the function never
rebinds. Every value the name takes has the shape `a.shape[count:]` (count: the number of
indices), known before the loop that binds it runs and whether or not it runs.

Two users: the numba tape reservations read `len(row)` as `a.shape[1]` (a helper over row
views, `for i in range(len(row))`, then has a trip count fixed in the loops around it,
trip_bounds.py), and the reverse sweep makes the adjoint of a row bound in a loop as
`np.zeros((a.shape[1],))` instead of `np.zeros_like(row)`: reading the row after the
loop keeps the view alive past each iteration, which costs numba a reference count update per
iteration (kmeans' gradient: 2 ms of 2.5), and fails where the loop ran no iteration.
"""

from __future__ import annotations

import gast

from srcad.analysis.types import INT, Array
from srcad.frontend import syntax as S


def row_view(name, recording, types, params) -> tuple[str, int] | None:
    """(a, count) when `name` is such a row view of parameter `a` (see above), else None."""
    stmt = recording.only_assignment(name)
    value = stmt.value if stmt is not None else None
    if not (isinstance(value, gast.Subscript) and isinstance(value.value, gast.Name)):
        return None
    array = value.value.id
    base = types[array]
    if array not in params or recording.bind_count.get(array, 0) or not isinstance(base, Array):
        return None
    parts = value.slice.elts if isinstance(value.slice, gast.Tuple) else [value.slice]
    if len(parts) >= base.ndim or any(isinstance(p, gast.Slice) or types.of(p) != INT
                                      for p in parts):
        return None
    return array, len(parts)


def fresh_adjoint(name, recording, types, params):
    """Zeros for the adjoint of the array `name`, made at the top of the reverse sweep: of the
    rows' shape for a row view of a parameter (see above; written as a tuple of
    `a.shape[k]`, which the forward transform of this code also reads), else
    `np.zeros_like`."""
    row = row_view(name, recording, types, params)
    if row is None:
        return S.call("np.zeros_like", S.name(name))
    array, count = row
    axes = "".join(f"{array}.shape[{k}], " for k in range(count, types[array].ndim))
    return S.parse_expr(f"np.zeros(({axes}))")


def row_length(array: str, count: int):
    """`a.shape[count]`, the `len` of every row view of `a` with `count` indices."""
    return S.parse_expr(f"{array}.shape[{count}]")


def is_shape_entry(node) -> bool:
    """Is `node` `a.shape[k]` (k an int constant)? Fixed while `a` is not rebound: writing
    elements never changes a shape."""
    return isinstance(node, gast.Subscript) and isinstance(node.value, gast.Attribute) \
        and node.value.attr == "shape" and isinstance(node.value.value, gast.Name) \
        and isinstance(node.slice, gast.Constant) and isinstance(node.slice.value, int)
