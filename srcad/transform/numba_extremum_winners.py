"""numba, reverse mode: a running `max` or `min` whose intermediate values nothing else reads
records the step that set its final value (one number) instead of its value before every
step, and its reverse sweep runs that one step's adjoint instead of a loop over every step.

The reverse sweep of `m = max(m, e)` over `i` passes `m`'s adjoint `g` on to the earlier
steps unless `e > m`, and to `e` when `e > m`: so all of it reaches the `e` of the last step
that changed `m` (the winner), or `m`'s value on entry when no step did, and every other step
passes a zero. srcad's code records `m` before each step (8 bytes a step) and the reverse loop
pops it to compare again. Here the forward sweep keeps the loop without the records (which
then runs in lanes, srcad/transform/numba_extremum_lanes.py) and finds the winner after it:
`max(m, e)` keeps `m` unless `e > m`, so a step changes `m` only to a larger value, `m`
changed iff it ends larger than on entry (NaN on entry: never), and the winner is the first
`i` whose `e` equals the final `m` (an earlier equal `e`, a zero of the other sign included,
would have made `m` that value already, and a NaN `e` is never taken). `min` likewise with
`<`. The forward sweep records that index (or -1.0), the reverse sweep pops it and, when it is
an index, runs the reverse loop's body once for it with the comparison true; `m`'s adjoint
stays as it is otherwise, as the loop's steps that pass it on leave it.

What the steps skipped did: each added `0.0 * v` into an adjoint, a zero that leaves the value
as it is but a negative zero (made positive; srcad's adjoints start at +0.0 and are added
into), or a NaN where `v` is infinite or NaN (an element at infinity that is not the maximum);
skipped, that adjoint keeps the zero that forward mode computes too (its tangent of `max` is
a select; where the result is NaN, forward mode's derivatives are NaN throughout) and the
python backend's reverse code, not rewritten, gives the NaN
(srcad/transform/numba_zero_adjoints.py skips such zeros likewise). The results are otherwise
the loop's bits.

A pair is rewritten when a `for` loop over `range` (one or two arguments) of the forward sweep
is `tape[c] = m`, temporaries `t = pure expression` each recorded at `tape[c + j]`, then
`m = max(m, e)` (or `min`) and `c += k` (k records a step), for a float `m` and a pure `e`
(arithmetic, reads, `math` calls) that, like the temporaries, reads neither `m` nor the tape,
right after the statement reserving its records (`tape = reserve_tape(tape, c + k *
len(range(...)))`); one other loop, in a later statement of the function, starts `c -= k`,
pops those records, then `g = m_bar` and `m_bar = 0.0`, and its other statements are `name =
pure expression` or additions into adjoints: `m_bar` once, of `0.0 if C else g`, every other
addition zero when `C` is false (a product with a factor `X if C else 0.0` or a name holding
one, as numba_step_effects.py reads it), where `C` is `X > m` (`<` for `min`) and `m` is read
nowhere else from that statement on; no other statement records or pops `m` on the tape; and
every name the reverse loop assigns but the counter, `m` and `m_bar` is dead after it. The
search for the winner computes the temporaries again and records their values at the
winner's step in the records the loop gave them; the reverse sweep pops them there.

>>> import gast
>>> from srcad.analysis.value_types import FLOAT
>>> from srcad.build.codegen import to_source
>>> from srcad.transform.names import Namer
>>> tree = gast.parse("def f(x, x_bar, g0, tape):\\n"
...                   "    c = 0\\n"
...                   "    m = x[0]\\n"
...                   "    tape = reserve_tape(tape, c + len(range(1, len(x))))\\n"
...                   "    for i in range(1, len(x)):\\n"
...                   "        tape[c] = m\\n"
...                   "        m = max(m, x[i])\\n"
...                   "        c += 1\\n"
...                   "    m_bar = g0\\n"
...                   "    for i in range(len(x) - 1, 0, -1):\\n"
...                   "        c -= 1\\n"
...                   "        m = tape[c]\\n"
...                   "        g = m_bar\\n"
...                   "        m_bar = 0.0\\n"
...                   "        m_bar += 0.0 if x[i] > m else g\\n"
...                   "        x_bar[i] += g if x[i] > m else 0.0\\n"
...                   "    x_bar[0] += m_bar\\n"
...                   "    return x_bar\\n")
>>> out = extremum_winners(tree, Namer.for_tree(tree), {"m": FLOAT}, {"x_bar", "m_bar"})
>>> print(to_source(out).strip())
def f(x, x_bar, g0, tape):
    c = 0
    m = x[0]
    tape = reserve_tape(tape, c + 1)
    m_entry = m
    for i in range(1, len(x)):
        m = max(m, x[i])
    # records only the step that set m (srcad/transform/numba_extremum_winners.py)
    m_won = -1.0
    if m > m_entry:
        i_won = 1
        while i_won + 16 <= len(x):
            i_hits = 0
            for i_at in range(i_won, i_won + 16):
                i_hits += x[i_at] == m
            if i_hits > 0:
                break
            i_won += 16
        for i_at in range(i_won, len(x)):
            if x[i_at] == m:
                m_won = float(i_at)
                break
    tape[c] = m_won
    c += 1
    m_bar = g0
    # the reverse of the step that set m alone (srcad/transform/numba_extremum_winners.py)
    c -= 1
    m_won = tape[c]
    if m_won >= 0.0:
        i = int(m_won)
        g = m_bar
        m_bar = 0.0
        m_bar += 0.0
        x_bar[i] += g
    x_bar[0] += m_bar
    return x_bar
"""

