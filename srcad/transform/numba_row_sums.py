"""numba: a loop over the rows of an array that sums over each row's elements and then
keeps a running `min`/`max` or the index of the nearest row (k-means' `closest = min(closest,
dist)`, `dist` a sum over the coordinates of centroid `j`; the reverse sweep's forward loop
`if dist < closest: winner = j`) computes the sums for all rows at once, the loops
interchanged, reading a transposed copy of the array made once per call, so that LLVM
vectorizes across rows; bit-identical to the loop as written.

numba compiles the loop as written into scalar code: each sum waits for its previous
addition (srcad does not let LLVM reassociate by default, srcad/build/numba_fastmath.py), and
numba's LLVM pipeline does not pack independent sums side by side (its SLP vectorizer is off).
Interchanged, the inner loop runs over the rows `j` and adds one term into each row's own sum
`sums[j]`: no reduction, so LLVM's loop vectorizer packs 4 rows per instruction, reading
`C_t[t, j]` from contiguous memory. Each sum starts from the same value and adds the same
terms in the same order (over `t`), so it has the bits of the loop as written; the statements
after the sum then run for each row in the order of `j` from the same values (a running
extremum there runs in lanes, numba_extremum_lanes.py), so ties and NaN are decided as
written.

A loop is rewritten when it is a `for j in range(k)`, `k` the array's `C.shape[0]` or
`len(C)` (directly or a name assigned once from it), whose body is: statements `name = e`
that read neither `j` nor a name assigned later in the body or in an earlier iteration (the
same every iteration: they run once, before the rows' loop), `b = C[j]`, `s = e` of such a
value, other row reads nothing in the loop uses (dropped), one inner `for t in range(...)`
(bounds the same in every iteration; `len(b)` is read as `C.shape[1]`) whose body is
assignments and `s += e` last (`s` a float), `b` read only as `b[t]`, then assignments and
`if`s that read neither `b`, `t` nor the inner loop's names. `C` is a 2-D float parameter
nothing in the function writes (no element write or method call through it or a name that
may hold a view of it), every expression is pure (numba_extremum_lanes.py), and `b` (and a
dropped row) is not read after the loop. With reassociated sums, a loop that
numba_extremum_jam.py takes is left to it.
"""

from __future__ import annotations

import gast

from srcad.analysis.value_types import FLOAT, Array
from srcad.frontend import syntax as S
from srcad.transform.numba_extremum_jam import _shape as _jam_shape
from srcad.transform.numba_extremum_jam import _simple_assign, one_inner_loop
from srcad.transform.numba_extremum_lanes import _is_range, _pure
from srcad.transform.numba_loop_sites import after_docstring, replace_loops
from srcad.transform.numba_step_effects import dead_after
from srcad.transform.tapes import FLOAT_TAPE, WORK, ArrayTapes

MAX_STATEMENTS = 10
_READING_CALLS = frozenset({"len", "range", "min", "max", "abs", "float", "int", "unshared"})


def interchange_row_sums(tree, namer, types, reassociated=False):
    """`tree` with the loops the module docstring describes rewritten (in place); `types`
    maps a name to its value type. With `reassociated` sums (srcad/build/numba_fastmath.py)
    a loop that numba_extremum_jam.py runs in jammed lanes is left to it: LLVM vectorizes
    those sums over the coordinates (k-means cost at k=100, d=8: 85 us jammed, 100 us
    interchanged)."""
    for fn in [n for n in S.walk(tree) if isinstance(n, gast.FunctionDef)]:
        if any(isinstance(n, gast.FunctionDef) and n is not fn for n in S.walk(fn)):
            continue  # a nested function's loops would be seen with the outer's names
        params = {a.id for a in fn.args.args if isinstance(a, gast.Name)}
        copies = {}  # C -> the name of its transposed copy
        made = []  # (name, C, "copy" or "sums"): the arrays made once per call

        def rewrite(loop, fn=fn, params=params, copies=copies, made=made):
            shape = _shape(fn, loop, params, types)
            if shape is None or (reassociated and jammed(loop, types)) \
                    or not dead_after(fn, loop, keep=shape["live"]):
                return None
            array = shape["array"]
            if array not in copies:
                copies[array] = namer.fresh(f"{array}_t")
                made.append((copies[array], array, "copy"))
            sums = namer.fresh(f"{shape['sum']}_rows")
            made.append((sums, array, "sums"))
            return _interchanged(loop, shape, copies[array], sums, namer)
        replace_loops(fn, rewrite)
        if made:
            _make(fn, made, namer)
    return tree


