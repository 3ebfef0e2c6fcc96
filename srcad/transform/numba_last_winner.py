"""numba, reverse mode: a running `min`/`max` whose flags leave every reverse step but the
last winner's unchanged records that step's index and replays that one step.

After srcad/transform/numba_compare_tapes.py, the forward sweep of `m = min(m, e)` records
per step whether `e` won (`1.0 if e < m else 0.0`), and the reverse sweep pops the flags one
step at a time: `m`'s adjoint passes to `e` at the last winning step and is zero from there
on. Where every other step leaves every value that matters as it was, here checked step by
step on the code, the forward sweep records instead the index of the last step whose flag
was set (-1 for none), once after the loop, and the reverse sweep runs the body of that one
step: k-means' `dir` pops one value per point instead of one per point and centroid.

The check (`_unchanged`, srcad/transform/numba_step_effects.py) follows the reverse body's
statements with the values they start with, for a step whose flag is 0 and for one whose
flag is 1 after the winner: a name copied or added a zero keeps its value; `x = 0.0` makes a
zero; a branch on the flag or on a name known zero (`if d_bar != 0.0:`) is decided; anything
else run (an element written, a loop, a call with an effect) leaves the loop as it is. A
name must end as it started, or be zero at the loop's start (assigned `0.0` before it with
nothing assigning it in between, and again at each step's end) and end zero; every other
name the loop assigns must be dead after it. The skipped steps computed nothing but
`0.0 + x` for a value `x` (a zero of either sign becomes +0.0: adjoints srcad zeroed and
only added into hold no -0.0).

>>> import gast
>>> from srcad.build.codegen import to_source
>>> from srcad.transform.names import Namer
>>> tree = gast.parse(
...     "def f(x, x_bar, tape, m_bar):\\n"
...     "    tape_size = 0\\n"
...     "    e_bar = 0.0\\n"
...     "    m = 9.0\\n"
...     "    tape = reserve_tape(tape, tape_size + len(range(4)))\\n"
...     "    for j in range(4):\\n"
...     "        e = x[j] * x[j]\\n"
...     "        tape[tape_size] = 1.0 if e < m else 0.0\\n"
...     "        tape_size += 1\\n"
...     "        m = min(m, e)\\n"
...     "    for j in range(3, -1, -1):\\n"
...     "        tape_size -= 1\\n"
...     "        flag = tape[tape_size]\\n"
...     "        g = m_bar\\n"
...     "        m_bar = 0.0\\n"
...     "        if not flag != 0.0:\\n"
...     "            m_bar += g\\n"
...     "        if flag != 0.0:\\n"
...     "            e_bar += g\\n"
...     "        if e_bar != 0.0:\\n"
...     "            x_bar[j] += 2.0 * x[j] * e_bar\\n"
...     "        e_bar = 0.0\\n"
...     "    return x_bar\\n")
>>> print(to_source(last_winner_steps(tree, Namer.for_tree(tree))).strip())
def f(x, x_bar, tape, m_bar):
    tape_size = 0
    e_bar = 0.0
    m = 9.0
    tape = reserve_tape(tape, tape_size + len(range(4)))
    j_winner = -1
    for j in range(4):
        e = x[j] * x[j]
        # records the last step whose flag is set (srcad/transform/numba_last_winner.py)
        if e < m:
            j_winner = j
        m = min(m, e)
    tape[tape_size] = j_winner
    tape_size += 1
    tape_size -= 1
    j_winner = int(tape[tape_size])
    # replays only the step of the last winner (srcad/transform/numba_last_winner.py)
    if j_winner >= 0:
        j = j_winner
        flag = 1.0
        g = m_bar
        m_bar = 0.0
        if not flag != 0.0:
            m_bar += g
        if flag != 0.0:
            e_bar += g
        if e_bar != 0.0:
            x_bar[j] += 2.0 * x[j] * e_bar
        e_bar = 0.0
    return x_bar
"""

from __future__ import annotations

import gast

from srcad.frontend import syntax as S
from srcad.transform.numba_step_effects import ZERO, dead_after, follow, outcome
from srcad.transform.numba_tape_counts import counted_again


def last_winner_steps(tree, namer):
    """`tree` with the loop pairs the module docstring describes rewritten (in place)."""
    for fn in (n for n in S.walk(tree) if isinstance(n, gast.FunctionDef)):
        loops = [n for n in S.walk(fn) if isinstance(n, gast.For)]
        for forward in loops:
            record = _flag_record(forward)
            if record is None:
                continue
            mirrors = [r for r in loops if r is not forward
                       and _pop_of(r, *record[1:3]) is not None]
            if len(mirrors) == 1:
                _rewrite(fn, forward, mirrors[0], record, namer)
    return tree


