"""numba: a loop keeping a running `min` or `max` of values that an inner loop computes
(k-means' `closest = min(closest, dist)` where `dist` sums over a point's coordinates) runs
in `LANES` lanes whose inner loops are one loop (unroll and jam), with a result
bit-identical to the loop as written.

Lane `l` computes the values of the iterations `l`, `l + L`, ... and keeps their running
extremum, as numba_extremum_lanes.py explains; the `L` inner loops of one block run as one
loop over the same counter, each lane's statements in the order written, so each value is
accumulated in its own order, with its own bits (with reassociated sums,
srcad/build/numba_fastmath.py, LLVM may add each lane's terms in another order, as it may in
the loop as written). The lanes are combined as numba_extremum_lanes.py combines them, and
the loop runs again as written where zeros of two signs leave the answer open. The iterations
past the last whole block run as written, in lane 0.

A loop is rewritten when it is a `for` over `range` with one or two arguments whose body
is: statements `name = e`, one inner `for` over `range` whose body only assigns or adds into
names (`s += e`), more statements `name = e`, and one update `m = min(m, e)` or `m = max(m,
e)` of a float or int `m` that nothing else in the body reads; every expression pure (as
numba_extremum_lanes.py defines it), no name carried from one iteration to the next but `m`,
the inner loop's bounds the same in every iteration (they read no name that depends on the
counter), and every name the body assigns dead after the loop (the lanes leave other values
in them).

>>> import gast
>>> from srcad.build.codegen import to_source
>>> from srcad.transform.names import Namer
>>> tree = gast.parse("def f(c, p):\\n"
...                   "    m = math.inf\\n"
...                   "    for j in range(c.shape[0]):\\n"
...                   "        b = c[j]\\n"
...                   "        s = 0.0\\n"
...                   "        for t in range(len(p)):\\n"
...                   "            s += (p[t] - b[t]) * (p[t] - b[t])\\n"
...                   "        m = min(m, s)\\n"
...                   "    return m\\n")
>>> out = to_source(extremum_jam(tree, Namer({"f", "c", "p", "m", "j", "b", "s", "t"}),
...                              {"m": FLOAT}))
>>> print(out[out.index("    for j_block"):out.index("    for j in range(0 + j_full")].rstrip())
    for j_block in range(0, 0 + j_full, 4):
        j_1 = j_block
        j_2 = j_block + 1
        j_3 = j_block + 2
        j_4 = j_block + 3
        b_1 = c[j_1]
        s_1 = 0.0
        b_2 = c[j_2]
        s_2 = 0.0
        b_3 = c[j_3]
        s_3 = 0.0
        b_4 = c[j_4]
        s_4 = 0.0
        for t in range(len(p)):
            s_1 += (p[t] - b_1[t]) * (p[t] - b_1[t])
            s_2 += (p[t] - b_2[t]) * (p[t] - b_2[t])
            s_3 += (p[t] - b_3[t]) * (p[t] - b_3[t])
            s_4 += (p[t] - b_4[t]) * (p[t] - b_4[t])
        m_lane = min(m_lane, s_1)
        m_lane_1 = min(m_lane_1, s_2)
        m_lane_2 = min(m_lane_2, s_3)
        m_lane_3 = min(m_lane_3, s_4)
"""

from __future__ import annotations

import gast

from srcad.analysis.value_types import FLOAT, INT
from srcad.frontend import syntax as S
from srcad.transform.numba_extremum_lanes import LANES, _extremum_of, _is_range, _pure
from srcad.transform.numba_loop_sites import replace_loops
from srcad.transform.numba_step_effects import dead_after

MAX_STATEMENTS = 10  # the body is copied LANES + 2 times: more for numba to compile


def extremum_jam(tree, namer, types):
    """`tree` with the loops the module docstring describes rewritten (in place); `types`
    maps a name to its value type (only float and int extrema are rewritten)."""
    for fn in [n for n in S.walk(tree) if isinstance(n, gast.FunctionDef)]:
        def rewrite(loop, fn=fn):
            shape = _shape(loop, types)
            if shape is not None and dead_after(fn, loop, keep={shape[3]}):
                return _jammed(loop, shape, namer)
            return None
        replace_loops(fn, rewrite)
    return tree


def _simple_assign(stmt) -> bool:
    return (isinstance(stmt, gast.Assign) and len(stmt.targets) == 1
            and isinstance(stmt.targets[0], gast.Name) and _pure(stmt.value))


def one_inner_loop(loop, most):
    """(statements before the inner loop, the inner loop, statements after it) when `loop`
    runs over a range, has no `else` and holds one inner loop among at most `most`
    statements; else None."""
    if loop.orelse or not isinstance(loop.target, gast.Name) or not _is_range(loop.iter):
        return None
    body = [s for s in loop.body if not S.is_comment(s)]
    inner = [k for k, s in enumerate(body) if isinstance(s, gast.For)]
    if len(inner) != 1 or len(body) > most:
        return None
    return body[:inner[0]], body[inner[0]], body[inner[0] + 1:]