def _make(fn, made, namer) -> None:
    """The transposed copies and the sums' arrays `made` at the top of `fn`: carved from the
    array the caller keeps across calls where `fn` has one (`_workspace`), else new arrays."""
    kept = _workspace(fn)
    if kept is None:
        out = [S.comment("rows read transposed by interchanged loops "
                         "(srcad/transform/numba_row_sums.py)")]
        out += [S.parse_stmts(f"{name} = np.ascontiguousarray({array}.T)" if kind == "copy"
                              else f"{name} = np.empty({array}.shape[0])")[0]
                for name, array, kind in made]
        at = after_docstring(fn)
        fn.body[at:at] = out
        return
    kind, at = kept
    entries, copies = [], []
    for name, array, role in made:
        rows, columns = f"{array}.shape[0]", f"{array}.shape[1]"
        if role == "copy":
            entries.append((name, S.parse_expr(f"{rows} * {columns}"),
                            S.parse_expr(f"({columns}, {rows})"), False))
            i, t = namer.fresh("row"), namer.fresh("column")
            copies += S.parse_stmts(f"for {i} in range({rows}):\n"
                                    f"    for {t} in range({columns}):\n"
                                    f"        {name}[{t}, {i}] = {array}[{i}, {t}]")
        else:
            entries.append((name, S.parse_expr(rows), None, False))
    out = [S.comment(f"rows read transposed by interchanged loops, in `{kind}` kept across "
                     "calls (srcad/transform/numba_row_sums.py)")]
    fn.body[at:at] = out + ArrayTapes().carve(kind, entries) + copies


def _workspace(fn):
    """(the tape, the index in `fn`'s body after its start) of the array a prepared call
    keeps across calls and hands back when this call grew it (srcad/transform/tapes.py:
    `work`, else the float `tape`): a parameter whose counter starts as the body's first
    use of it, `tape_size = 0` then `tape_length = tape.shape[0]`; None where `fn` has
    none."""
    params = {a.id for a in fn.args.args if isinstance(a, gast.Name)}
    for kind in (WORK, FLOAT_TAPE):
        if kind not in params:
            continue
        start = S.parse_stmts(f"{kind}_size = 0\n{kind}_length = {kind}.shape[0]")
        for k in range(len(fn.body) - 1):
            uses = {n.id for s in fn.body[:k] for n in S.walk(s) if isinstance(n, gast.Name)}
            if uses & {kind, f"{kind}_size", f"{kind}_length"}:
                break
            if S.same(fn.body[k], start[0]) and S.same(fn.body[k + 1], start[1]):
                return kind, k + 2
    return None


def jammed(loop, types) -> bool:
    """Whether numba_extremum_jam.py runs `loop` in jammed lanes (where its names are dead
    after the loop)."""
    return _jam_shape(loop, types) is not None


