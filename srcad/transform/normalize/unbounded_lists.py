"""Lists appended to in loops whose number of appends is not known before them: the buffer
grows as it fills.

srcad/transform/normalize/conditional_lists.py makes a list appended to in loops a buffer and
a counter. When srcad/transform/normalize/list_room.py knows no bound on the appends before
the loops run (`while err > tol:`, a counter stepped under an `if` or skipped by `continue`,
`for j in range(m)` after `m = ...` in the loop nest), the buffer starts with room for
`START` elements and an append that finds it full first makes room for itself:

    hist_buffer = np.zeros(8)
    hist_length = 0
    while err > 0.001:
        ...
        if hist_length == hist_buffer.shape[0]:
            hist_buffer = grown(hist_buffer, hist_length)
        hist_buffer[hist_length] = err * x
        hist_length += 1

`grown` (srcad/runtime/array_runtime.py, srcad/runtime/numba_runtime.py) returns a copy twice as
long
(its new part zero; the buffer itself when it has room), so the appends cost amortized constant
time; the test keeps the call off the common path (reverse mode tapes no flag for it: the
branch has nothing to undo). The transformations grow the buffer's tangents and adjoints
alongside (srcad/transform/forward/styles.py, reverse/arrays.py): the filled part holds the
same values in the same places, so nothing else about the list changes, and reverse mode
keeps no copy of a buffer it replaces (the reverse sweep reads only the final, longest one).
"""

from __future__ import annotations

import gast

from srcad.analysis.array_bindings import GROWN, is_growth
from srcad.frontend import syntax as S
from srcad.runtime.array_runtime import grown

START = 8  # the room a growing list starts with (doubled as often as it fills)


def bind_growth(parsed) -> None:
    """Make `grown` mean the runtime function in `parsed` (every function lowered, so that
    an inlined helper's growth reads the same object in its caller: not renamed). A user's
    own `grown` was renamed already (srcad/runtime/runtime_names.py)."""
    parsed.namespace[GROWN] = grown


def growing(region: list, buffer: str, count: str) -> tuple:
    """(the room the buffer starts with, `region` with `buffer = grown(buffer, count)`, when
    the buffer is full, before each append's write `buffer[count] = v`)."""
    return S.const(START), _block(region, buffer, count)


def _block(stmts: list, buffer: str, count: str) -> list:
    out = []
    for stmt in stmts:
        for field in ("body", "orelse"):
            if isinstance(stmt, (gast.For, gast.While, gast.If)):
                setattr(stmt, field, _block(getattr(stmt, field), buffer, count))
        if _writes_at_count(stmt, buffer, count):
            growth = S.parse_stmts(f"if {count} == {buffer}.shape[0]:\n"
                                   f"    {buffer} = {GROWN}({buffer}, {count})\n")[0]
            for node in gast.walk(growth):
                gast.copy_location(node, stmt)
            out.append(growth)
        out.append(stmt)
    return out


def _writes_at_count(stmt, buffer, count) -> bool:
    """Is `stmt` the write `buffer[count] = v` of an append?"""
    if not (isinstance(stmt, gast.Assign) and len(stmt.targets) == 1):
        return False
    target = stmt.targets[0]
    return isinstance(target, gast.Subscript) and isinstance(target.value, gast.Name) \
        and target.value.id == buffer and isinstance(target.slice, gast.Name) \
        and target.slice.id == count



def growths(body: list, name_: str) -> int:
    """How many statements of `body` make the buffer `name_` longer."""
    return sum(1 for stmt in body for node in gast.walk(stmt)
               if is_growth(node) and node.targets[0].id == name_)
