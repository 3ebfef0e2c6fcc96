"""numba, reverse mode: two values the forward sweep records only for the reverse sweep to
compare them are recorded as the comparison's outcome, one value instead of two.

The reverse sweep of `m = min(m, e)` (and `max`) needs only which operand won: srcad's code
records `m` before the update and `e`, and the reverse sweep pops both to evaluate `e < m`
(k-means records two floats per point and centroid). Where the pops' only reads are that
one comparison, the forward sweep records `1.0 if e < m else 0.0` at the first of the two
records and drops the second; the reverse sweep pops the flag and reads `flag != 0.0`. The
comparison is the same one on the same values (a NaN operand compares false either way), so
the results are the same bits.

A pair is rewritten when a loop body `B` records (`tape[tape_size] = a` then `tape_size +=
1`, as statements of `B` itself) and one later loop body `R`, in a later statement of the
function, pops exactly those records in reverse order (`tape_size -= 1` then `a =
tape[tape_size]`) and nothing else; of the names `a` (recorded first) and `e` (recorded
second), `e` is assigned by a statement of `B` (before the first record, or after the
second: a running value) and by nothing between the two records, and from the statement of
the function holding `R` on, `a` and `e` are assigned only by those pops and read only in
copies of one comparison `C` of the two names, in statements of `R` after both pops; and no
other loop body records or pops `a` or `e` on that tape (a copy of the loop run again, as
checkpointed code does).

>>> import gast
>>> from srcad.build.codegen import to_source
>>> from srcad.transform.names import Namer
>>> tree = gast.parse("def f(x, y, tape, g):\\n"
...                   "    tape_size = 0\\n"
...                   "    m = 9.0\\n"
...                   "    for j in range(4):\\n"
...                   "        e = x[j] * x[j]\\n"
...                   "        tape[tape_size] = m\\n"
...                   "        tape_size += 1\\n"
...                   "        m = min(m, e)\\n"
...                   "        tape[tape_size] = e\\n"
...                   "        tape_size += 1\\n"
...                   "    for j in range(3, -1, -1):\\n"
...                   "        tape_size -= 1\\n"
...                   "        e = tape[tape_size]\\n"
...                   "        tape_size -= 1\\n"
...                   "        m = tape[tape_size]\\n"
...                   "        if e < m:\\n"
...                   "            y[j] += g\\n"
...                   "    return y\\n")
>>> print(to_source(compare_tapes(tree, Namer.for_tree(tree))).strip())
def f(x, y, tape, g):
    tape_size = 0
    m = 9.0
    for j in range(4):
        e = x[j] * x[j]
        # records only whether e < m (srcad/transform/numba_compare_tapes.py)
        tape[tape_size] = 1.0 if e < m else 0.0
        tape_size += 1
        m = min(m, e)
    for j in range(3, -1, -1):
        tape_size -= 1
        e_lt_m = tape[tape_size]
        if e_lt_m != 0.0:
            y[j] += g
    return y
"""

from __future__ import annotations

import gast

from srcad.frontend import syntax as S


def compare_tapes(tree, namer):
    """`tree` with the pairs of records the module docstring describes made one (in place)."""
    for fn in (n for n in S.walk(tree) if isinstance(n, gast.FunctionDef)):
        done = True
        while done:  # one pair at a time: each rewrite changes the records
            done = _one_pair(fn, namer)
    return tree


def _one_pair(fn, namer) -> bool:
    loops = [n for n in S.walk(fn) if isinstance(n, gast.For)]
    for forward in loops:
        pushes = _records(forward.body, _push)
        if len(pushes) < 2:
            continue
        mirrors = [r for r in loops if r is not forward
                   and [(t, v) for _, t, v in _records(r.body, _pop)]
                   == [(t, v) for _, t, v in reversed(pushes)]]
        if len(mirrors) != 1 or _records(forward.body, _pop) \
                or _records(mirrors[0].body, _push):
            continue
        top, start = _top_index(fn, mirrors[0]), _top_index(fn, forward)
        if top is None or start is None or top <= start:
            continue
        for first in range(len(pushes)):
            for second in range(first + 1, len(pushes)):
                if _rewrite(fn, forward, mirrors[0], pushes, first, second, top, namer):
                    return True
    return False


def _records(body, kind) -> list:
    """[(index in body, tape, name)] of the records (or pops) that are statements of body;
    the statements holding other tape writes or pops make it [] (not a plain body)."""
    out = []
    for k in range(len(body) - 1):
        found = kind(body[k], body[k + 1])
        if found is not None:
            out.append((k,) + found)
    return out


def _push(stmt, next_stmt):
    """(tape, name) for `tape[counter] = name` followed by `counter += 1`, else None."""
    if isinstance(stmt, gast.Assign) and len(stmt.targets) == 1 \
            and isinstance(stmt.targets[0], gast.Subscript) \
            and isinstance(stmt.targets[0].value, gast.Name) \
            and isinstance(stmt.targets[0].slice, gast.Name) \
            and isinstance(stmt.value, gast.Name) \
            and _step(next_stmt, stmt.targets[0].slice.id, gast.Add):
        return stmt.targets[0].value.id, stmt.value.id
    return None


