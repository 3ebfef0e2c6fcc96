"""numba: a loop over the rows `i` of an array `P` whose body runs a loop over the rows `j`
of another array `C`, each `j` summing over the coordinates of the two rows and then keeping
a running `min`/`max` or an index (k-means' cost: for each point, its squared distance to
each centroid, `closest = min(closest, dist)`, then `cost += closest`) runs with the points
in lanes: for a block of BLOCK points, the sums of ROWS centroids for all the block's points
at once, the loop over the points innermost, UNROLL coordinates per pass; then each point's
tail in the order written. Bit-identical to the nest as written.

As written (and after numba_row_sums.py, which runs the centroids in lanes for one point)
each step of a sum loads and stores the sum once per coordinate and reads the centroids from
memory for every point (at k=1000, d=16 they fill 128 kB, more than the core's first-level
cache). In point lanes the centroid's coordinates are numbers held across the block, the
block's points (a copy of `P` laid out block by block, coordinates major, made once per
call) stay in the first-level cache, each point's coordinate is loaded once for two
centroids, and each sum adds four terms per load and store: `s = (((s + e_t) + e_t+1) +
e_t+2) + e_t+3`, the same terms in the same order as `s += e` over `t`. Each point's
running values (`closest`, an index) run over `j` in the order
written, one lane per point, so ties and NaN are decided as written; the tail (`cost +=
closest`) runs point after point in the order of `i`.

A nest is rewritten when it is `for i in range(N)` (`N` `P.shape[0]`, `len(P)` or a name
bound once to one) whose body is name assignments of pure values (the point's fresh values,
`closest = math.inf`), one `for j` loop that numba_row_sums.py would take (`b = C[j]`, a sum
`s` over `t` in `range(len(b))` or `range(len(a))`), and a tail, where:

* the `j` loop's statements before its inner loop that do not read `j` are `a = P[i]` (the
  point's row, read in the sum only as `a[t]`) and assignments reading neither `i` nor a
  name the nest assigns (they stay where they are);
* the sum's temporaries and term read `a[t]`, `b[t]`, `t`, `j`, the temporaries, and no
  other name the nest assigns;
* every name the statements after the sum assign is one the body assigns before the `j`
  loop (a value per point, carried over `j`: it gets a lane per point), or is assigned at the
  top of those statements before any read (a value per `j`); they read no row;
* the tail reads of the nest's names only those assigned before the `j` loop (restored from
  their lanes, all of them, so that the last point's values are the nest's after it), writes
  none of the names and arrays the rest of the nest reads, calls only pure functions, and has
  no `break`, `continue`, `return`, `raise`, `try`, `while` or function;
* `P` and `C` are 2-D float parameters nothing in the function writes, the values with a
  lane are floats or integers (srcad's types, or srcad's own index below), no name with a
  lane is written in the `j` loop but after the sum, and no name the nest assigns but the
  tail's and those with a lane is read after it (numba_step_effects.dead_after).

In reverse-mode code the nest is the forward sweep's (the tail records each point's index
of the nearest row on srcad's tape, point after point in the order written, so the tape holds
what the nest as written records); the index, srcad's own name the types do not list, gets an
integer lane where every assignment of it is an integer constant or the row counter. The copy
of the points and the lanes are carved, as numba_row_sums.py's arrays, from the array a
prepared call keeps across calls where the function has one (no allocation per call; an
integer lane is then a float lane, exact below 2**53, read back by `int()`), else made per
call. Run-time errors of the sums (none
for k-means' arithmetic) may be raised at another point than as written.
"""

from __future__ import annotations

import gast

from srcad.analysis.value_types import FLOAT, INT, Array
from srcad.frontend import syntax as S
from srcad.transform.numba_extremum_jam import _simple_assign
from srcad.transform.numba_extremum_lanes import _is_range, _pure
from srcad.transform.numba_loop_sites import after_docstring, replace_loops
from srcad.transform.numba_row_sums import _only_read_as_rows, _rows_of, _shape, _workspace
from srcad.transform.numba_step_effects import dead_after
from srcad.transform.tapes import ArrayTapes

BLOCK = 128  # points per block: the block's coordinates (BLOCK * d floats) stay in cache
UNROLL = 4  # coordinates added per load and store of a sum
ROWS = 2  # rows summed per pass over the block's points: each point's coordinate loaded once
_EXITS = (gast.Break, gast.Continue, gast.Return, gast.Raise, gast.Try, gast.FunctionDef,
          gast.Lambda, gast.Yield, gast.While)


