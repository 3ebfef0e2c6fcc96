"""The list tapes of numba reverse code that small arrays go through
(srcad/transform/small_array_lengths.py, small_arrays.py): the recording of a small array and
of its shape.

The reverse sweep of a loop records an array it will need (`array_tape_1d.append(
np.ascontiguousarray(x))`, read back by `x = array_tape_1d.pop()`) and the shape of an array
it rebinds (`shape_tape_1d.append(x.shape)`, `x_shape = shape_tape_1d.pop()`, then
`x_bar = np.zeros(x_shape)`). A tape is one of these when its name is bound once to `[]` and
used only by such appends and by `name = tape.pop()`. When every array recorded on an array
tape is a small array of one length n, it records tuples of n numbers instead; when every shape
recorded on a shape tape is the shape of such an array, the shapes are the constant `(n,)`:
neither recorded nor read back.

>>> import gast
>>> fn = gast.parse("def f(x):\\n    t = []\\n    s = []\\n    t.append(np.ascontiguousarray(x))\\n"
...                 "    s.append(x.shape)\\n    y = t.pop()\\n    z = s.pop()").body[0]
>>> tapes = list_tapes(fn)
>>> sorted((name, tape.is_shape, len(tape.pushes), tape.pops) for name, tape in tapes.items())
[('s', True, 1, ['z']), ('t', False, 1, ['y'])]
"""

from __future__ import annotations

from dataclasses import dataclass, field

import gast


@dataclass
class ListTape:
    """One list tape of a function: what it records (`pushes`: the appended expressions, the
    arrays themselves, or `v.shape` for a shape tape) and the names its pops bind."""

    is_shape: bool
    pushes: list = field(default_factory=list)
    pops: list = field(default_factory=list)  # the names bound to `tape.pop()`
    statements: list = field(default_factory=list)  # the ids of its append statements


def recorded(push):
    """The array an append records: `x` of `np.ascontiguousarray(x)` or of `x.shape`."""
    if isinstance(push, gast.Attribute) and push.attr == "shape":
        return push.value
    if isinstance(push, gast.Call) and isinstance(push.func, gast.Attribute) \
            and push.func.attr == "ascontiguousarray" and len(push.args) == 1:
        return push.args[0]
    return push


def is_pop(node, tapes) -> bool:
    """Is `node` `tape.pop()` of one of `tapes`?"""
    return isinstance(node, gast.Call) and isinstance(node.func, gast.Attribute) \
        and node.func.attr == "pop" and not node.args \
        and isinstance(node.func.value, gast.Name) and node.func.value.id in tapes


def append_of(stmt):
    """(tape name, the appended expression) of `tape.append(e)` as a statement, else None."""
    if isinstance(stmt, gast.Expr) and isinstance(stmt.value, gast.Call) \
            and isinstance(stmt.value.func, gast.Attribute) \
            and stmt.value.func.attr == "append" and len(stmt.value.args) == 1 \
            and isinstance(stmt.value.func.value, gast.Name):
        return stmt.value.func.value.id, stmt.value.args[0]
    return None


def list_tapes(fn) -> dict:
    """{name: ListTape} of the list tapes of `fn` used only as the module docstring says."""
    bound: dict = {}
    for node in gast.walk(fn):
        if isinstance(node, gast.Assign) and len(node.targets) == 1 \
                and isinstance(node.targets[0], gast.Name):
            bound.setdefault(node.targets[0].id, []).append(node.value)
    candidates = {n for n, values in bound.items() if len(values) == 1
                  and isinstance(values[0], gast.List) and not values[0].elts}
    tapes = {n: ListTape(is_shape=True) for n in candidates}
    known: set = set()  # ids of the tape's Name nodes in a known use
    for node in gast.walk(fn):
        found = append_of(node) if isinstance(node, gast.stmt) else None
        if found and found[0] in tapes:
            tape = tapes[found[0]]
            push = found[1]
            shape = isinstance(push, gast.Attribute) and push.attr == "shape" \
                and isinstance(push.value, gast.Name)
            array = isinstance(recorded(push), gast.Name) and not shape
            if not (shape or array):
                candidates.discard(found[0])
            tape.is_shape = tape.is_shape and shape
            tape.pushes.append(push)
            tape.statements.append(id(node))
            known.add(id(node.value.func.value))
        elif isinstance(node, gast.Assign) and len(node.targets) == 1 \
                and isinstance(node.targets[0], gast.Name) and is_pop(node.value, tapes):
            tapes[node.value.func.value.id].pops.append(node.targets[0].id)
            known.add(id(node.value.func.value))
        elif isinstance(node, gast.Assign) and len(node.targets) == 1 \
                and isinstance(node.targets[0], gast.Name) and node.targets[0].id in tapes:
            known.add(id(node.targets[0]))
    for node in gast.walk(fn):
        if isinstance(node, gast.Name) and node.id in tapes and id(node) not in known:
            candidates.discard(node.id)
    return {n: t for n, t in tapes.items() if n in candidates and t.pushes
            and all(isinstance(recorded(p), gast.Name) for p in t.pushes)
            and (t.is_shape or not any(isinstance(p, gast.Attribute) for p in t.pushes))}