from __future__ import annotations

from dataclasses import dataclass

import gast

from srcad.analysis.value_types import FLOAT
from srcad.frontend import syntax as S
from srcad.transform.numba_extremum_lanes import _extremum_of, _is_range, _pure
from srcad.transform.numba_step_effects import dead_after, target_name
from srcad.transform.numba_winner_adjoints import TakenStep, reverse_compares

_TAKEN = {"max": gast.Gt, "min": gast.Lt}  # the comparison under which `e` is taken
_MARK = "(srcad/transform/numba_extremum_winners.py)"
SEARCH_BLOCK = 16  # values the winner's search compares between its tests for a hit


def extremum_winners(tree, namer, types: dict, adjoints):
    """`tree` with the pairs of loops the module docstring describes rewritten (in place);
    `types` maps a name to its value type, `adjoints` holds the reverse sweep's adjoint
    names."""
    adjoints = set(adjoints)
    if not adjoints:
        return tree
    for fn in (n for n in S.walk(tree) if isinstance(n, gast.FunctionDef)):
        while _one_pair(fn, namer, types, adjoints):
            pass
    return tree


@dataclass
class _Forward:
    """A forward loop of the docstring's shape: it records `m` at `tape[counter]` and the
    temporaries `records[j]` at `tape[counter + j]`, then steps `counter` by `stride`."""

    loop: gast.For
    tape: str
    counter: str
    m: str
    update: gast.Assign
    stride: int
    records: dict  # offset -> the name recorded there (0: m)
    block: list  # the statements holding the loop
    reserve: gast.Assign  # the statement reserving the loop's records


def _one_pair(fn, namer, types, adjoints) -> bool:
    loops = [n for n in S.walk(fn) if isinstance(n, gast.For)]
    for loop in loops:
        forward = _forward_shape(fn, loop, types)
        if forward is None:
            continue
        mirrors = [r for r in loops if r is not loop and _pops(r, forward) is not None]
        if len(mirrors) == 1 and _rewrite(fn, forward, mirrors[0], namer, adjoints):
            return True
    return False


def _code(stmts) -> list:
    return [s for s in stmts if not S.is_comment(s)]


def _offset(node, counter):
    """j for `counter + j` (0 for `counter`), a non-negative int, else None."""
    if isinstance(node, gast.Name) and node.id == counter:
        return 0
    if isinstance(node, gast.BinOp) and isinstance(node.op, gast.Add) \
            and isinstance(node.left, gast.Name) and node.left.id == counter \
            and isinstance(node.right, gast.Constant) and type(node.right.value) is int:
        return node.right.value
    return None


def _record(stmt, tape, counter):
    """(offset, name) for `tape[counter + offset] = name`, else None."""
    if isinstance(stmt, gast.Assign) and len(stmt.targets) == 1 \
            and isinstance(stmt.targets[0], gast.Subscript) \
            and isinstance(stmt.targets[0].value, gast.Name) \
            and stmt.targets[0].value.id == tape and isinstance(stmt.value, gast.Name):
        at = _offset(stmt.targets[0].slice, counter)
        return None if at is None else (at, stmt.value.id)
    return None