def row_sums_in_point_lanes(tree, namer, types):
    """`tree` with the nests the module docstring describes rewritten (in place); `types`
    maps a name to its value type."""
    for fn in [n for n in S.walk(tree) if isinstance(n, gast.FunctionDef)]:
        if any(isinstance(n, gast.FunctionDef) and n is not fn for n in S.walk(fn)):
            continue
        params = {a.id for a in fn.args.args if isinstance(a, gast.Name)}
        kept = _workspace(fn)
        arrays, fills = [], []  # (name, length, shape or None, int), what fills them

        def rewrite(loop, fn=fn, params=params, arrays=arrays, fills=fills, kept=kept):
            nest = _nest(fn, loop, params, types)
            return None if nest is None else \
                _in_lanes(loop, nest, namer, arrays, fills, kept is not None)
        replace_loops(fn, rewrite)
        if arrays:
            _make(fn, arrays, fills, kept, namer)
    return tree


def _make(fn, arrays, fills, kept, namer) -> None:
    """The copies of the points and the lanes at the top of `fn`: carved from the array a
    prepared call keeps across calls where `fn` has one (numba_row_sums._workspace; an
    integer lane is then a float lane, exact for indices below 2**53, read back by int()),
    else new arrays."""
    comment = [S.comment("the rows of the points block by block, coordinates major, and the "
                         "lanes of the points in lanes (srcad/transform/numba_row_lanes.py)")]
    if kept is None:
        made = [S.parse_stmts(f"{name} = np.empty({shape or length}"
                              f"{', dtype=np.int64' if is_int else ''})")[0]
                for name, length, shape, is_int in arrays]
        at = after_docstring(fn)
        fn.body[at:at] = comment + made + fills
        return
    kind, at = kept
    sizes, entries = [], []
    for name, length, shape, _ in arrays:
        if not length.isdigit():  # the copy's length named once: the slices stay readable
            size = namer.fresh(f"{name}_size")
            sizes += S.parse_stmts(f"{size} = {length}")
            length = size
        entries.append((name, S.parse_expr(length),
                        None if shape is None else S.parse_expr(shape), False))
    fn.body[at:at] = comment[:1] + [S.comment(f"(in `{kind}`, kept across calls)")] \
        + sizes + ArrayTapes().carve(kind, entries) + fills


def _stores(stmts) -> set:
    return {n.id for s in stmts for n in S.walk(s) if isinstance(n, gast.Name)
            and isinstance(n.ctx, gast.Store)}


def _loads(stmts) -> set:
    return {n for s in stmts for n in S.loaded_names(s)}


