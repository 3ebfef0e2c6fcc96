"""numba: a loop that keeps a running `min` or `max` runs it in `LANES` independent lanes,
combined after the loop, with a result bit-identical to the loop as written.

`m = max(m, x[i])` compiles to a compare and a select that waits for the one before: a chain
of about 4 cycles per element, which LLVM may not split without the `nnan` licence (srcad
does not grant it; build/numba_fastmath.py). But Python's (and numba's) `max(m, v)` keeps `m`
unless `v > m`, so the loop's result is the first, in order (`m`'s value on entry, then each
`v`), of the largest non-NaN values, or `m` itself when `m` enters as NaN (a NaN `v` is never
taken). Lane `l` starts at `m` and keeps the running maximum of the iterations `l`, `l + L`,
... (and lane 0 of the last `trips % L`); `max(max(max(lane0, lane1), lane2), lane3)` is the
largest of them, with the same bits as the loop's: two equal floats that are not NaN differ
only when they are zeros of opposite signs, and for those the loop's answer is the sign of
the first zero, which the lanes cannot tell when two of them hold zeros of different signs.
Then (`zero_signs_differ`, srcad/runtime/numba_runtime.py) the loop runs again as written
from `m`'s value on entry. `min` likewise. The iterations' other statements run in the
original order, once each, so every other name ends with the value it had.

A loop is rewritten when it is a `for` over `range` with one or two arguments (the bounds
read no name the body binds), its body only assigns names (no array writes, no calls but
`math` functions, `min`, `max`, `abs`, `float`, `simd_exp`: running it again changes
nothing), and each accumulator `m` is a float or int updated once, by `m = max(m, e)` or
`m = min(m, e)` with `m` first, and read by no other statement of the body. The reverse
sweep's forward loops, which record `m` on the tape, are not of this shape; an argmin
(`if v < m: m = v; k = i`) is not rewritten either.

>>> import gast
>>> from srcad.build.codegen import to_source
>>> from srcad.transform.names import Namer
>>> tree = gast.parse("def f(x):\\n"
...                   "    m = x[0]\\n"
...                   "    for i in range(1, len(x)):\\n"
...                   "        m = max(m, x[i])\\n"
...                   "    return m\\n")
>>> print(to_source(extremum_lanes(tree, Namer({"f", "x", "m", "i"}), {"m": FLOAT})).strip())
def f(x):
    m = x[0]
    # the running extrema m in 4 lanes (srcad/transform/numba_extremum_lanes.py)
    m_lane = m
    m_lane_1 = m
    m_lane_2 = m
    m_lane_3 = m
    i_trips = len(range(1, len(x)))
    i_full = i_trips - i_trips % 4
    for i_block in range(1, 1 + i_full, 4):
        i = i_block
        m_lane = max(m_lane, x[i])
        i = i_block + 1
        m_lane_1 = max(m_lane_1, x[i])
        i = i_block + 2
        m_lane_2 = max(m_lane_2, x[i])
        i = i_block + 3
        m_lane_3 = max(m_lane_3, x[i])
    for i in range(1 + i_full, len(x)):
        m_lane = max(m_lane, x[i])
    m_lanes = max(max(max(m_lane, m_lane_1), m_lane_2), m_lane_3)
    if zero_signs_differ(m_lanes, m_lane, m_lane_1, m_lane_2, m_lane_3):
        for i in range(1, len(x)):
            m = max(m, x[i])
    else:
        m = m_lanes
    return m
"""

from __future__ import annotations

import gast

from srcad.analysis.value_types import FLOAT, INT
from srcad.frontend import syntax as S
from srcad.transform.numba_loop_sites import replace_loops

LANES = 4  # zero_signs_differ takes the combined value and this many lanes
MAX_STATEMENTS = 4  # a longer body is copied LANES + 2 times: more for numba to compile
_PURE_CALLS = frozenset({"min", "max", "abs", "float", "simd_exp"})


def extremum_lanes(tree, namer, types):
    """`tree` with the loops the module docstring describes rewritten (in place); `types`
    maps a name to its value type (only float and int accumulators are rewritten)."""
    def rewrite(loop):
        updates = _updates(loop, types)
        return None if updates is None else _lanes(loop, updates, namer)
    return replace_loops(tree, rewrite)


def _updates(loop, types):
    """{accumulator: its update statement} when `loop` is one to rewrite, else None."""
    if loop.orelse or not isinstance(loop.target, gast.Name) or not _is_range(loop.iter):
        return None
    statements = [s for s in loop.body if not S.is_comment(s)]
    if not statements or len(statements) > MAX_STATEMENTS:
        return None
    bound = {loop.target.id}
    for stmt in statements:
        if not (isinstance(stmt, gast.Assign) and len(stmt.targets) == 1
                and isinstance(stmt.targets[0], gast.Name) and _pure(stmt.value)):
            return None
        bound.add(stmt.targets[0].id)
    if any(S.loaded_names(a) & bound for a in loop.iter.args):
        return None
    updates = {}
    for stmt in statements:
        name = stmt.targets[0].id
        if _extremum_of(stmt) and name not in updates and types.get(name) in (FLOAT, INT):
            updates[name] = stmt
    set_before = {loop.target.id}
    for stmt in statements:
        reads = S.loaded_names(stmt.value if stmt not in updates.values()
                               else stmt.value.args[1])
        assigned = stmt.targets[0].id
        # no name carried from one iteration to the next but the accumulators: the loop
        # run again (zeros of two signs) starts from the values the names had on entry
        if reads & set(updates) or reads & (bound - set_before) \
                or (assigned in updates and updates[assigned] is not stmt):
            return None
        set_before.add(assigned)
    return updates or None


