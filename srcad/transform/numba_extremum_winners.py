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
a select) and the python backend's reverse code, not rewritten, gives the NaN
(srcad/transform/numba_zero_adjoints.py skips such zeros likewise). The results are otherwise
the loop's bits.

A pair is rewritten when a `for` loop over `range` (one or two arguments) of the forward sweep
is exactly `tape[c] = m`, `m = max(m, e)` (or `min`) and `c += 1`, for a float `m` and a pure
`e` (arithmetic, reads, `math` calls) that reads neither `m` nor the tape, right after the
statement reserving its records (`tape = reserve_tape(tape, c + len(range(...)))`); one other
loop, in a later statement of the function, starts `c -= 1`, `m = tape[c]`, then `g = m_bar`
and `m_bar = 0.0`, and its other statements are `name = pure expression` or additions into
adjoints: `m_bar` once, of `0.0 if C else g`, every other addition zero when `C` is false (a
product with a factor `X if C else 0.0` or a name holding one, as numba_zero_adjoints.py
reads it), where `C` is `X > m` (`<` for `min`) and `m` is read nowhere else from that
statement on; no other statement records or pops `m` on the tape; and every name the reverse
loop assigns but the counter, `m` and `m_bar` is dead after it.

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
        for i_won in range(1, len(x)):
            if x[i_won] == m:
                m_won = float(i_won)
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

import gast

from srcad.analysis.value_types import FLOAT
from srcad.frontend import syntax as S
from srcad.transform.numba_extremum_lanes import _extremum_of, _is_range, _pure
from srcad.transform.numba_zero_adjoints import _proportional, dead_after

_TAKEN = {"max": gast.Gt, "min": gast.Lt}  # the comparison under which `e` is taken
_MARK = "(srcad/transform/numba_extremum_winners.py)"


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


def _one_pair(fn, namer, types, adjoints) -> bool:
    loops = [n for n in S.walk(fn) if isinstance(n, gast.For)]
    for forward in loops:
        shape = _forward_shape(fn, forward, types)
        if shape is None:
            continue
        mirrors = [r for r in loops if r is not forward and _pops(r, *shape[:3])]
        if len(mirrors) == 1 and _rewrite(fn, forward, mirrors[0], shape, namer, adjoints):
            return True
    return False


def _code(stmts) -> list:
    return [s for s in stmts if not S.is_comment(s)]


def _forward_shape(fn, loop, types):
    """(tape, counter, m, the update, its block, the reserving statement) for a forward loop
    of the docstring's shape, else None."""
    if loop.orelse or not isinstance(loop.target, gast.Name) or not _is_range(loop.iter):
        return None
    body = _code(loop.body)
    if len(body) != 3 or not isinstance(body[1], gast.Assign) \
            or not isinstance(body[1].targets[0], gast.Name) or not _extremum_of(body[1]):
        return None
    m, e = body[1].targets[0].id, body[1].value.args[1]
    record = body[0]
    if not (isinstance(record, gast.Assign) and len(record.targets) == 1
            and isinstance(record.targets[0], gast.Subscript)
            and isinstance(record.targets[0].value, gast.Name)
            and isinstance(record.targets[0].slice, gast.Name)
            and isinstance(record.value, gast.Name) and record.value.id == m):
        return None
    tape, counter = record.targets[0].value.id, record.targets[0].slice.id
    if not _step(body[2], counter, gast.Add) or types.get(m) != FLOAT or not _pure(e) \
            or S.loaded_names(e) & {m, tape, counter} \
            or S.loaded_names(loop.iter) & {m, tape, counter, loop.target.id}:
        return None
    block = _block_of(fn, loop)
    if block is None:
        return None
    before = _code(block[:block.index(loop)])
    reserve = S.parse_stmts(f"{tape} = reserve_tape({tape}, {counter} + "
                            f"len({S.unparse_expr(loop.iter)}))")[0]
    if not before or gast.dump(before[-1]) != gast.dump(reserve):
        return None
    return tape, counter, m, body[1], block, before[-1]


def _pops(loop, tape, counter, m) -> bool:
    body = _code(loop.body)
    return (not loop.orelse and isinstance(loop.target, gast.Name) and len(body) > 2
            and _step(body[0], counter, gast.Sub) and isinstance(body[1], gast.Assign)
            and gast.dump(body[1]) == gast.dump(S.parse_stmts(f"{m} = {tape}[{counter}]")[0]))