def _nest(fn, loop, params, types):
    """What `_in_lanes` needs when `loop` is a nest to rewrite, else None."""
    if loop.orelse or not isinstance(loop.target, gast.Name) or not _is_range(loop.iter) \
            or len(loop.iter.args) != 1:
        return None
    i = loop.target.id
    points = _rows_of(loop.iter.args[0], fn)
    body = [s for s in loop.body if not S.is_comment(s)]
    inner = [k for k, s in enumerate(body) if isinstance(s, gast.For)]
    if points is None or points not in params or types.get(points) != Array(2, True) \
            or not inner:
        return None
    pre, rows, tail = body[:inner[0]], body[inner[0]], body[inner[0] + 1:]
    if not all(_simple_assign(s) for s in pre) or any(isinstance(n, _EXITS) for s in tail
                                                       for n in S.walk(s)) \
            or not all(_pure(n) for s in tail for n in S.walk(s) if isinstance(n, gast.Call)
                       and not (isinstance(n.func, gast.Name) and n.func.id == "unshared")):
        return None  # (a call in the tail could write what the other points read)
    shape = _shape(fn, rows, params, types)
    if shape is None or shape["array"] == points:
        return None
    j, t = rows.target.id, [s for s in rows.body if isinstance(s, gast.For)][0].target.id
    lanes = [s.targets[0].id for s in pre]
    nest_names = _stores([loop]) | {i}
    if len(set(lanes)) != len(lanes) or i in lanes:
        return None
    for k, s in enumerate(pre):  # a fresh value per point, from earlier ones and `i`
        if S.loaded_names(s.value) & (nest_names - set(lanes[:k]) - {i}):
            return None
    point_rows = [s for s in shape["hoisted"] if isinstance(s.value, gast.Subscript)
                  and isinstance(s.value.value, gast.Name) and s.value.value.id == points
                  and isinstance(s.value.slice, gast.Name) and s.value.slice.id == i]
    if len(point_rows) != 1:
        return None
    a = point_rows[0].targets[0].id
    hoisted = [s for s in shape["hoisted"] if s is not point_rows[0]]
    if _loads(hoisted) & nest_names:
        return None
    temps = [s.targets[0].id for s in shape["temps"]]
    summed = shape["temps"] + [gast.Expr(value=shape["add"])]
    allowed = {a, j, t, shape["row"], *temps} | _stores(hoisted)
    if _loads(summed) & nest_names - allowed or not _reads_at(summed, a, t):
        return None
    iter_ = _with_length(shape["iter"], a, points)
    if iter_ is None or _loads([iter_]) & nest_names or not _is_range(iter_) \
            or len(iter_.args) > 2:
        return None
    after = shape["after"]
    per_row = [s.targets[0].id for s in after if isinstance(s, gast.Assign)
               and s.targets[0].id not in lanes]
    seen = set()
    for s in after:  # a value per `j`: assigned at the top before any read
        if S.loaded_names(s) & (set(per_row) - seen):
            return None
        if isinstance(s, gast.Assign) and s.targets[0].id in per_row:
            seen.add(s.targets[0].id)
    if _stores(after) - set(lanes) - set(per_row) or _loads(after) & {a, t, *temps}:
        return None
    if set(lanes) & ({j, t, a, shape["row"], shape["sum"]} | _stores(shape["hoisted"])
                     | _stores(shape["temps"])):
        return None  # a value per point written in the loop over rows other than after it
    rest = _loads(pre + [rows]) | _stores(pre + [rows])
    tail_writes = _stores(tail) | {n.value.id for s in tail for n in S.walk(s)
                                   if isinstance(n, gast.Subscript)
                                   and not isinstance(n.ctx, gast.Load)
                                   and isinstance(n.value, gast.Name)}
    if _loads(tail) & (nest_names - set(lanes) - {i} - _stores(tail)) \
            or tail_writes & (rest - set(lanes)) or i in tail_writes:
        return None
    if _loads([loop.iter, rows.iter]) & nest_names or not _only_read_as_rows(fn, points, None):
        return None
    # the tail runs point after point as written: its names end as they would
    if not dead_after(fn, loop, keep=_stores(tail) | {i} | set(lanes)):
        return None
    kinds = {x: types.get(x) or _counter(x, pre, shape["after"], j) for x in lanes}
    if any(kind not in (FLOAT, INT) for kind in kinds.values()):
        return None
    return {"i": i, "j": j, "t": t, "a": a, "points": points, "pre": pre, "lanes": lanes,
            "hoisted": hoisted, "iter": iter_, "tail": tail, "per_row": per_row,
            "shape": shape, "types": kinds}


def _counter(name, pre, after, j):
    """INT where every assignment of `name` (srcad's own index of the nearest row, which the
    types do not list) is of an integer constant or the row counter `j`; else None."""
    values = [n.value for s in pre + after for n in S.walk(s) if isinstance(n, gast.Assign)
              and len(n.targets) == 1 and isinstance(n.targets[0], gast.Name)
              and n.targets[0].id == name]
    stores = [n for s in pre + after for n in S.walk(s) if isinstance(n, gast.Name)
              and n.id == name and isinstance(n.ctx, gast.Store)]
    whole = all((isinstance(v, gast.Constant) and type(v.value) is int)
                or (isinstance(v, gast.UnaryOp) and isinstance(v.op, gast.USub)
                    and isinstance(v.operand, gast.Constant) and type(v.operand.value) is int)
                or (isinstance(v, gast.Name) and v.id == j) for v in values)
    return INT if values and len(values) == len(stores) and whole else None


def _reads_at(stmts, a, t) -> bool:
    """Whether every read of `a` in `stmts` is `a[t]`."""
    at = {id(n.value) for s in stmts for n in S.walk(s) if isinstance(n, gast.Subscript)
          and isinstance(n.value, gast.Name) and n.value.id == a
          and isinstance(n.slice, gast.Name) and n.slice.id == t}
    return all(id(n) in at for s in stmts for n in S.walk(s)
               if isinstance(n, gast.Name) and n.id == a)


