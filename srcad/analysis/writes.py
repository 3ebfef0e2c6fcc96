"""Which arrays a function writes, and writes srcad cannot follow.

srcad follows each array by its name: the derivative of `x[i] = ...` is attached to `x`. A
second name for the same array (`y = x`, a row or slice view `row = x[i]`, which is what
`for row in x` becomes, or any other view NumPy makes without a copy: `x.T`, `x.reshape(...)`,
`np.ravel(x)`, `np.asarray(x)`, as `viewed_array` recognises them) written through
(`y[i] = ...`) changes `x` without srcad knowing, so the derivative would be silently wrong;
such writes are refused. A second name bound after the last write to either name (no later
statement, and no statement of a loop around the binding, writes either: `return s, r`
inlined into a caller, a row `qdiags[k]` of a finished array passed to a helper) reads the
finished array and is allowed. The same alias classes give
the arguments a function writes (`Compiled.written`), which the operators use to keep their
promise that x and Constant contexts are left unchanged.
"""

from __future__ import annotations

import gast

from srcad.analysis.array_bindings import viewed_array, writes_after
from srcad.analysis.list_entry_errors import entry_alias_error
from srcad.analysis.types import Array
from srcad.frontend import syntax as S


def _bindings(norm, types):
    """(assignment, target name, source name, statement index) for every `name = array or
    view of an array`; the index is that of the top-level statement holding it."""
    for index, stmt in enumerate(norm.body):
        for node in S.nodes(stmt):
            if not isinstance(node, gast.Assign):
                continue
            source = viewed_array(norm, node.value)
            if source is None or not isinstance(types.of(node.value), Array):
                continue
            for target in node.targets:
                if isinstance(target, gast.Name) and target.id != source:
                    yield node, target.id, source, index


def _written_names(statements, types) -> set:
    """Names whose elements `statements` store into (`x[i] = ...`, `x[i] += ...`, and
    `x += ...` on an array, which NumPy does in place)."""
    written = set()
    for stmt in statements:
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
    own name is the only one its elements can be written through; so is a write through a
    view made in the target itself (`_refuse_view_targets`)."""
    _refuse_view_targets(norm)
    written = _written_names(norm.body, types)
    for node, target, source in shared_while_written(norm, types):
        norm.refusals.add(entry_alias_error(norm, node, target, source) or norm.parsed.error(
            node, "array alias",
            f"`{target}` is a second name for the array `{source}` (or a view of it), and "
            "the function writes elements through one of them; srcad follows arrays by "
            "name, so the derivative would be silently wrong",
            hint=f"read and write through `{source}` itself, or make a copy: "
            f"{target} = {S.unparse_expr(node.value)}.copy()"))
    return frozenset(i for i, p in enumerate(norm.params) if p in written)


def shared_while_written(norm, types) -> list:
    """(assignment, second name, array) for each second name of an array that some write
    may change after it is bound (transform/normalize/views.py rewrites the basic views among them
    as reads and writes of the array itself; what is left is refused)."""
    written_after = writes_after(norm)
    out = []
    for node, target, source, _ in _bindings(norm, types):
        # Only writes that may run after the binding go through the second name: a later
        # statement, or any statement of a loop around the binding (inlining `return s, r`
        # binds the caller's result name to r after r is filled; a helper's row argument
        # `qdiags[k]` is read after the loop that filled `qdiags`).
        later = written_after(node)
        if target in later or source in later:
            out.append((node, target, source))
    return out


def _refuse_view_targets(norm) -> None:
    """Refuse element writes into something other than an array variable: `y.T[0] = v`,
    `y.reshape(3, 3)[0] = v`, `y[1][:] = v` where normalization did not compose the chain
    into one index of `y` (transform/normalize/sliced_elements.py, desugar.py). NumPy writes
    `y` through the view; srcad follows the target's last index alone, so it would write
    the derivative into the wrong elements or lose it."""
    for stmt in norm.body:
        for node in S.nodes(stmt):
            targets = (node.targets if isinstance(node, gast.Assign) else
                       [node.target] if isinstance(node, (gast.AugAssign, gast.For)) else [])
            for target in targets:
                for t in gast.walk(target):
                    if isinstance(t, gast.Subscript) and isinstance(t.ctx, gast.Store) \
                            and not isinstance(t.value, gast.Name):
                        norm.refusals.add(norm.parsed.error(
                            t, "write through a view",
                            f"`{S.unparse_expr(t)}` writes the elements of a view made in "
                            "the assignment itself; srcad follows writes into array "
                            "variables by their own index only, so the derivative would be "
                            "silently wrong",
                            hint="index the array itself (`y[:, 0] = v` for `y.T[0] = v`, "
                            "`y[1, :] = v` for `y[1][:] = v`)"))