def _step(stmt, counter, op) -> bool:
    return isinstance(stmt, gast.AugAssign) and isinstance(stmt.op, op) \
        and isinstance(stmt.target, gast.Name) and stmt.target.id == counter \
        and isinstance(stmt.value, gast.Constant) and stmt.value.value == 1


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


def _rewrite(fn, forward, mirror, shape, namer, adjoints) -> bool:
    tape, counter, m, update, forward_block, reserve = shape
    top, start = _top_index(fn, mirror), _top_index(fn, forward)
    if top is None or start is None or top <= start:
        return False
    pop, rest = _code(mirror.body)[1], _code(mirror.body)[2:]
    compares = _reverse_compares(rest, m, _TAKEN[update.value.func.id], tape, counter,
                                 adjoints)
    if compares is None or not _only_pair(fn, forward, mirror, tape, m) \
            or not _read_only_in(fn.body[top:], m, compares, pop) \
            or not dead_after(fn, mirror, keep={counter, m, rest[0].value.id}):
        return False
    mirror_block = _block_of(fn, mirror)
    if mirror_block is None:
        return False
    won, entry = namer.fresh(f"{m}_won"), namer.fresh(f"{m}_entry")
    index = forward.target.id
    search = namer.fresh(f"{index}_won")
    e = S.unparse_expr(S.renamed(update.value.args[1], {index: search}))
    reserve.value = S.parse_expr(f"reserve_tape({tape}, {counter} + 1)")
    forward.body = [s for s in forward.body if s is update or S.is_comment(s)]
    changed = ">" if update.value.func.id == "max" else "<"
    after = S.parse_stmts(
        f"{won} = -1.0\n"
        f"if {m} {changed} {entry}:\n"
        f"    for {search} in {S.unparse_expr(forward.iter)}:\n"
        f"        if {e} == {m}:\n"
        f"            {won} = float({search})\n"
        f"            break\n"
        f"{tape}[{counter}] = {won}\n"
        f"{counter} += 1")
    k = forward_block.index(forward)
    forward_block[k:k + 1] = [S.assign(S.name(entry, store=True), S.name(m)), forward,
                              S.comment(f"records only the step that set {m} {_MARK}"),
                              *after]
    taken = _TakenStep({id(c) for c in compares}).visit
    once = S.parse_stmts(f"{counter} -= 1\n{won} = {tape}[{counter}]\n"
                         f"if {won} >= 0.0:\n    {mirror.target.id} = int({won})")
    at = mirror.body.index(pop)
    once[-1].body += [s for s in mirror.body[:at] if S.is_comment(s)]
    once[-1].body += [taken(s) for s in mirror.body[at + 1:]]
    k = mirror_block.index(mirror)
    mirror_block[k:k + 1] = [S.comment(f"the reverse of the step that set {m} alone {_MARK}"),
                             *once]
    return True


def _reverse_compares(rest, m, taken, tape, counter, adjoints):
    """The comparisons `X > m` (`X < m`) of the reverse loop's statements after the pop when
    they have the docstring's shape, else None."""
    if len(rest) < 3 or not (isinstance(rest[0], gast.Assign)
                             and isinstance(rest[0].targets[0], gast.Name)
                             and isinstance(rest[0].value, gast.Name)):
        return None
    g, m_bar = rest[0].targets[0].id, rest[0].value.id
    if m_bar not in adjoints or gast.dump(rest[1]) != gast.dump(
            S.parse_stmts(f"{m_bar} = 0.0")[0]):
        return None
    compares = [n for s in rest for n in S.walk(s) if isinstance(n, gast.Compare)
                and m in S.loaded_names(n)]
    if not compares or any(
            len(c.ops) != 1 or not isinstance(c.ops[0], taken)
            or not isinstance(c.comparators[0], gast.Name) or c.comparators[0].id != m
            or m in S.loaded_names(c.left) or gast.dump(c) != gast.dump(compares[0])
            for c in compares):
        return None
    test = S.unparse_expr(compares[0])
    tests = {id(c) for c in compares}
    selects = [n for s in rest for n in S.walk(s) if isinstance(n, gast.IfExp)
               and id(n.test) in tests]
    if len(selects) != len(compares):
        return None  # a comparison outside a select
    vanishing, restored = set(), 0
    for stmt in rest[2:]:
        names = {n.id for n in S.walk(stmt) if isinstance(n, gast.Name)}
        if names & {tape, counter} or not _read_in_selects(stmt, g, tests):
            return None
        if isinstance(stmt, gast.Assign) and len(stmt.targets) == 1 \
                and isinstance(stmt.targets[0], gast.Name) and _pure(stmt.value):
            target = stmt.targets[0].id
            if target in (g, m, m_bar) or m_bar in names:
                return None
            if _vanishes(stmt.value, vanishing, tests):
                vanishing.add(target)
            else:
                vanishing.discard(target)
        elif isinstance(stmt, gast.AugAssign) and isinstance(stmt.op, (gast.Add, gast.Sub)) \
                and _pure(stmt.target) and _pure(_unshared(stmt.value)) \
                and (_unshared(stmt.value) is stmt.value or _pure(stmt.value.args[0])):
            value = _unshared(stmt.value)
            if isinstance(stmt.target, gast.Name) and stmt.target.id == m_bar:
                restore = S.parse_expr(f"0.0 if {test} else {g}")
                if isinstance(stmt.op, gast.Sub) or gast.dump(value) != gast.dump(restore) \
                        or (value is not stmt.value
                            and gast.dump(stmt.value.args[0]) != gast.dump(S.name(m_bar))):
                    return None
                restored += 1
            elif m_bar in names or _target_name(stmt.target) not in adjoints \
                    or not _vanishes(value, vanishing, tests):
                return None
        else:
            return None
    return compares if restored == 1 else None