def _rows_of(stop, fn):
    """The array `C` when `stop` is `C.shape[0]`, `len(C)` or a name assigned once in `fn`
    from one of those, else None."""
    if isinstance(stop, gast.Name):
        sets = [n for n in S.walk(fn) if isinstance(n, gast.Name) and n.id == stop.id
                and isinstance(n.ctx, gast.Store)]
        assigns = [s for s in S.walk(fn) if isinstance(s, gast.Assign) and len(s.targets) == 1
                   and isinstance(s.targets[0], gast.Name) and s.targets[0].id == stop.id]
        if len(sets) != 1 or len(assigns) != 1 or stop.id in {a.id for a in fn.args.args}:
            return None
        stop = assigns[0].value
    if isinstance(stop, gast.Subscript) and isinstance(stop.value, gast.Attribute) \
            and stop.value.attr == "shape" and isinstance(stop.value.value, gast.Name) \
            and isinstance(stop.slice, gast.Constant) and stop.slice.value == 0:
        return stop.value.value.id
    if isinstance(stop, gast.Call) and isinstance(stop.func, gast.Name) \
            and stop.func.id == "len" and len(stop.args) == 1 \
            and isinstance(stop.args[0], gast.Name) and not stop.keywords:
        return stop.args[0].id
    return None


def _only_read_as_rows(fn, array, rows) -> bool:
    """Whether nothing in `fn` writes `array`: every occurrence of it is `array.shape`,
    `len(array)` or an element or row read `array[...]`, and no name holding a value read
    from it (a row view) is written into, by element or method."""
    allowed = {id(a) for a in fn.args.args}
    for n in S.walk(fn):
        if isinstance(n, gast.Attribute) and isinstance(n.value, gast.Name) \
                and n.value.id == array and n.attr == "shape":
            allowed.add(id(n.value))
        elif isinstance(n, gast.Call) and isinstance(n.func, gast.Name) and n.func.id == "len" \
                and len(n.args) == 1 and isinstance(n.args[0], gast.Name) \
                and n.args[0].id == array:
            allowed.add(id(n.args[0]))
        elif isinstance(n, gast.Subscript) and isinstance(n.value, gast.Name) \
                and n.value.id == array and isinstance(n.ctx, gast.Load):
            allowed.add(id(n.value))
    if not all(id(n) in allowed for n in S.walk(fn)
               if isinstance(n, gast.Name) and n.id == array):
        return False
    holders = {array}
    while True:  # the names that may hold a view of the array: a holder, its part, its rows
        more = {t.id for n in S.walk(fn) if isinstance(n, (gast.Assign, gast.AugAssign))
                for t in (n.targets if isinstance(n, gast.Assign) else [n.target])
                if isinstance(t, gast.Name) and _views_of(n.value) & holders} - holders
        if not more:
            break
        holders |= more
    for n in S.walk(fn):
        if isinstance(n, gast.Subscript) and not isinstance(n.ctx, gast.Load) \
                and S.loaded_names(n.value) & holders:
            return False
        if isinstance(n, gast.Call) and isinstance(n.func, gast.Attribute) \
                and S.loaded_names(n.func.value) & holders:
            return False
        if isinstance(n, gast.Call) and not (isinstance(n.func, gast.Name)
                                             and n.func.id in _READING_CALLS) \
                and any(isinstance(a, gast.Name) and a.id in holders - {array}
                        for a in n.args):
            return False
    return True


def _views_of(value) -> set:
    """The names `value` may be a view of: `x` for `x`, `x[...]`, `x.T`, `a if c else x`."""
    while isinstance(value, (gast.Subscript, gast.Attribute)):
        if isinstance(value, gast.Attribute) and value.attr in ("shape", "ndim", "size"):
            return set()
        value = value.value
    if isinstance(value, gast.IfExp):
        return _views_of(value.body) | _views_of(value.orelse)
    return {value.id} if isinstance(value, gast.Name) else set()