def _flag_record(loop):
    """(index in body, tape, size, test) of the one record of `loop`'s body,
    `tape[size] = 1.0 if test else 0.0; size += 1`, when nothing else in the loop uses the
    tape or its size and the loop is left by no `break`/`continue`; else None."""
    if not isinstance(loop.target, gast.Name) or loop.orelse or any(
            isinstance(n, (gast.Break, gast.Continue)) for n in S.walk(loop)):
        return None
    body = loop.body
    for k in range(len(body) - 1):
        stmt, step = body[k], body[k + 1]
        if not (isinstance(stmt, gast.Assign) and len(stmt.targets) == 1
                and isinstance(stmt.targets[0], gast.Subscript)
                and isinstance(stmt.targets[0].value, gast.Name)
                and isinstance(stmt.targets[0].slice, gast.Name)
                and isinstance(stmt.value, gast.IfExp)
                and S.same(stmt.value.body, S.const(1.0))
                and S.same(stmt.value.orelse, S.const(0.0))):
            continue
        tape, size = stmt.targets[0].value.id, stmt.targets[0].slice.id
        if not _counter_step(step, size, gast.Add):
            continue
        others = [n for s in body if s is not stmt and s is not step for n in S.walk(s)
                  if isinstance(n, gast.Name) and n.id in (tape, size)]
        if not others and not (S.loaded_names(stmt.value) & {tape, size}):
            return k, tape, size, stmt.value.test
    return None


def _pop_of(loop, tape, size):
    """(index in body, flag name) of `size -= 1; flag = tape[size]` in `loop`'s body, its one
    use of the tape, when the flag is read only as `flag != 0.0`; else None."""
    if not isinstance(loop.target, gast.Name) or loop.orelse:
        return None
    body = loop.body
    for k in range(len(body) - 1):
        step, stmt = body[k], body[k + 1]
        if not (_counter_step(step, size, gast.Sub) and isinstance(stmt, gast.Assign)
                and len(stmt.targets) == 1 and isinstance(stmt.targets[0], gast.Name)
                and isinstance(stmt.value, gast.Subscript)
                and isinstance(stmt.value.value, gast.Name) and stmt.value.value.id == tape
                and isinstance(stmt.value.slice, gast.Name) and stmt.value.slice.id == size):
            continue
        flag = stmt.targets[0].id
        rest = [s for s in body if s is not step and s is not stmt]
        if any(isinstance(n, gast.Name) and n.id in (tape, size) for s in rest
               for n in S.walk(s)):
            return None
        tests = [n for s in rest for n in S.walk(s) if _is_flag_test(n, flag)]
        reads = [n for s in rest for n in S.walk(s) if isinstance(n, gast.Name)
                 and n.id == flag]
        if len(reads) != len(tests) or flag == loop.target.id:
            return None
        return k, flag
    return None


def _counter_step(stmt, size, op) -> bool:
    return isinstance(stmt, gast.AugAssign) and isinstance(stmt.op, op) \
        and isinstance(stmt.target, gast.Name) and stmt.target.id == size \
        and isinstance(stmt.value, gast.Constant) and stmt.value.value == 1


def _is_flag_test(node, flag) -> bool:
    return isinstance(node, gast.Compare) and len(node.ops) == 1 \
        and isinstance(node.ops[0], gast.NotEq) and isinstance(node.left, gast.Name) \
        and node.left.id == flag and S.same(node.comparators[0], S.const(0.0))


def _rewrite(fn, forward, mirror, record, namer) -> bool:
    k, tape, size, test = record
    k_pop, flag = _pop_of(mirror, tape, size)
    if mirror.target.id != forward.target.id:
        return False
    body = [s for s in mirror.body if s is not mirror.body[k_pop]
            and s is not mirror.body[k_pop + 1]]
    ends_zero = _ends_zero(body, flag, False) & _ends_zero(body, flag, True)
    zero = {name for name in ends_zero if _zero_before(fn, mirror, name)}
    unflagged = _unchanged(body, flag, False, zero)
    after_winner = _unchanged(body, flag, True, zero | _zero_after(body, flag, zero))
    if unflagged is None or after_winner is None:
        return False
    kept = unflagged & after_winner
    if not dead_after(fn, mirror, keep=kept) or not _no_read_of(fn, flag, mirror):
        return False
    index = forward.target.id
    winner = namer.fresh(f"{index}_winner")
    # forward: the index of the last step whose flag is set, recorded after the loop
    forward.body[k:k + 2] = [
        S.comment("records the last step whose flag is set "
                  "(srcad/transform/numba_last_winner.py)"),
        gast.If(test=test, body=[S.assign(S.name(winner, store=True), S.name(index))],
                orelse=[])]
    push = S.parse_stmts(f"{tape}[{size}] = {winner}\n{size} += 1\n")
    _replace_in_parent(fn, forward, [S.assign(S.name(winner, store=True), S.const(-1)),
                                     forward] + push)
    if not counted_again(fn, push[0], tape, size):  # room the loop's reservation may lack
        grow = S.parse_stmts(f"if {size} == {tape}.shape[0]:\n"
                             f"    {tape} = np.concatenate(({tape}, np.empty_like({tape})))\n")
        _replace_in_parent(fn, push[0], grow + [push[0]])
    replay = S.parse_stmts(f"{size} -= 1\n{winner} = int({tape}[{size}])\n") + [
        S.comment("replays only the step of the last winner "
                  "(srcad/transform/numba_last_winner.py)"),
        gast.If(test=S.parse_expr(f"{winner} >= 0"),
                body=[S.assign(S.name(index, store=True), S.name(winner)),
                      S.assign(S.name(flag, store=True), S.const(1.0))] + body, orelse=[])]
    _replace_in_parent(fn, mirror, replay)
    return True