def _forward_shape(fn, loop, types):
    """The `_Forward` of a loop of the docstring's shape, else None."""
    if loop.orelse or not isinstance(loop.target, gast.Name) or not _is_range(loop.iter):
        return None
    body = _code(loop.body)
    if len(body) < 3 or not isinstance(body[0], gast.Assign) or len(body[0].targets) != 1 \
            or not isinstance(body[0].targets[0], gast.Subscript) \
            or not isinstance(body[0].targets[0].value, gast.Name) \
            or not isinstance(body[0].targets[0].slice, gast.Name):
        return None
    tape, counter = body[0].targets[0].value.id, body[0].targets[0].slice.id
    step, update = body[-1], body[-2]
    if not (isinstance(step, gast.AugAssign) and isinstance(step.op, gast.Add)
            and isinstance(step.target, gast.Name) and step.target.id == counter
            and isinstance(step.value, gast.Constant) and type(step.value.value) is int) \
            or not isinstance(update, gast.Assign) \
            or not isinstance(update.targets[0], gast.Name) or not _extremum_of(update):
        return None
    m, stride = update.targets[0].id, step.value.value
    records, temps = {}, set()
    unread = {m, tape, counter}
    for stmt in body[:-2]:
        found = _record(stmt, tape, counter)
        if found is not None:
            at, name = found
            if at in records or not (name == m if at == 0 else name in temps):
                return None
            records[at] = name
        elif isinstance(stmt, gast.Assign) and len(stmt.targets) == 1 \
                and isinstance(stmt.targets[0], gast.Name) and _pure(stmt.value) \
                and not S.loaded_names(stmt.value) & unread \
                and stmt.targets[0].id not in unread | temps | {loop.target.id}:
            temps.add(stmt.targets[0].id)
        else:
            return None
    e = update.value.args[1]
    if sorted(records) != list(range(stride)) or types.get(m) != FLOAT or not _pure(e) \
            or S.loaded_names(e) & unread \
            or S.loaded_names(loop.iter) & (unread | temps | {loop.target.id}):
        return None
    block = _block_of(fn, loop)
    if block is None:
        return None
    before = _code(block[:block.index(loop)])
    times = f"{stride} * " if stride > 1 else ""
    reserve = S.parse_stmts(f"{tape} = reserve_tape({tape}, {counter} + "
                            f"{times}len({S.unparse_expr(loop.iter)}))")[0]
    if not before or gast.dump(before[-1]) != gast.dump(reserve):
        return None
    return _Forward(loop, tape, counter, m, update, stride, records, block, before[-1])


def _pops(loop, forward: _Forward):
    """The statements of `loop` popping the forward loop's records (in its body's order), when
    its body starts by stepping the counter back and popping each of them, else None."""
    body = _code(loop.body)
    if loop.orelse or not isinstance(loop.target, gast.Name) \
            or len(body) <= forward.stride + 1 \
            or not _step(body[0], forward.counter, gast.Sub, forward.stride):
        return None
    popped = {}
    for stmt in body[1:forward.stride + 1]:
        if not (isinstance(stmt, gast.Assign) and len(stmt.targets) == 1
                and isinstance(stmt.targets[0], gast.Name)
                and isinstance(stmt.value, gast.Subscript)
                and isinstance(stmt.value.value, gast.Name)
                and stmt.value.value.id == forward.tape):
            return None
        at = _offset(stmt.value.slice, forward.counter)
        if at is None or at in popped:
            return None
        popped[at] = stmt.targets[0].id
    return body[1:forward.stride + 1] if popped == forward.records else None


def _step(stmt, counter, op, by) -> bool:
    return isinstance(stmt, gast.AugAssign) and isinstance(stmt.op, op) \
        and isinstance(stmt.target, gast.Name) and stmt.target.id == counter \
        and isinstance(stmt.value, gast.Constant) and stmt.value.value == by


def _block_of(fn, node):
    for parent in S.walk(fn):
        for field in ("body", "orelse"):
            block = getattr(parent, field, None)
            if isinstance(block, list) and any(s is node for s in block):
                return block
    return None


def _top_index(fn, node):
    for k, stmt in enumerate(fn.body):
        if any(n is node for n in S.walk(stmt)):
            return k
    return None


def _rewrite(fn, forward: _Forward, mirror, namer, adjoints) -> bool:
    tape, counter, m, update, loop = (forward.tape, forward.counter, forward.m, forward.update,
                                      forward.loop)
    top, start = _top_index(fn, mirror), _top_index(fn, loop)
    if top is None or start is None or top <= start:
        return False
    pops = _pops(mirror, forward)
    rest = _code(mirror.body)[forward.stride + 1:]
    pop = next(p for p in pops if p.targets[0].id == m)
    found = reverse_compares(rest, m, _TAKEN[update.value.func.id], tape, counter, adjoints)
    if found is None:
        return False
    compares, m_bar = found
    if not _only_pair(fn, loop, pop, tape, m) \
            or not _read_only_in(fn.body[top:], m, compares, pop) \
            or not dead_after(fn, mirror, keep={counter, m, m_bar}):
        return False
    mirror_block = _block_of(fn, mirror)
    if mirror_block is None:
        return False
    won, entry = namer.fresh(f"{m}_won"), namer.fresh(f"{m}_entry")
    temps = [st for st in _code(loop.body) if isinstance(st, gast.Assign)
             and isinstance(st.targets[0], gast.Name) and st is not update]
    forward.reserve.value = S.parse_expr(f"reserve_tape({tape}, {counter} + "
                                         f"{forward.stride})")
    loop.body = [st for st in loop.body if S.is_comment(st) or st is update or st in temps]
    after = _search(forward, temps, entry, won, namer)
    k = forward.block.index(loop)
    forward.block[k:k + 1] = [S.assign(S.name(entry, store=True), S.name(m)), loop,
                              S.comment(f"records only the step that set {m} {_MARK}"),
                              *after]
    taken = TakenStep({id(c) for c in compares}).visit
    once = S.parse_stmts(f"{counter} -= {forward.stride}\n{won} = {tape}[{counter}]\n"
                         f"if {won} >= 0.0:\n    {mirror.target.id} = int({won})")
    once[-1].body += [p for p in pops if p is not pop]
    at = mirror.body.index(pops[-1])
    once[-1].body += [st for st in mirror.body[:at] if S.is_comment(st)]
    once[-1].body += [taken(st) for st in mirror.body[at + 1:]]
    k = mirror_block.index(mirror)
    mirror_block[k:k + 1] = [S.comment(f"the reverse of the step that set {m} alone {_MARK}"),
                             *once]
    return True