def _with_length(iter_, a, points):
    """`iter_` with `len(a)` read as `points.shape[1]`; None where it reads `a` otherwise."""
    iter_ = S.clone(iter_)
    for n in list(S.walk(iter_)):
        if isinstance(n, gast.Call):
            n.args = [S.parse_expr(f"{points}.shape[1]") if isinstance(x, gast.Call)
                      and isinstance(x.func, gast.Name) and x.func.id == "len"
                      and len(x.args) == 1 and isinstance(x.args[0], gast.Name)
                      and x.args[0].id == a else x for x in n.args]
    return None if a in S.loaded_names(iter_) else iter_


class _Reads(gast.NodeTransformer):
    """Statements of the nest as they run in lanes: names with a lane per point (and the
    sums, `sums`) read at the lane; in a coordinate's copy of the sum's statements (`at`:
    the coordinate, the row and the name holding the row's coordinate) `a[t]` read from the
    block's lanes, `b[t]` as the held coordinate, `t` and `j` as their values, the
    temporaries renamed (`renames`)."""

    def __init__(self, nest, at, renames, where, sums):
        self.nest, self.at, self.renames = nest, at, renames
        self.where, self.lanes = where, {**where["lanes"], **sums}

    def visit_Subscript(self, node):
        if self.at is not None and isinstance(node.value, gast.Name):
            if node.value.id == self.nest["a"]:
                return S.parse_expr(f"{self.where['block']}[{self.at[0]}, "
                                    f"{self.where['lane']}]")
            if node.value.id == self.nest["shape"]["row"]:
                return S.name(self.at[2])
        return self.generic_visit(node)

    def visit_Name(self, node):
        if self.at is not None and node.id in (self.nest["t"], self.nest["j"]):
            return S.parse_expr(f"({self.at[0] if node.id == self.nest['t'] else self.at[1]})")
        if node.id in self.lanes:
            return gast.Subscript(value=S.name(self.lanes[node.id]),
                                  slice=S.name(self.where["lane"]), ctx=node.ctx)
        return S.name(self.renames[node.id], isinstance(node.ctx, gast.Store)) \
            if node.id in self.renames else node


def _in_lanes(loop, nest, namer, arrays, fills, carved) -> list:
    i, j, points = nest["i"], nest["j"], nest["points"]
    s = nest["shape"]["sum"]
    copy = namer.fresh(f"{points}_blocks")
    sums = [namer.fresh(f"{s}_lanes") for _ in range(ROWS)]
    lanes = {x: namer.fresh(f"{x}_lanes") for x in nest["lanes"]}
    start, count, lane, block = (namer.fresh(f"{i}_{role}") for role in
                                 ("start", "count", "lane", "block"))
    row, col = namer.fresh("row"), namer.fresh("column")
    blocks_of = f"(({points}.shape[0] + {BLOCK - 1}) // {BLOCK})"
    arrays.append((copy, f"{blocks_of} * {points}.shape[1] * {BLOCK}",
                   f"({blocks_of}, {points}.shape[1], {BLOCK})", False))
    fills += S.parse_stmts(
        f"for {row} in range({points}.shape[0]):\n"
        f"    for {col} in range({points}.shape[1]):\n"
        f"        {copy}[{row} // {BLOCK}, {col}, {row} % {BLOCK}] = {points}[{row}, {col}]")
    arrays += [(x, str(BLOCK), None, False) for x in sums]
    integers = {x for x in lanes if nest["types"].get(x) == INT}
    arrays += [(name, str(BLOCK), None, x in integers) for x, name in lanes.items()]
    where = {"block": block, "lane": lane, "count": count, "start": start, "lanes": lanes}
    total = S.unparse_expr(loop.iter.args[0])
    out = [S.comment(f"the points {i} in lanes, {BLOCK} at a time: the sums of {ROWS} rows "
                     f"{j} for all points of a block at once "
                     "(srcad/transform/numba_row_lanes.py)")]
    blocks = S.parse_stmts(
        f"for {start} in range(0, {total}, {BLOCK}):\n"
        f"    {count} = min({BLOCK}, {total} - {start})\n"
        f"    {block} = {copy}[{start} // {BLOCK}]\n"
        f"    for {lane} in range({count}):\n"
        f"        {i} = {start} + {lane}\n")[0]
    blocks.body[-1].body += [_Reads(nest, None, {}, where, {}).visit(S.clone(x))
                             for x in nest["pre"]]
    if i not in _loads(blocks.body[-1].body[1:]):
        del blocks.body[-1].body[0]
    stop = S.unparse_expr([x for x in loop.body if isinstance(x, gast.For)][0].iter.args[0])
    first = namer.fresh(f"{j}_first")
    # a last group with fewer rows sums its last row again in the missing places, unused
    pairs = S.parse_stmts(f"for {first} in range(0, {stop}, {ROWS}):\n    pass")[0]
    pairs.body = _rows_pass(nest, namer, where, first, stop, sums)
    blocks.body.append(pairs)
    tail = S.parse_stmts(f"for {lane} in range({count}):\n    {i} = {start} + {lane}")[0]
    # every value per point restored: the tail reads them, and the last point's are those
    # the nest as written leaves
    tail.body += [S.parse_stmts(f"{x} = int({lanes[x]}[{lane}])" if carved and x in integers
                                else f"{x} = {lanes[x]}[{lane}]")[0] for x in sorted(lanes)]
    tail.body += [S.clone(x) for x in nest["tail"]]
    blocks.body.append(tail)
    return out + [blocks]