def _read_in_selects(stmt, g, tests) -> bool:
    """Whether every read of `g` in `stmt` is inside a select on one of `tests`."""
    inside = {id(n) for s in S.walk(stmt) if isinstance(s, gast.IfExp) and id(s.test) in tests
              for n in S.walk(s)}
    return all(id(n) in inside for n in S.walk(stmt)
               if isinstance(n, gast.Name) and n.id == g and isinstance(n.ctx, gast.Load))


def _vanishes(node, vanishing, tests) -> bool:
    """Whether `node` is zero (or NaN) whenever the comparison is false."""
    node = _unshared(node)
    if isinstance(node, gast.IfExp) and id(node.test) in tests:
        return isinstance(node.orelse, gast.Constant) and node.orelse.value == 0.0 \
            and not isinstance(node.orelse.value, bool)
    if isinstance(node, gast.UnaryOp):
        return isinstance(node.op, (gast.USub, gast.UAdd)) and _vanishes(node.operand,
                                                                         vanishing, tests)
    if isinstance(node, gast.BinOp):
        left = _vanishes(node.left, vanishing, tests)
        right = _vanishes(node.right, vanishing, tests)
        if isinstance(node.op, gast.Mult):
            return left or right
        if isinstance(node.op, gast.Div):
            return left
        if isinstance(node.op, (gast.Add, gast.Sub)):
            return left and right
        return False
    return _proportional(node, vanishing)


def _unshared(node):
    """`v` for srcad's `unshared(t, v)` (which is `v`), else `node`."""
    if isinstance(node, gast.Call) and isinstance(node.func, gast.Name) \
            and node.func.id == "unshared" and len(node.args) == 2:
        return node.args[1]
    return node


def _target_name(target):
    while isinstance(target, gast.Subscript):
        target = target.value
    return target.id if isinstance(target, gast.Name) else None


def _only_pair(fn, forward, mirror, tape, m) -> bool:
    """Whether the forward loop's record and the mirror's pop are the only statements that
    record `m` on `tape` or pop it from there (none run again, as checkpointed code does)."""
    for stmt in S.walk(fn):
        if not isinstance(stmt, gast.Assign) or len(stmt.targets) != 1:
            continue
        target, value = stmt.targets[0], stmt.value
        records = isinstance(target, gast.Subscript) and _target_name(target) == tape \
            and isinstance(value, gast.Name) and value.id == m
        pops = isinstance(target, gast.Name) and target.id == m \
            and isinstance(value, gast.Subscript) and _target_name(value) == tape
        if (records and stmt is not _code(forward.body)[0]) \
                or (pops and stmt is not _code(mirror.body)[1]):
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


class _TakenStep(gast.NodeTransformer):
    """The reverse loop's statement for the step that set `m`: each select on the
    comparison replaced by its taken branch."""

    def __init__(self, tests):
        self.tests = tests

    def visit_IfExp(self, node):
        if id(node.test) in self.tests:
            return self.visit(node.body)
        return self.generic_visit(node)
