"""An index into a slice written directly on an array, as one index of the array.

`x[1:3][1]`, `x[-3:][0]`, `A[1:, 2][k]` read an element (or a row) of a slice that no
variable holds (`y[i][1:]` reads or writes a slice of a row); srcad reads back only parts
of array variables, and a slice named first (`v = x[1:3]; v[1]`) is a copy on some
backends. Like a view (views.py), the chain is composed into one basic index of the array
(`x[1 + 1]`, `x[view_element(0, -3, ...)]`), checked as NumPy checks it (view_indices.py):
`x[1:3][5]` raises IndexError though `x[6]` may exist, and a negative index counts from
the slice's end. From there the ordinary rules of array subscripts apply in every mode and
on both backends.

Guarantees: only a chain rooted at an array variable whose indices are ints and slices is
touched, and only when it composes into one index; a chain that does not (a slice of a
slice, a step that is not a positive literal, an index array) is left as written, so the
code of everything else is unchanged.
"""

from __future__ import annotations

import gast

from srcad.analysis.types import Array, Types
from srcad.transform.normalize.view_indices import NotComposable
from srcad.transform.normalize.views import _Resolver


def compose_sliced_elements(norm, arg_types: dict) -> bool:
    """Rewrite each `base[slices][indices]` in `norm.body` (module docstring); True if any
    was."""
    types = Types(norm, arg_types, check=False)
    resolver = _Resolver(norm, types, set())
    composer = _Composer(resolver, types)
    norm.body = [composer.visit(stmt) for stmt in norm.body]
    return composer.changed


class _Composer(gast.NodeTransformer):
    def __init__(self, resolver, types):
        self.resolver, self.types, self.changed = resolver, types, False

    def visit_Subscript(self, node):
        if _sliced_chain(node, self.types):
            try:
                view = self.resolver._view_of(node, node, {}, set())
            except NotComposable:  # left as written: the array checks refuse it, with its line
                view = None
            if view is not None and view.parts is not None:
                self.changed = True
                return gast.copy_location(view.expression(node.ctx), node)
        return self.generic_visit(node)


def _sliced_chain(node, types) -> bool:
    """`node` is `base[...][...]` (two subscripts or more) of an array variable with a slice
    in one of them (`y[i][1:]` is `y[i, 1:]`: read, it is whole-array code on a view, which
    srcad refused; written, the reverse and forward transforms knew the target's last index
    only)."""
    inner = node.value
    if not isinstance(inner, gast.Subscript):
        return False
    outer = node.slice.elts if isinstance(node.slice, gast.Tuple) else [node.slice]
    sliced = any(isinstance(p, gast.Slice) for p in outer)
    while isinstance(inner, gast.Subscript):
        parts = inner.slice.elts if isinstance(inner.slice, gast.Tuple) else [inner.slice]
        sliced = sliced or any(isinstance(p, gast.Slice) for p in parts)
        inner = inner.value
    return sliced and isinstance(inner, gast.Name) and isinstance(types[inner.id], Array)