def _search(forward: _Forward, temps, entry, won, namer) -> list:
    """The statements after the forward loop: `won` the first step whose value is the final
    extremum when the loop changed it (else -1.0), that step's temporaries recorded where
    the loop recorded them, `won` recorded in `m`'s place. The search compares `SEARCH_BLOCK`
    values at a time before it tests for a hit (a loop LLVM vectorizes; one with an exit
    per value it does not)."""
    loop, m, update = forward.loop, forward.m, forward.update
    index = loop.target.id
    block, at, hits = (namer.fresh(f"{index}_{role}") for role in ("won", "at", "hits"))
    renames = {index: at, **{st.targets[0].id: namer.fresh(f"{st.targets[0].id}_won")
                             for st in temps}}
    args = loop.iter.args
    start = S.unparse_expr(args[0]) if len(args) == 2 else "0"
    stop = S.unparse_expr(args[-1])
    e = S.unparse_expr(S.renamed(update.value.args[1], renames))
    changed = ">" if update.value.func.id == "max" else "<"
    kept = "".join(f"            {forward.tape}[{forward.counter} + {j}] = {renames[name]}\n"
                   for j, name in sorted(forward.records.items()) if j)
    after = S.parse_stmts(
        f"{won} = -1.0\n"
        f"if {m} {changed} {entry}:\n"
        f"    {block} = {start}\n"
        f"    while {block} + {SEARCH_BLOCK} <= {stop}:\n"
        f"        {hits} = 0\n"
        f"        for {at} in range({block}, {block} + {SEARCH_BLOCK}):\n"
        f"            pass\n"
        f"            {hits} += {e} == {m}\n"
        f"        if {hits} > 0:\n"
        f"            break\n"
        f"        {block} += {SEARCH_BLOCK}\n"
        f"    for {at} in range({block}, {stop}):\n"
        f"        pass\n"
        f"        if {e} == {m}:\n"
        f"            {won} = float({at})\n{kept}"
        f"            break\n"
        f"{forward.tape}[{forward.counter}] = {won}\n"
        f"{forward.counter} += {forward.stride}")
    found = after[1].body
    found[1].body[1].body[:1] = [S.renamed(st, renames) for st in temps]
    found[2].body[:1] = [S.renamed(st, renames) for st in temps]
    return after


def _only_pair(fn, loop, pop, tape, m) -> bool:
    """Whether the forward loop's record of `m` and the mirror's `pop` are the only statements
    that record `m` on `tape` or pop it from there (none run again, as checkpointed code
    does)."""
    record = _code(loop.body)[0]
    for stmt in S.walk(fn):
        if not isinstance(stmt, gast.Assign) or len(stmt.targets) != 1:
            continue
        target, value = stmt.targets[0], stmt.value
        records = isinstance(target, gast.Subscript) and target_name(target) == tape \
            and isinstance(value, gast.Name) and value.id == m
        pops = isinstance(target, gast.Name) and target.id == m \
            and isinstance(value, gast.Subscript) and target_name(value) == tape
        if (records and stmt is not record) or (pops and stmt is not pop):
            return False
    return True


def _read_only_in(statements, m, compares, pop) -> bool:
    """Whether, in `statements`, `m` is assigned only by `pop` and read only in `compares`."""
    inside = {id(n) for c in compares for n in S.walk(c)}
    for stmt in statements:
        for n in S.walk(stmt):
            if isinstance(n, gast.Name) and n.id == m and id(n) not in inside \
                    and n is not pop.targets[0]:
                return False
    return True