def _shape(fn, loop, params, types):
    """What `_interchanged` needs when `loop` is one to rewrite, else None."""
    parts = one_inner_loop(loop, MAX_STATEMENTS)
    if parts is None or len(loop.iter.args) != 1:
        return None
    array = _rows_of(loop.iter.args[0], fn)
    if array is None or array not in params or types.get(array) != Array(2, True):
        return None
    before, nested, after = parts
    if not all(_simple_assign(x) for x in before) or not all(map(_after_statement, after)):
        return None
    j = loop.target.id
    sums = [x for x in nested.body if not S.is_comment(x)]
    if nested.orelse or not isinstance(nested.target, gast.Name) or not sums \
            or not _is_range(nested.iter) or not all(map(_simple_assign, sums[:-1])):
        return None
    add, temps, t = sums[-1], sums[:-1], nested.target.id
    if not (isinstance(add, gast.AugAssign) and isinstance(add.op, gast.Add)
            and isinstance(add.target, gast.Name)):
        return None
    s, term = add.target.id, add.value
    if isinstance(term, gast.Call) and isinstance(term.func, gast.Name) \
            and term.func.id == "unshared" and len(term.args) == 2 \
            and isinstance(term.args[0], gast.Name) and term.args[0].id == s:
        term = term.args[1]  # `s += unshared(s, e)`: `s += e` for a float s
    if types.get(s) != FLOAT or not _pure(term):
        return None
    later = {n.id for x in after for n in S.walk(x)
             if isinstance(n, gast.Name) and isinstance(n.ctx, gast.Store)}
    bound = {j, t, s} | {x.targets[0].id for x in before + temps} | later
    row = [x for x in before if isinstance(x.value, gast.Subscript)
           and isinstance(x.value.value, gast.Name) and x.value.value.id == array
           and isinstance(x.value.slice, gast.Name) and x.value.slice.id == j]
    init = [x for x in before if x.targets[0].id == s]
    if len(row) != 1 or len(init) != 1:
        return None
    b = row[0].targets[0].id
    read_in_loop = {n.id for n in S.walk(loop) if isinstance(n, gast.Name)
                    and isinstance(n.ctx, gast.Load)}
    # another row read nothing uses (a tangent's row, in a sweep that does not need it)
    dropped = [x for x in before if x is not row[0] and x is not init[0]
               and j in S.loaded_names(x.value) and x.targets[0].id not in read_in_loop]
    hoisted = [x for x in before if x is not row[0] and x is not init[0] and x not in dropped]
    set_before = set()
    for x in [x for x in before if x in hoisted or x is init[0]]:  # in the order written
        # the same value every iteration: moved before the rows' loop
        if S.loaded_names(x.value) & (bound - set_before) or x.targets[0].id in (j, t):
            return None
        set_before.add(x.targets[0].id)
    if len({x.targets[0].id for x in before}) != len(before) \
            or later & (set_before | {j, t, b, s}):
        return None
    iter_ = _with_row_length(nested.iter, b, array)
    if iter_ is None or S.loaded_names(iter_) & (bound - set_before - {s}) \
            or s in S.loaded_names(iter_):
        return None
    set_inside = set_before | {j, t, b}
    for x in temps:  # per row and coordinate, in the interchanged inner loop
        if S.loaded_names(x.value) & (bound - set_inside) or not _rows_read_at(x.value, b, t) \
                or x.targets[0].id in set_inside | later | {s}:
            return None
        set_inside.add(x.targets[0].id)
    reads = S.loaded_names(term)
    if reads & (bound - set_inside) or s in reads or not _rows_read_at(term, b, t):
        return None
    # the statements after the sum run in the order of j as written, from the same values
    if any(S.loaded_names(x) & ({b, t} | {y.targets[0].id for y in temps}) for x in after):
        return None
    if not _only_read_as_rows(fn, array, row):
        return None
    return {"array": array, "row": b, "sum": s, "init": init[0].value, "hoisted": hoisted,
            "iter": iter_, "add": term, "temps": temps, "after": after,
            "live": bound - {b} - {x.targets[0].id for x in dropped}}


def _after_statement(stmt) -> bool:
    """`name = e` or `if e: name = e ...` (else likewise), every expression pure."""
    if isinstance(stmt, gast.If):
        return _pure(stmt.test) and bool(stmt.body) and all(
            _simple_assign(x) or S.is_comment(x) for x in stmt.body + stmt.orelse)
    return _simple_assign(stmt)