def _shape(loop, types):
    """(statements before the inner loop, the inner loop, statements after it, the extremum
    `m`) when `loop` is one to rewrite, else None."""
    parts = one_inner_loop(loop, MAX_STATEMENTS)
    if parts is None:
        return None
    before, nested, after = parts
    if not after or not all(_simple_assign(s) for s in before + after):
        return None
    update = after[-1]
    m = update.targets[0].id
    if not _extremum_of(update) or types.get(m) not in (FLOAT, INT):
        return None
    if nested.orelse or not isinstance(nested.target, gast.Name) or not _is_range(nested.iter):
        return None
    nested_body = [s for s in nested.body if not S.is_comment(s)]
    for s in nested_body:
        if not (_simple_assign(s) or (isinstance(s, gast.AugAssign)
                                      and isinstance(s.target, gast.Name) and _pure(s.value))):
            return None
    index, counter = loop.target.id, nested.target.id
    bound = {index} | {s.targets[0].id for s in before + after} | {counter} \
        | {(s.targets[0] if isinstance(s, gast.Assign) else s.target).id for s in nested_body}
    if any(S.loaded_names(a) & bound for a in loop.iter.args):
        return None
    # no name carried from one iteration to the next but m; m read by its update alone
    set_before = {index}
    for s in before:
        if S.loaded_names(s.value) & (bound - set_before) or s.targets[0].id == m:
            return None
        set_before.add(s.targets[0].id)
    depends = _depending_on_index(before, index)
    if any(S.loaded_names(a) & (depends | (bound - set_before)) for a in nested.iter.args):
        return None
    set_inside = set_before | {counter}
    for s in nested_body:
        target = s.targets[0] if isinstance(s, gast.Assign) else s.target
        reads = S.loaded_names(s.value) | ({target.id} if isinstance(s, gast.AugAssign)
                                           else set())
        if reads & (bound - set_inside) or m in reads or target.id in (m, index, counter):
            return None
        set_inside.add(target.id)
    set_after = set_inside
    for s in after:
        reads = S.loaded_names(s.value.args[1] if s is update else s.value)
        if reads & (bound - set_after) or m in reads or (s is not update and s.targets[0].id
                                                          in (m, index, counter)):
            return None
        set_after.add(s.targets[0].id)
    return before, nested, after, m


def _depending_on_index(before, index) -> set:
    """The names of `before` whose values depend on the loop counter `index`."""
    depends = {index}
    for s in before:
        if S.loaded_names(s.value) & depends:
            depends.add(s.targets[0].id)
    return depends


def _jammed(loop, shape, namer) -> list:
    before, nested, after, m = shape
    index = loop.target.id
    counter = nested.target.id
    update = after[-1]
    bound = {index} | {s.targets[0].id for s in before + after[:-1]} \
        | {(s.targets[0] if isinstance(s, gast.Assign) else s.target).id
           for s in nested.body if not S.is_comment(s)}
    lane_names = [{name: namer.fresh(name) for name in sorted(bound)} for _ in range(LANES)]
    trips, full, block = (namer.fresh(f"{index}_{role}") for role in ("trips", "full", "block"))
    lanes = [namer.fresh(f"{m}_lane") for _ in range(LANES)]
    combined = namer.fresh(f"{m}_lanes")
    args = loop.iter.args
    start = S.unparse_expr(args[0]) if len(args) == 2 else "0"
    if len(args) == 2 and not isinstance(args[0], (gast.Name, gast.Constant)):
        start = f"({start})"
    stop = S.unparse_expr(args[-1])
    rest_start = f"{start} + {full}"
    out = [S.comment(f"the running extremum {m} in {LANES} lanes, their inner loops as one "
                     "(srcad/transform/numba_extremum_jam.py)")]
    out += [S.assign(S.name(lane, store=True), S.name(m)) for lane in lanes]
    out += S.parse_stmts(f"{trips} = len({S.unparse_expr(loop.iter)})\n"
                         f"{full} = {trips} - {trips} % {LANES}")
    blocked = [S.parse_stmts(f"{names[index]} = {block} + {k}" if k else
                             f"{names[index]} = {block}")[0]
               for k, names in enumerate(lane_names)]
    for names in lane_names:
        blocked += [S.renamed(s, names) for s in before]
    inner_body = []
    for s in (s for s in nested.body if not S.is_comment(s)):
        inner_body += [S.renamed(s, names) for names in lane_names]
    blocked.append(gast.For(target=S.name(counter, store=True),
                            iter=S.renamed(nested.iter, lane_names[0]), body=inner_body,
                            orelse=[], type_comment=None))
    for k, names in enumerate(lane_names):
        blocked += [S.renamed(s, names) for s in after[:-1]]
        value = S.renamed(update.value.args[1], names)
        blocked.append(S.assign(S.name(lanes[k], store=True),
                                S.call(update.value.func.id, S.name(lanes[k]), value)))
    out.append(gast.For(target=S.name(block, store=True),
                        iter=S.parse_expr(f"range({start}, {rest_start}, {LANES})"),
                        body=blocked, orelse=[], type_comment=None))
    rest = [S.clone(s) for s in loop.body]
    rest = [_lane_update(s, m, lanes[0]) if _is_update(s, m) else s for s in rest]
    out.append(gast.For(target=S.name(index, store=True),
                        iter=S.parse_expr(f"range({rest_start}, {stop})"), body=rest,
                        orelse=[], type_comment=None))
    op = update.value.func.id
    value = lanes[0]
    for lane in lanes[1:]:
        value = f"{op}({value}, {lane})"
    out += S.parse_stmts(f"{combined} = {value}")
    out.append(gast.If(test=S.parse_expr(f"zero_signs_differ({combined}, {', '.join(lanes)})"),
                       body=[loop], orelse=[S.assign(S.name(m, store=True),
                                                     S.name(combined))]))
    return out


def _is_update(stmt, m) -> bool:
    return _simple_assign(stmt) and stmt.targets[0].id == m and _extremum_of(stmt)


def _lane_update(stmt, m, lane):
    stmt.targets[0] = S.name(lane, store=True)
    stmt.value.args[0] = S.name(lane)
    return stmt