def _rows_pass(nest, namer, where, first, stop, sums) -> list:
    """The sums of the rows `first`, `first + 1`, ... (the last row where those pass `stop`)
    into the lanes `sums`, one pass over the block's points per group of coordinates, then
    each row's statements after the sum for each point, the rows before `stop` in their
    order."""
    lane, count, start = where["lane"], where["count"], where["start"]
    shape, i, j = nest["shape"], nest["i"], nest["j"]
    rows = [first] + [f"min({first} + {r}, {stop} - 1)" for r in range(1, len(sums))]
    out = [S.clone(x) for x in nest["hoisted"]]
    init = S.unparse_expr(shape["init"])
    out += S.parse_stmts(f"for {lane} in range({count}):\n"
                         + "".join(f"    {x}[{lane}] = {init}\n" for x in sums))
    out += _coordinates(nest, namer, where, rows, sums)
    after = S.parse_stmts(f"for {lane} in range({count}):\n    {i} = {start} + {lane}")[0]
    for r, x in enumerate(sums):
        statements = S.parse_stmts(f"{j} = {first} + {r}") \
            if j in _loads(shape["after"]) else []
        reads = _Reads(nest, None, {}, where, {shape["sum"]: x})
        statements += [reads.visit(S.clone(y)) for y in shape["after"]]
        if r:
            statements = [gast.If(test=S.parse_expr(f"{first} + {r} < {stop}"),
                                  body=statements, orelse=[])]
        after.body += statements
    if i not in _loads(after.body[1:]):
        after.body = after.body[1:]
    return out + [after]


def _coordinates(nest, namer, where, rows, sums) -> list:
    """The loops over the coordinates: UNROLL per pass, then the rest one at a time."""
    iter_ = nest["iter"]
    first = S.unparse_expr(iter_.args[0]) if len(iter_.args) == 2 else "0"
    last = S.unparse_expr(iter_.args[-1])
    C, t = nest["shape"]["array"], nest["t"]
    full, t4 = namer.fresh(f"{t}_full"), namer.fresh(f"{t}_{UNROLL}")
    trips = f"max(0, {last} - {first})" if first != "0" else f"max(0, {last})"
    out = S.parse_stmts(f"{full} = {'' if first == '0' else first + ' + '}"
                        f"{trips} // {UNROLL} * {UNROLL}")

    def terms(coordinates):
        heads, body, lane = [], [], where["lane"]
        for r, x in zip(rows, sums):
            added = f"{x}[{lane}]"
            for c in coordinates:
                held = namer.fresh(f"{C}_{nest['j']}")
                heads += S.parse_stmts(f"{held} = {C}[{r}, {c}]")
                renames = {y.targets[0].id: namer.fresh(y.targets[0].id)
                           for y in nest["shape"]["temps"]}
                reads = _Reads(nest, (c, r, held), renames, where, {})
                body += [reads.visit(S.clone(y)) for y in nest["shape"]["temps"]]
                term = S.unparse_expr(reads.visit(S.clone(nest["shape"]["add"])))
                added = f"({added} + ({term}))"
            body += S.parse_stmts(f"{x}[{lane}] = {added}")
        loop = S.parse_stmts(f"for {lane} in range({where['count']}):\n    pass")[0]
        loop.body = body
        return heads + [loop]

    unrolled = S.parse_stmts(f"for {t4} in range({first}, {full}, {UNROLL}):\n    pass")[0]
    unrolled.body = terms([f"{t4} + {u}" if u else t4 for u in range(UNROLL)])
    rest = S.parse_stmts(f"for {t} in range({full}, {last}):\n    pass")[0]
    rest.body = terms([t])
    return out + [unrolled, rest]
