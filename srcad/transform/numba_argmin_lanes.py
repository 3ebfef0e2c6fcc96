"""numba: a loop keeping a running minimum and the index of the step that set it (k-means'
nearest centroid, `if d < closest: winner = j` then `closest = min(closest, d)`) runs in 4
independent lanes combined after the loop, so the comparisons no longer wait for each other;
the minimum and the index have the bits of the loop as written. `max` with `>` likewise.

The loop as written sets the index at each step whose value is below the running minimum
(strictly: ties keep the earlier step, a NaN is never taken, nor is -0.0 after +0.0), so it
ends at the first step whose value is the final minimum, when that is below the start. Lane
`l` runs the steps `start + 4 q + l` the same way from the same start, so it ends with the
least value of its steps and the first of its steps holding it. Combined in lane order, a
lane that changed its minimum is taken when its value is below the one taken so far, or
equal to it at an earlier step: the first step holding the least value, and that step's
value (a zero of the sign it has there). The last `len % 4` steps then run as written.

A loop is rewritten when it is a `for j in range(...)` (one or two arguments) whose body is
statements `name = e` (pure, numba_extremum_lanes.py), then `if e < m: w = j` and
`m = min(m, e)` (or `>` and `max`) with the same pure `e`, `m` a float and `w` read or
assigned nowhere else in the body, `m` read nowhere else, the bounds reading nothing the body
assigns, `m` and `w` assigned before the loop (in its block or one around it), and every name
the loop assigns but `m` and `w` dead after it. The body is copied
once per lane (at most `MAX_STATEMENTS` statements).

>>> import gast
>>> from srcad.analysis.value_types import FLOAT
>>> from srcad.build.codegen import to_source
>>> from srcad.transform.names import Namer
>>> tree = gast.parse("def f(x, n):\\n"
...                   "    m = 9.0\\n"
...                   "    w = -1\\n"
...                   "    for j in range(n):\\n"
...                   "        if x[j] < m:\\n"
...                   "            w = j\\n"
...                   "        m = min(m, x[j])\\n"
...                   "    return m, w\\n")
>>> out = to_source(argmin_lanes(tree, Namer.for_tree(tree), {"m": FLOAT}))
>>> "numba_argmin_lanes" in out and "m_lane_3" in out
True
"""

from __future__ import annotations

import gast

from srcad.analysis.value_types import FLOAT
from srcad.frontend import syntax as S
from srcad.transform.numba_extremum_lanes import _is_range, _pure
from srcad.transform.numba_loop_sites import replace_loops
from srcad.transform.numba_step_effects import dead_after

LANES = 4
MAX_STATEMENTS = 6
_TAKEN = {"min": gast.Lt, "max": gast.Gt}


def argmin_lanes(tree, namer, types):
    """`tree` with the loops the module docstring describes rewritten (in place); `types`
    maps a name to its value type."""
    for fn in [n for n in S.walk(tree) if isinstance(n, gast.FunctionDef)]:
        def rewrite(loop, fn=fn):
            shape = _shape(loop, types)
            if shape is not None and dead_after(fn, loop, keep=set(shape[:2])) \
                    and all(_assigned_before(fn, loop, name) for name in shape[:2]):
                return _lanes(loop, *shape, namer)
            return None
        replace_loops(fn, rewrite)
    return tree