def _is_range(node) -> bool:
    return (isinstance(node, gast.Call) and isinstance(node.func, gast.Name)
            and node.func.id == "range" and len(node.args) in (1, 2) and not node.keywords
            and all(_pure(a) for a in node.args))


def _extremum_of(stmt) -> bool:
    """Whether `stmt` is `m = min(m, e)` or `m = max(m, e)`."""
    value = stmt.value
    return (isinstance(value, gast.Call) and isinstance(value.func, gast.Name)
            and value.func.id in ("min", "max") and len(value.args) == 2
            and not value.keywords and isinstance(value.args[0], gast.Name)
            and value.args[0].id == stmt.targets[0].id)


def _pure(node) -> bool:
    """Whether evaluating `node` again gives the same value and has no effect: arithmetic,
    comparisons, reads of names, attributes and elements, and the calls `_PURE_CALLS`,
    `len` and `math.*`."""
    for n in S.walk(node):
        if isinstance(n, gast.Call):
            func = n.func
            if not ((isinstance(func, gast.Name) and func.id in _PURE_CALLS | {"len"})
                    or (isinstance(func, gast.Attribute) and isinstance(func.value, gast.Name)
                        and func.value.id == "math")) or n.keywords:
                return False
        elif not isinstance(n, S.READING_NODES):
            return False
    return True


def _lanes(loop, updates, namer) -> list:
    index = loop.target.id
    trips, full, block = (namer.fresh(f"{index}_{role}") for role in ("trips", "full", "block"))
    lanes = {m: [namer.fresh(f"{m}_lane") for _ in range(LANES)] for m in updates}
    combined = {m: namer.fresh(f"{m}_lanes") for m in updates}
    args = loop.iter.args
    start = S.unparse_expr(args[0]) if len(args) == 2 else "0"
    if len(args) == 2 and not isinstance(args[0], (gast.Name, gast.Constant)):
        start = f"({start})"  # `a if c else b + full` would add to b alone
    stop = S.unparse_expr(args[-1])
    out = [S.comment(f"the running extrema {', '.join(updates)} in {LANES} lanes "
                     "(srcad/transform/numba_extremum_lanes.py)")]
    out += [S.assign(S.name(lane, store=True), S.name(m)) for m in updates for lane in lanes[m]]
    out += S.parse_stmts(f"{trips} = len({S.unparse_expr(loop.iter)})\n"
                         f"{full} = {trips} - {trips} % {LANES}")
    rest_start = full if start == "0" else f"{start} + {full}"
    blocked = []
    for k in range(LANES):
        blocked.append(S.parse_stmts(f"{index} = {block} + {k}" if k else
                                     f"{index} = {block}")[0])
        blocked += _body_into(loop.body, {m: lanes[m][k] for m in updates})
    out.append(gast.For(target=S.name(block, store=True),
                        iter=S.parse_expr(f"range({start}, {rest_start}, {LANES})"),
                        body=blocked, orelse=[], type_comment=None))
    out.append(gast.For(target=S.name(index, store=True),
                        iter=S.parse_expr(f"range({rest_start}, {stop})"),
                        body=_body_into(loop.body, {m: lanes[m][0] for m in updates}),
                        orelse=[], type_comment=None))
    tests = []
    for m, stmt in updates.items():
        op = stmt.value.func.id
        value = lanes[m][0]
        for lane in lanes[m][1:]:
            value = f"{op}({value}, {lane})"
        out += S.parse_stmts(f"{combined[m]} = {value}")
        tests.append(f"zero_signs_differ({combined[m]}, {', '.join(lanes[m])})")
    taken = [S.assign(S.name(m, store=True), S.name(combined[m])) for m in updates]
    out.append(gast.If(test=S.parse_expr(" or ".join(tests)), body=[loop], orelse=taken))
    return out


def _body_into(body, names) -> list:
    """A copy of the loop body whose updates of each accumulator `m` read and write the
    lane `names[m]`."""
    copied = []
    for stmt in body:
        stmt = S.clone(stmt)
        if isinstance(stmt, gast.Assign) and isinstance(stmt.targets[0], gast.Name) \
                and stmt.targets[0].id in names and _extremum_of(stmt):
            lane = names[stmt.targets[0].id]
            stmt.targets[0] = S.name(lane, store=True)
            stmt.value.args[0] = S.name(lane)
        copied.append(stmt)
    return copied
