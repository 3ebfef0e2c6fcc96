"""Which arrays a function writes, and writes srcad cannot follow.

srcad follows each array by its name: the derivative of `x[i] = ...` is attached to `x`. A
second name for the same array (`y = x`, or a row view `row = x[i]`, which is what
`for row in x` becomes) written through (`y[i] = ...`) changes `x` without srcad knowing, so
the derivative would be silently wrong; such writes are refused. The same alias classes give
the arguments a function writes (`Compiled.written`), which the operators use to keep their
promise that x and Constant contexts are left unchanged.
"""

from __future__ import annotations

import gast

from srcad import syntax as S
from srcad.analysis.types import Array


def _base_name(expr):
    """`x` for `x`, `x[i]`, `x[i][j]`; None for anything else (a call makes a new array)."""
    while isinstance(expr, gast.Subscript):
        expr = expr.value
    return expr.id if isinstance(expr, gast.Name) else None


def _bindings(norm, types):
    """(assignment, target name, source name) for every `name = array or view of an array`."""
    for stmt in norm.body:
        for node in S.nodes(stmt):
            if not isinstance(node, gast.Assign):
                continue
            source = _base_name(node.value)
            if source is None or not isinstance(types.of(node.value), Array):
                continue
            for target in node.targets:
                if isinstance(target, gast.Name) and target.id != source:
                    yield node, target.id, source


def _written_names(norm, types) -> set:
    """Names whose elements are stored into (`x[i] = ...`, `x[i] += ...`, and `x += ...` on
    an array, which NumPy does in place)."""
    written = set()
    for stmt in norm.body:
        for node in S.nodes(stmt):
            if isinstance(node, gast.AugAssign) and isinstance(node.target, gast.Name) \
                    and isinstance(types.of(node.target), Array):
                written.add(node.target.id)
            targets = (node.targets if isinstance(node, gast.Assign) else
                       [node.target] if isinstance(node, gast.AugAssign) else [])
            written.update(S.target_name(t) for t in targets if isinstance(t, gast.Subscript))
    return written


def written_arguments(norm, types) -> frozenset:
    """Positions of the arguments whose elements f writes. A second name for an array that
    is written through either name is refused (see the module docstring), so an argument's
    own name is the only one its elements can be written through."""
    bindings = list(_bindings(norm, types))
    written = _written_names(norm, types)
    for node, target, source in bindings:
        if target in written or source in written:
            raise norm.parsed.error(
                node, "array alias",
                f"`{target}` is a second name for the array `{source}` (or a view of it), and "
                "the function writes elements through one of them; srcad follows arrays by "
                "name, so the derivative would be silently wrong",
                hint=f"read and write through `{source}` itself, or make a copy: "
                f"{target} = {S.unparse_expr(node.value)}.copy()")
    return frozenset(i for i, p in enumerate(norm.params) if p in written)