def _ends_zero(body, flag, flagged, zero=frozenset()) -> set:
    """The names a step (its flag `flagged`) leaves +0.0 whatever they held (`zero`: those
    known +0.0 before `body`): assigned `0.0` by a statement it runs, not assigned after."""
    zero = set(zero)
    for stmt in body:
        branch = _decided(stmt, flag, flagged, set())
        if branch is not None:
            zero = _ends_zero(branch, flag, flagged, zero)
            continue
        zero -= _stores(stmt)
        if isinstance(stmt, gast.Assign) and len(stmt.targets) == 1 \
                and isinstance(stmt.targets[0], gast.Name) \
                and S.same(stmt.value, S.const(0.0)):
            zero.add(stmt.targets[0].id)
    return zero


def _stores(stmt) -> set:
    return {n.id for n in S.walk(stmt) if isinstance(n, gast.Name)
            and not isinstance(n.ctx, gast.Load)}


def _decided(stmt, flag, flagged, zero):
    """The statements an `if` on the flag (or on a name in `zero` being nonzero) runs, else
    None."""
    if not isinstance(stmt, gast.If):
        return None
    taken = outcome(stmt.test, zero, _flag_decision(flag, flagged))
    return None if taken is None else stmt.body if taken else stmt.orelse


def _flag_decision(flag, flagged):
    """`flag != 0.0` is `flagged`."""
    return lambda test: flagged if _is_flag_test(test, flag) else None


def _unchanged(body, flag, flagged, zero):
    """The names a step whose flag is `flagged` assigns and leaves as they were, the names in
    `zero` starting at +0.0; None when the step may do more than pass values along (module
    docstring) or reads at its start a name it changes."""
    step = follow(body, zero=zero, decide=_flag_decision(flag, flagged))
    return None if step is None else step.unchanged(zero)


def _zero_after(body, flag, zero) -> set:
    """The names the winner's step (flag 1) leaves +0.0, the names in `zero` starting so."""
    step = follow(body, zero=zero, decide=_flag_decision(flag, True), relaxed=True)
    return {name for name, value in step.values.items() if value == ZERO}


def _zero_before(fn, loop, name) -> bool:
    """Whether `name` is +0.0 whenever `loop` starts: assigned `0.0` earlier with nothing
    assigning it in between, through the blocks around the loop (a loop around it: what each
    of its iterations assigns after `loop` ends zero too, or nothing)."""
    path = _path(fn, loop)
    if path is None:
        return False
    inside = {id(n) for n in S.walk(loop)}
    for block, position, owner in reversed(path):
        if any(isinstance(n, gast.Name) and n.id == name and not isinstance(n.ctx, gast.Load)
               and id(n) not in inside for n in S.walk(block[position])):
            return False  # assigned beside the loop (in another branch, say)
        for stmt in reversed(block[:position]):
            if name in _stores(stmt):
                return isinstance(stmt, gast.Assign) and len(stmt.targets) == 1 \
                    and isinstance(stmt.targets[0], gast.Name) \
                    and S.same(stmt.value, S.const(0.0))
        if isinstance(owner, (gast.For, gast.While)):
            # the iteration before: what follows `loop`'s line in this block assigns nothing
            if any(name in _stores(s) for s in block[position + 1:]):
                return False
        elif not isinstance(owner, gast.If):
            return False
    return False


def _path(fn, target):
    """[(block, index in block, node owning the block)] from fn's body down to `target`."""
    def search(block, owner):
        for k, stmt in enumerate(block):
            if stmt is target:
                return [(block, k, owner)]
            for field in ("body", "orelse"):
                inner = getattr(stmt, field, None)
                if isinstance(inner, list):
                    found = search(inner, stmt)
                    if found is not None:
                        return [(block, k, owner)] + found
        return None
    return search(fn.body, fn)


def _no_read_of(fn, flag, mirror) -> bool:
    """The flag is read nowhere but in the reverse loop."""
    inside = {id(n) for n in S.walk(mirror)}
    return not any(isinstance(n, gast.Name) and n.id == flag and id(n) not in inside
                   for n in S.walk(fn))


def _replace_in_parent(fn, node, statements) -> None:
    block, k, _ = _path(fn, node)[-1]
    block[k:k + 1] = statements
