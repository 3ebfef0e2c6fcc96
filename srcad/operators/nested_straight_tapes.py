"""The tapes of g's loop-free derivative code held as locals, for the nested kernels made for
their operands' lengths (srcad/operators/nested_number_kernels.py).

srcad's numba reverse code records the values its reverse sweep reads back on tapes, arrays
the caller passes (srcad/transform/tapes.py: `tape[tape_size] = v; tape_size += 1` and
`tape_size -= 1; v = tape[tape_size]`). In code without loops, where every push and pop is a
statement of the function's body itself (none inside an `if`), the stack is known statement
by statement: each pop reads a value pushed earlier, named. `untaped` replaces each push by an
assignment to a new local and each pop by a read of the local pushed into that place, and drops
the tape's counters and growth: the kernel made for lengths then inlines g's code without its
tape (a kernel with a tape argument kept the general kernel, its workspace and reference
counting).

>>> import gast
>>> from srcad.build.codegen import to_source
>>> fn = gast.parse('''
... def g(x, tape):
...     tape_size = 0
...     tape_length = tape.shape[0]
...     if tape_size == tape.shape[0]:
...         tape = np.concatenate((tape, np.empty_like(tape)))
...     tape[tape_size] = x * x
...     tape_size += 1
...     tape_size -= 1
...     y = tape[tape_size]
...     return y, tape if tape.shape[0] > tape_length else None
... ''').body[0]
>>> print(to_source(untaped(fn)).strip())
def g(x, tape):
    srcad_tape_0 = x * x
    y = srcad_tape_0
    return y, tape if tape.shape[0] > tape_length else None
"""

from __future__ import annotations

import gast

from srcad.frontend import syntax as S


def untaped(fn):
    """A copy of the FunctionDef `fn` whose tapes are locals (module docstring); its
    parameters unchanged (the tape parameters unread before its final `return`). `fn` itself
    where it has no tape; None where a tape is used in another way."""
    params = [a.id for a in fn.args.args]
    body = fn.body[:-1] if fn.body and isinstance(fn.body[-1], gast.Return) else fn.body
    tapes = {p for p in params if any(_is(s, f"{p}_size = 0") for s in body)}
    if not tapes:
        return fn
    if any(isinstance(n, (gast.For, gast.While, gast.AsyncFor)) for s in body
           for n in gast.walk(s)):
        return None
    taken = {n.id for n in gast.walk(fn) if isinstance(n, gast.Name)}
    places = {t: {} for t in tapes}  # tape -> {index: the local pushed there}
    sizes = dict.fromkeys(tapes, 0)
    out, count = [], 0
    for stmt in body:
        tape = _tape_of(stmt, tapes)
        if tape is None:
            out.append(S.clone(stmt))
            continue
        size = f"{tape}_size"
        if _is(stmt, f"{size} = 0") or _is(stmt, f"{tape}_length = {tape}.shape[0]") \
                or _is_growth(stmt, tape):
            continue
        if _is(stmt, f"{size} += 1") or _is(stmt, f"{size} -= 1"):
            sizes[tape] += 1 if isinstance(stmt.op, gast.Add) else -1
            if sizes[tape] < 0:
                return None
            continue
        if _is_push(stmt, tape):
            while f"srcad_tape_{count}" in taken:
                count += 1
            local = f"srcad_tape_{count}"
            count += 1
            places[tape][sizes[tape]] = local
            out.append(gast.copy_location(S.assign(S.name(local, store=True),
                                                   S.clone(stmt.value)), stmt))
            continue
        if _is_pop(stmt, tape) and sizes[tape] in places[tape]:
            out.append(gast.copy_location(S.assign(S.clone(stmt.targets[0]),
                                                   S.name(places[tape][sizes[tape]])), stmt))
            continue
        return None  # another use of a tape
    copy = S.clone(fn)
    copy.body = out + [S.clone(s) for s in fn.body[len(body):]]
    return copy


def _tape_of(stmt, tapes):
    """The tape `stmt` reads or writes (itself, its size or its length), or None."""
    names = {n.id for n in gast.walk(stmt) if isinstance(n, gast.Name)}
    for tape in tapes:
        if names & {tape, f"{tape}_size", f"{tape}_length"}:
            return tape
    return None


def _is(stmt, text) -> bool:
    return gast.dump(stmt) == gast.dump(S.parse_stmts(text)[0]) if _same_kind(stmt, text) \
        else False


def _same_kind(stmt, text) -> bool:
    return isinstance(stmt, (gast.AugAssign if ("+=" in text or "-=" in text)
                             else gast.Assign))


def _is_growth(stmt, tape) -> bool:
    """`if tape_size == tape.shape[0]: tape = np.concatenate((tape, np.empty_like(tape)))`."""
    growth = S.parse_stmts(f"if {tape}_size == {tape}.shape[0]:\n"
                           f"    {tape} = np.concatenate(({tape}, np.empty_like({tape})))\n")[0]
    return isinstance(stmt, gast.If) and gast.dump(stmt) == gast.dump(growth)


def _is_push(stmt, tape) -> bool:
    """`tape[tape_size] = value`, the value not reading the tape."""
    if not (isinstance(stmt, gast.Assign) and len(stmt.targets) == 1):
        return False
    target = stmt.targets[0]
    return isinstance(target, gast.Subscript) and _is_name(target.value, tape) \
        and _is_name(target.slice, f"{tape}_size") \
        and not {tape, f"{tape}_size", f"{tape}_length"} & {
            n.id for n in gast.walk(stmt.value) if isinstance(n, gast.Name)}


def _is_pop(stmt, tape) -> bool:
    """`name = tape[tape_size]`."""
    return isinstance(stmt, gast.Assign) and len(stmt.targets) == 1 \
        and isinstance(stmt.targets[0], gast.Name) \
        and stmt.targets[0].id not in (tape, f"{tape}_size", f"{tape}_length") \
        and isinstance(stmt.value, gast.Subscript) and _is_name(stmt.value.value, tape) \
        and _is_name(stmt.value.slice, f"{tape}_size")


def _is_name(node, name) -> bool:
    return isinstance(node, gast.Name) and node.id == name