def _pop(stmt, next_stmt):
    """(tape, name) for `counter -= 1` followed by `name = tape[counter]`, else None."""
    if isinstance(next_stmt, gast.Assign) and len(next_stmt.targets) == 1 \
            and isinstance(next_stmt.targets[0], gast.Name) \
            and isinstance(next_stmt.value, gast.Subscript) \
            and isinstance(next_stmt.value.value, gast.Name) \
            and isinstance(next_stmt.value.slice, gast.Name) \
            and _step(stmt, next_stmt.value.slice.id, gast.Sub):
        return next_stmt.value.value.id, next_stmt.targets[0].id
    return None


def _step(stmt, counter, op) -> bool:
    return isinstance(stmt, gast.AugAssign) and isinstance(stmt.op, op) \
        and isinstance(stmt.target, gast.Name) and stmt.target.id == counter \
        and isinstance(stmt.value, gast.Constant) and stmt.value.value == 1


def _top_index(fn, node):
    for k, stmt in enumerate(fn.body):
        if any(n is node for n in S.walk(stmt)):
            return k
    return None


def _assigns(stmt, names) -> bool:
    for n in S.walk(stmt):
        if isinstance(n, gast.Name) and n.id in names and isinstance(n.ctx, (gast.Store,
                                                                             gast.Del)):
            return True
    return isinstance(stmt, (gast.FunctionDef, gast.Lambda))


def _rewrite(fn, forward, mirror, pushes, first, second, top, namer) -> bool:
    (k1, tape, a), (k2, tape2, e) = pushes[first][0:3], pushes[second][0:3]
    if tape2 != tape or a == e or tape in (a, e):
        return False
    body = forward.body
    # no other copy of the records (a loop run again to recompute, checkpointed code)
    for loop in (n for n in S.walk(fn) if isinstance(n, gast.For)):
        ends = [(t, v) for _, t, v in _records(loop.body, _push) + _records(loop.body, _pop)]
        if loop is not forward and loop is not mirror and \
                ((tape, a) in ends or (tape, e) in ends):
            return False
    if any(_assigns(s, {e}) for s in body[k1:k2 + 2]) \
            or not any(_assigns(s, {e}) for s in body):  # a value of B's, before or after
        return False
    pops = _records(mirror.body, _pop)
    # the pops mirror the records: record `second` is popped first
    p_e, p_a = pops[len(pops) - 1 - second][0], pops[len(pops) - 1 - first][0]
    pop_nodes = {id(mirror.body[p_e + 1]), id(mirror.body[p_a + 1])}
    compare, later = None, max(p_e, p_a) + 1
    inside = {id(n) for s in mirror.body[later + 1:] for n in S.walk(s)}
    for stmt in fn.body[top:]:
        for n in S.walk(stmt):
            if isinstance(n, gast.Name) and n.id in (a, e) \
                    and not isinstance(n.ctx, gast.Load) and id(n) not in {
                        id(mirror.body[p_e + 1].targets[0]),
                        id(mirror.body[p_a + 1].targets[0])}:
                return False
    reads = [n for stmt in fn.body[top:] for n in S.walk(stmt)
             if isinstance(n, gast.Name) and n.id in (a, e) and isinstance(n.ctx, gast.Load)]
    compares = [n for stmt in fn.body[top:] for n in S.walk(stmt)
                if isinstance(n, gast.Compare) and len(n.ops) == 1
                and {type(n.left), type(n.comparators[0])} == {gast.Name}
                and {n.left.id, n.comparators[0].id} == {a, e}]
    if not compares or any(id(c) not in inside for c in compares) \
            or any(gast.dump(c) != gast.dump(compares[0]) for c in compares) \
            or len(reads) != 2 * len(compares) or not pop_nodes:
        return False
    compare = compares[0]
    flag = namer.fresh(f"{compare.left.id}_{type(compare.ops[0]).__name__.lower()}_"
                       f"{compare.comparators[0].id}")
    outcome = gast.IfExp(test=S.clone(compare), body=S.const(1.0), orelse=S.const(0.0))
    body[k1] = gast.copy_location(
        gast.Assign(targets=[body[k1].targets[0]], value=outcome), body[k1])
    del body[k2:k2 + 2]
    body.insert(k1, S.comment(f"records only whether {S.unparse_expr(compare)} "
                              "(srcad/transform/numba_compare_tapes.py)"))
    replace = {id(c) for c in compares}
    for stmt in mirror.body[later + 1:]:
        _replace_compares(stmt, replace, flag)
    mirror.body[p_a + 1].targets[0] = S.name(flag, store=True)
    del mirror.body[p_e:p_e + 2]
    return True


def _replace_compares(node, replace, flag):
    for field, value in gast.iter_fields(node):
        if isinstance(value, list):
            for k, item in enumerate(value):
                if id(item) in replace:
                    value[k] = S.parse_expr(f"{flag} != 0.0")
                elif isinstance(item, gast.AST):
                    _replace_compares(item, replace, flag)
        elif id(value) in replace:
            setattr(node, field, S.parse_expr(f"{flag} != 0.0"))
        elif isinstance(value, gast.AST):
            _replace_compares(value, replace, flag)