def _shape(loop, types):
    """(m, w, op) of a loop of the docstring's shape, else None."""
    if loop.orelse or not isinstance(loop.target, gast.Name) or not _is_range(loop.iter):
        return None
    body = [s for s in loop.body if not S.is_comment(s)]
    if not 2 <= len(body) <= MAX_STATEMENTS:
        return None
    test, update = body[-2], body[-1]
    if not (isinstance(update, gast.Assign) and len(update.targets) == 1
            and isinstance(update.targets[0], gast.Name)
            and isinstance(update.value, gast.Call) and isinstance(update.value.func, gast.Name)
            and update.value.func.id in _TAKEN and len(update.value.args) == 2
            and not update.value.keywords and isinstance(update.value.args[0], gast.Name)
            and update.value.args[0].id == update.targets[0].id):
        return None
    m, op, e = update.targets[0].id, update.value.func.id, update.value.args[1]
    j = loop.target.id
    if not (isinstance(test, gast.If) and not test.orelse and len(test.body) == 1
            and isinstance(test.test, gast.Compare) and len(test.test.ops) == 1
            and isinstance(test.test.ops[0], _TAKEN[op])
            and S.same(test.test.left, e) and S.same(test.test.comparators[0], S.name(m))):
        return None
    record = test.body[0]
    if not (isinstance(record, gast.Assign) and len(record.targets) == 1
            and isinstance(record.targets[0], gast.Name) and S.same(record.value, S.name(j))):
        return None
    w = record.targets[0].id
    if types.get(m) != FLOAT or len({m, w, j}) != 3 or not _pure(e) \
            or S.loaded_names(e) & {m, w}:
        return None
    assigned = {j}
    for stmt in body[:-2]:
        if not (isinstance(stmt, gast.Assign) and len(stmt.targets) == 1
                and isinstance(stmt.targets[0], gast.Name) and _pure(stmt.value)
                and not S.loaded_names(stmt.value) & {m, w}
                and stmt.targets[0].id not in {m, w, j}):
            return None
        assigned.add(stmt.targets[0].id)
    if S.loaded_names(loop.iter) & (assigned | {m, w}):
        return None
    return m, w, op


def _assigned_before(fn, loop, name) -> bool:
    """Whether a statement `name = ...` runs before `loop` in its block or a block around it
    (the lanes start from `name`'s value, which the loop as written may never read)."""
    def search(block):
        for k, stmt in enumerate(block):
            if stmt is loop or any(n is loop for n in S.walk(stmt)):
                before = any(isinstance(s, gast.Assign) and any(
                    isinstance(t, gast.Name) and t.id == name for t in s.targets)
                    for s in block[:k])
                if before or stmt is loop:
                    return before
                return any(search(getattr(stmt, f)) for f in ("body", "orelse")
                           if isinstance(getattr(stmt, f, None), list)
                           and any(n is loop for s in getattr(stmt, f) for n in S.walk(s)))
        return False
    return search(fn.body)


def _lanes(loop, m, w, op, namer) -> list:
    j = loop.target.id
    args = loop.iter.args
    start = S.unparse_expr(args[0]) if len(args) == 2 else "0"
    stop = S.unparse_expr(args[-1])
    block, full = namer.fresh(f"{j}_block"), namer.fresh(f"{j}_full")
    m_lanes = [namer.fresh(f"{m}_lane") for _ in range(LANES)]
    w_lanes = [namer.fresh(f"{w}_lane") for _ in range(LANES)]
    m_won, w_won = namer.fresh(f"{m}_won"), namer.fresh(f"{w}_won")
    body = [s for s in loop.body if not S.is_comment(s)]
    temps = [s.targets[0].id for s in body[:-2]]
    steps = []
    for lane in range(LANES):
        renames = {j: namer.fresh(f"{j}_at"), m: m_lanes[lane], w: w_lanes[lane],
                   **{t: namer.fresh(f"{t}_lane") for t in temps}}
        steps += S.parse_stmts(f"{renames[j]} = {block} + {lane}")
        steps += [S.renamed(S.clone(s), renames) for s in body]
    below = "<" if op == "min" else ">"
    lanes = "\n".join(f"{a} = {m}\n{b} = {w}" for a, b in zip(m_lanes, w_lanes))
    pick = "".join(f"if {a} {below} {m} and ({a} {below} {m_won} or "
                   f"({a} == {m_won} and {b} < {w_won})):\n"
                   f"    {m_won} = {a}\n    {w_won} = {b}\n"
                   for a, b in zip(m_lanes, w_lanes))
    out = [S.comment(f"the running {op} and its step's index in {LANES} lanes "
                     "(srcad/transform/numba_argmin_lanes.py)")]
    out += S.parse_stmts(f"{lanes}\n"
                         f"{full} = ({start}) + max({stop} - ({start}), 0) // {LANES} * {LANES}\n"
                         f"for {block} in range({start}, {full}, {LANES}):\n"
                         f"    pass\n"
                         f"{m_won} = {m}\n{w_won} = {w}\n{pick}"
                         f"{m} = {m_won}\n{w} = {w_won}\n")
    out[2 * LANES + 2].body = steps
    rest = S.clone(loop)
    rest.iter = S.parse_expr(f"range({full}, {stop})")
    return out + [rest]
