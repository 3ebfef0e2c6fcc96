"""Lists of floats grown under conditions become arrays of the length they reach.

`ys = []` at the top level of the function, followed (before any other use of `ys`) by a `for`
loop over a `range` or an array variable (or `zip`, `enumerate`, `reversed` of those) whose
body appends to `ys`, also inside `if`s (not inside a nested loop), `break` and `continue`
allowed (a range loop that appends once per iteration is lists.py's grown list):

    ys = []
    for i in range(n):
        if x[i] > 0:
            ys.append(x[i] ** 2)

becomes a buffer with room for every append the loop can make, written through a counter, and
`ys` the copy of its filled part:

    ys_buffer = np.zeros(len(range(n)))
    ys_length = 0
    for i in range(n):
        if x[i] > 0:
            ys_buffer[ys_length] = x[i] ** 2
            ys_length += 1
    ys = ys_buffer[0:ys_length].copy()

so `ys` is an array of exactly `len(ys)` floats: indexing it (negative indices and an index out
of range behave as for the list), iterating over it, len/sum/max/min of it (the last three
as loops, srcad/transform/normalize/lists.py) and its truth value in a test (`if ys:`, `not
ys`, read as `len(ys) > 0`, which it is for the list: list_truth.py) are what they are for
the list. Each element is written once, so reverse mode needs no tape of the buffer: the
counter's values are those of any int of the loop. A filtered list comprehension kept in a
variable (`ys = [e for i in range(n) if c]`) arrives here as such a loop
(srcad/transform/normalize/lower.py). Afterwards `ys` may only be read as for the lists of
lists.py; any other list stays as written, and the fence refuses it with its line. Needs `np`
to be NumPy in the function's module.
"""

from __future__ import annotations

import gast

from srcad import syntax as S
from srcad.parse import ParsedFunction
from srcad.transform.names import Namer
from srcad.transform.normalize.lists import (
    _is_append,
    _names,
    lists_grown,
)


def grow_conditional_lists(parsed: ParsedFunction, body: list, namer: Namer) -> list:
    """`body` with the lists appended to under conditions (above) made arrays."""
    def grow(stmt, loop, name_):
        appends = _conditional_appends(loop, name_)
        buffer = namer.fresh(f"{name_}_buffer")
        count = namer.fresh(f"{name_}_length")
        room = _trips(loop.iter)
        if len(appends) > 1:
            room = gast.BinOp(left=room, op=gast.Mult(), right=S.const(len(appends)))
        made = gast.copy_location(S.assign(S.name(buffer), S.call("np.zeros", room)), stmt)
        loop.body = _appends_as_writes(loop.body, name_, buffer, count)
        filled = S.substitute("buffer[0:count].copy()", {"buffer": S.name(buffer),
                                                          "count": S.name(count)})
        new = [S.assign(S.name(count), S.const(0)), loop, S.assign(S.name(name_), filled)]
        for s in new:
            for node in gast.walk(s):
                if isinstance(node, (gast.stmt, gast.expr)) and not hasattr(node, "lineno"):
                    gast.copy_location(node, loop)
        return made, new

    return lists_grown(parsed, body, lambda loop, name_: bool(_conditional_appends(loop, name_)),
                       grow)


def _conditional_appends(loop, name_) -> list:
    """The appends to `name_` of `loop` when `loop` is a `for` over a range or an array
    variable, without `else`, that uses `name_` only in `name_.append(e)` statements of its
    body or of `if`s in it, with `e` not reading `name_`; else []."""
    if not (isinstance(loop, gast.For) and not loop.orelse and _trips(loop.iter) is not None):
        return []
    if name_ in _names(loop.iter) or name_ in _names(loop.target):
        return []
    appends = []

    def visit(stmts) -> bool:
        for stmt in stmts:
            if _is_append(stmt, name_):
                if name_ in S.loaded_names(stmt.value.args[0]):
                    return False
                appends.append(stmt)
            elif isinstance(stmt, gast.If):
                if name_ in _names(stmt.test) or not (visit(stmt.body)
                                                      and visit(stmt.orelse)):
                    return False
            elif name_ in _names(stmt):  # in a nested loop, or used another way
                return False
        return True

    return appends if visit(loop.body) else []


def _trips(sequence):
    """An expression at least the number of iterations of `for ... in sequence`: `len` of a
    range or an array variable, of the first sequence of a `zip` (it stops at the shortest),
    of the sequence `enumerate` or `reversed` is given; None for other sequences."""
    if isinstance(sequence, gast.Name):
        return S.call("len", S.as_load(sequence))
    if not (isinstance(sequence, gast.Call) and isinstance(sequence.func, gast.Name)
            and sequence.args and not sequence.keywords):
        return None
    if sequence.func.id == "range":
        return S.call("len", S.as_load(sequence))
    if sequence.func.id in ("zip", "enumerate", "reversed"):
        return _trips(sequence.args[0])
    return None


def _appends_as_writes(stmts, name_, buffer, count) -> list:
    out = []
    for stmt in stmts:
        if _is_append(stmt, name_):
            target = gast.Subscript(value=S.name(buffer), slice=S.name(count), ctx=gast.Store())
            out += [gast.copy_location(S.assign(target, stmt.value.args[0]), stmt),
                    gast.copy_location(S.aug_assign(S.name(count), gast.Add(), S.const(1)),
                                       stmt)]
            continue
        if isinstance(stmt, gast.If):
            stmt.body = _appends_as_writes(stmt.body, name_, buffer, count)
            stmt.orelse = _appends_as_writes(stmt.orelse, name_, buffer, count)
        out.append(stmt)
    return out