def _with_row_length(iter_, b, array):
    """`iter_` with `len(b)` read as `array.shape[1]`; None where it reads `b` otherwise."""
    iter_ = S.clone(iter_)
    for n in list(S.walk(iter_)):
        for field, value in gast.iter_fields(n):
            if isinstance(value, list):
                for k, v in enumerate(value):
                    if _is_len_of(v, b):
                        value[k] = S.parse_expr(f"{array}.shape[1]")
            elif _is_len_of(value, b):
                setattr(n, field, S.parse_expr(f"{array}.shape[1]"))
    return None if b in S.loaded_names(iter_) else iter_


def _is_len_of(node, b) -> bool:
    return (isinstance(node, gast.Call) and isinstance(node.func, gast.Name)
            and node.func.id == "len" and len(node.args) == 1
            and isinstance(node.args[0], gast.Name) and node.args[0].id == b)


def _rows_read_at(value, b, t) -> bool:
    """Whether every read of `b` in `value` is `b[t]`."""
    at = {id(n.value) for n in S.walk(value) if isinstance(n, gast.Subscript)
          and isinstance(n.value, gast.Name) and n.value.id == b
          and isinstance(n.slice, gast.Name) and n.slice.id == t}
    return all(id(n) in at for n in S.walk(value) if isinstance(n, gast.Name) and n.id == b)


class _RowsTransposed(gast.NodeTransformer):
    """`b[t]` read as `transposed[t, j]`; each other element read that does not depend on
    `j` read once per `t` into a name (`hoisted`): LLVM cannot move it out of the loop over
    `j` past the stores into the sums."""

    def __init__(self, b, t, j, transposed, namer, temps=()):
        self.b, self.t, self.j, self.transposed = b, t, j, transposed
        self.per_row = {j, b, *temps}  # names whose values change with the row
        self.namer, self.hoisted = namer, {}

    def visit_Subscript(self, node):
        if isinstance(node.value, gast.Name) and node.value.id == self.b:
            return S.parse_expr(f"{self.transposed}[{self.t}, {self.j}]")
        if not S.loaded_names(node) & self.per_row:
            text = S.unparse_expr(node)
            if text not in self.hoisted:
                self.hoisted[text] = self.namer.fresh("element")
            return S.name(self.hoisted[text])
        return self.generic_visit(node)


def _interchanged(loop, shape, transposed, sums, namer) -> list:
    j, stop = loop.target.id, S.unparse_expr(loop.iter.args[0])
    t = [s for s in loop.body if isinstance(s, gast.For)][0].target.id
    reads = _RowsTransposed(shape["row"], t, j, transposed, namer,
                            [x.targets[0].id for x in shape["temps"]])
    term = reads.visit(S.clone(shape["add"]))
    temps = "".join(f"        {x.targets[0].id} = {S.unparse_expr(reads.visit(S.clone(x.value)))}\n"
                    for x in shape["temps"])
    elements = "".join(f"    {name} = {text}\n" for text, name in reads.hoisted.items())
    out = [S.comment(f"the sums {shape['sum']} of all rows of {shape['array']} at once, "
                     "the loops interchanged (srcad/transform/numba_row_sums.py)")]
    body = [S.clone(x) for x in shape["hoisted"]]
    body += S.parse_stmts(f"for {j} in range({stop}):\n"
                          f"    {sums}[{j}] = {S.unparse_expr(shape['init'])}\n"
                          f"for {t} in {S.unparse_expr(shape['iter'])}:\n"
                          f"{elements}"
                          f"    for {j} in range({stop}):\n"
                          f"{temps}"
                          f"        {sums}[{j}] = {sums}[{j}] + ({S.unparse_expr(term)})\n"
                          f"for {j} in range({stop}):\n"
                          f"    {shape['sum']} = {sums}[{j}]")
    body[-1].body += [S.clone(x) for x in shape["after"]]
    out.append(gast.If(test=S.parse_expr(f"{stop} > 0"), body=body, orelse=[]))
    return out
