"""numba: in a component's work with the points in lanes (numba_outer_lanes.py), a triangle's
columns added into a work vector in lanes (gmm's `Qtimesx`: `w[j] = w[j] + l[k] * x[i]` for
`j` in `range(i + 1, d)`, `k += 1`) run four columns at a time, as numba_column_jam.py does for
the nest as written: each row's lanes are loaded and stored once for four columns' terms,
which each element receives one by one in the order written (`((w + t0) + t1) + t2) + t3`),
so the bits are the same.

A column loop is jammed when it is `for i in range(a, b)` (or `range(b)`) whose body (comments
aside) is one `for j in range(i + c, e)` (`c` an int literal >= 0) whose body is `w[j] = w[j] +
t` (or `w[j] += t`), `w` a work vector in lanes, and optionally, last, `k += 1`, where `t` does
not read `w`, `e` reads none of `i`, `j`, `k`, `w`, the column range none of `j`, `k`, `w`, and
`k` is a name computed the same for every point. `i` and `j` are loop targets the rewrite's
conditions keep private to their loops; `k` holds after the jammed loops what the columns as
written leave in it. In column `i` at row `j` the counter is its value on entering the column
plus `j - (i + c)`.
"""

from __future__ import annotations

import gast

from srcad.frontend import syntax as S
from srcad.transform.numba_column_jam import _is_step, _offset

COLUMNS = 4


def jammed_columns(stmt, vectors, variant, namer, in_lanes) -> tuple | None:
    """(the statements running whole groups of COLUMNS columns jammed, the column loop `stmt`
    left for the columns after them), or None where `stmt` is not such a loop;
    `vectors`: the work vectors in lanes, `variant`: the names computed per point,
    `in_lanes(statements)`: those statements in a loop over the block's points."""
    nest = _nest(stmt, vectors, variant)
    if nest is None:
        return None
    i, j, counter, offset, w, term, end = nest
    args = stmt.iter.args
    first = S.unparse_expr(args[0]) if len(args) == 2 else "0"
    stop, e = S.unparse_expr(args[-1]), S.unparse_expr(end)
    groups, column = namer.fresh(f"{i}_groups"), namer.fresh(f"{i}_block")
    starts = [namer.fresh(f"{counter}_{u}") for u in range(COLUMNS)] if counter else []
    out = [S.comment(f"{COLUMNS} columns of {i} at a time, jammed in lanes "
                     "(srcad/transform/numba_lane_columns.py)")]
    out += S.parse_stmts(f"{groups} = len(range({first}, {stop})) // {COLUMNS}")
    body = []
    if counter:
        body += S.parse_stmts(f"{starts[0]} = {counter}")
        for u in range(1, COLUMNS):
            body += S.parse_stmts(f"{starts[u]} = {starts[u - 1]} + max(0, ({e}) - "
                                  f"({column} + {u - 1 + offset}))")

    def update(row, columns):
        value = S.parse_expr(f"{w}[{row}]")
        for u in range(columns):
            mapping = {i: S.parse_expr(f"{column} + {u}" if u else column),
                       j: S.parse_expr(row)}
            if counter:
                mapping[counter] = S.parse_expr(f"{starts[u]} + ({row} - ({column} + "
                                                f"{u + offset}))")
            value = gast.BinOp(left=value, op=gast.Add(), right=S.substitute(term, mapping))
        return S.assign(S.parse_expr(f"{w}[{row}]"), value)

    for p in range(COLUMNS - 1):  # the rows only the first columns reach
        row = namer.fresh(f"{j}_row")
        guard = S.parse_stmts(f"{row} = {column} + {p + offset}\nif {row} < {e}:\n    pass")
        guard[1].body = in_lanes([_stored_form(update(row, p + 1))])
        body += guard
    rows = S.parse_stmts(f"for {j} in range({column} + {COLUMNS - 1 + offset}, {e}):\n    pass")
    rows[0].body = in_lanes([_stored_form(update(j, COLUMNS))])
    body += rows
    if counter:
        body += S.parse_stmts(f"{counter} = {starts[-1]} + max(0, ({e}) - "
                              f"({column} + {COLUMNS - 1 + offset}))")
    loop = S.parse_stmts(f"for {column} in range({first}, {first} + {COLUMNS} * {groups}, "
                         f"{COLUMNS}):\n    pass")[0]
    loop.body = body
    rest = S.clone(stmt)
    rest.iter = S.parse_expr(f"range({first} + {COLUMNS} * {groups}, {stop})")
    return out + [loop], rest


def _stored_form(stmt):
    S.set_store(stmt.targets[0])
    return stmt


def _nest(stmt, vectors, variant):
    """(i, j, counter or None, c, w, t, e) when `stmt` is a column loop to jam, else None."""
    if not isinstance(stmt, gast.For) or stmt.orelse or not isinstance(stmt.target, gast.Name):
        return None
    body = [s for s in stmt.body if not S.is_comment(s)]
    if len(body) != 1 or not isinstance(body[0], gast.For) or body[0].orelse \
            or not isinstance(body[0].target, gast.Name) or len(body[0].iter.args) != 2:
        return None
    inner = body[0]
    i, j = stmt.target.id, inner.target.id
    offset = _offset(inner.iter.args[0], i)
    rows = [s for s in inner.body if not S.is_comment(s)]
    counter = None
    if len(rows) == 2 and _is_step(rows[1]):
        counter = rows[1].target.id
        rows = rows[:1]
    if offset is None or i == j or len(rows) != 1:
        return None
    update = rows[0]
    if isinstance(update, gast.AugAssign) and isinstance(update.op, gast.Add):
        target, term = update.target, update.value
    elif isinstance(update, gast.Assign) and isinstance(update.value, gast.BinOp) \
            and isinstance(update.value.op, gast.Add) \
            and S.same(S.as_load(update.targets[0]), update.value.left):
        target, term = update.targets[0], update.value.right
    else:
        return None
    if not (isinstance(target, gast.Subscript) and isinstance(target.value, gast.Name)
            and target.value.id in vectors and isinstance(target.slice, gast.Name)
            and target.slice.id == j):
        return None
    w = target.value.id
    names = {n.id for n in S.walk(term) if isinstance(n, gast.Name)}
    bounds = {n.id for a in stmt.iter.args for n in S.walk(a) if isinstance(n, gast.Name)}
    end = {n.id for n in S.walk(inner.iter.args[1]) if isinstance(n, gast.Name)}
    if w in names or end & {i, j, counter, w} or bounds & {j, counter, w} \
            or counter in {i, j, w} | set(variant):
        return None
    return i, j, counter, offset, w, term, inner.iter.args[1]
