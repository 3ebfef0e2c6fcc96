"""numba: a running `min` or `max` over the rows of an array of sums over each row's elements
(k-means' `closest = min(closest, dist)`, `dist` a sum over the coordinates of centroid `j`)
computes the sums for all rows at once, the loops interchanged, reading a transposed copy of
the array made once per call, so that LLVM vectorizes across rows; bit-identical to the
loop as written.

numba compiles the loop as written into scalar code: each sum waits for its previous
addition (srcad does not let LLVM reassociate by default, srcad/build/numba_fastmath.py), and
numba's LLVM pipeline does not pack independent sums side by side (its SLP vectorizer is off).
Interchanged, the inner loop runs over the rows `j` and adds one term into each row's own sum
`sums[j]`: no reduction, so LLVM's loop vectorizer packs 4 rows per instruction, reading
`C_t[t, j]` from contiguous memory. Each sum starts from the same value and adds the same
terms in the same order (over `t`), so it has the bits of the loop as written; the running
extremum then reads the sums in the order of `j` (and runs in lanes,
numba_extremum_lanes.py), so ties and NaN are decided as written.

A loop is rewritten when it is a `for j in range(k)`, `k` the array's `C.shape[0]` or
`len(C)` (directly or a name assigned once from it), whose body is: statements `name = e`
that read neither `j` nor a name the body assigns after them (the same every iteration), one
`b = C[j]` and one `s = e` of such a value, one inner `for t in range(...)` (bounds the same in
every iteration; `len(b)` is read as `C.shape[1]`) whose body is `s += e` alone, with `b`
read only as `b[t]`, then statements `name = e` and one update `m = min(m, e)` or `m =
max(m, e)` of a float `m` that nothing else reads. `C` is a 2-D float parameter that the
function reads only through such rows, `C.shape` and `len(C)` (nothing writes it or holds it
under another name), every expression is pure (numba_extremum_lanes.py), and every name the
body assigns but `m` is dead after the loop.
"""

from __future__ import annotations

import gast

from srcad.analysis.value_types import FLOAT, Array
from srcad.frontend import syntax as S
from srcad.transform.numba_extremum_jam import _simple_assign
from srcad.transform.numba_extremum_lanes import _extremum_of, _is_range, _pure
from srcad.transform.numba_zero_adjoints import dead_after

MAX_STATEMENTS = 10


def interchange_row_sums(tree, namer, types):
    """`tree` with the loops the module docstring describes rewritten (in place); `types`
    maps a name to its value type."""
    for fn in [n for n in S.walk(tree) if isinstance(n, gast.FunctionDef)]:
        if any(isinstance(n, gast.FunctionDef) and n is not fn for n in S.walk(fn)):
            continue  # a nested function's loops would be seen with the outer's names
        params = {a.id for a in fn.args.args if isinstance(a, gast.Name)}
        copies = {}  # C -> the name of its transposed copy
        made = []  # the copies and the sums' arrays, made once per call
        for node in list(S.walk(fn)):
            for field in ("body", "orelse"):
                body = getattr(node, field, None)
                if not (isinstance(body, list) and any(isinstance(s, gast.For) for s in body)):
                    continue
                out = []
                for stmt in body:
                    shape = _shape(fn, stmt, params, types) if isinstance(stmt, gast.For) \
                        else None
                    if shape is not None and dead_after(fn, stmt, keep={shape["m"]}):
                        array = shape["array"]
                        if array not in copies:
                            copies[array] = namer.fresh(f"{array}_t")
                            made += S.parse_stmts(f"{copies[array]} = "
                                                  f"np.ascontiguousarray({array}.T)")
                        sums = namer.fresh(f"{shape['sum']}_rows")
                        made += S.parse_stmts(f"{sums} = np.empty({array}.shape[0])")
                        out += _interchanged(stmt, shape, copies[array], sums, namer)
                    else:
                        out.append(stmt)
                setattr(node, field, out)
        if made:
            made.insert(0, S.comment("rows read transposed by interchanged loops "
                                     "(srcad/transform/numba_row_sums.py)"))
            at = 1 if fn.body and isinstance(fn.body[0], gast.Expr) \
                and isinstance(fn.body[0].value, gast.Constant) else 0
            fn.body[at:at] = made
    return tree


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
    """Whether every occurrence of `array` in `fn` is `array.shape`, `len(array)` or one of
    the row reads `rows` (no write, no other name for it)."""
    allowed = {id(r.value.value) for r in rows} | {id(a) for a in fn.args.args}
    for n in S.walk(fn):
        if isinstance(n, gast.Attribute) and isinstance(n.value, gast.Name) \
                and n.value.id == array and n.attr == "shape":
            allowed.add(id(n.value))
        elif isinstance(n, gast.Call) and isinstance(n.func, gast.Name) and n.func.id == "len" \
                and len(n.args) == 1 and isinstance(n.args[0], gast.Name) \
                and n.args[0].id == array:
            allowed.add(id(n.args[0]))
    return all(id(n) in allowed for n in S.walk(fn)
               if isinstance(n, gast.Name) and n.id == array)


def _shape(fn, loop, params, types):
    """What `_interchanged` needs when `loop` is one to rewrite, else None."""
    if loop.orelse or not isinstance(loop.target, gast.Name) or not _is_range(loop.iter) \
            or len(loop.iter.args) != 1:
        return None
    array = _rows_of(loop.iter.args[0], fn)
    if array is None or array not in params or types.get(array) != Array(2, True):
        return None
    body = [s for s in loop.body if not S.is_comment(s)]
    inner = [k for k, s in enumerate(body) if isinstance(s, gast.For)]
    if len(inner) != 1 or len(body) > MAX_STATEMENTS:
        return None
    before, nested, after = body[:inner[0]], body[inner[0]], body[inner[0] + 1:]
    if not after or not all(_simple_assign(s) for s in before + after):
        return None
    update, j = after[-1], loop.target.id
    m = update.targets[0].id
    if not _extremum_of(update) or types.get(m) != FLOAT:
        return None
    sums = [s for s in nested.body if not S.is_comment(s)]
    if nested.orelse or not isinstance(nested.target, gast.Name) or len(sums) != 1 \
            or not _is_range(nested.iter):
        return None
    add, t = sums[0], nested.target.id
    if not (isinstance(add, gast.AugAssign) and isinstance(add.op, gast.Add)
            and isinstance(add.target, gast.Name) and _pure(add.value)):
        return None
    s = add.target.id
    bound = {j, t, s, m} | {x.targets[0].id for x in before + after}
    row = [x for x in before if isinstance(x.value, gast.Subscript)
           and isinstance(x.value.value, gast.Name) and x.value.value.id == array
           and isinstance(x.value.slice, gast.Name) and x.value.slice.id == j]
    init = [x for x in before if x.targets[0].id == s]
    if len(row) != 1 or len(init) != 1:
        return None
    b = row[0].targets[0].id
    hoisted = [x for x in before if x is not row[0] and x is not init[0]]
    set_before = set()
    for x in hoisted + init:  # the same value every iteration: hoisted out of the loop
        if S.loaded_names(x.value) & (bound - set_before) or x.targets[0].id in (j, t, m):
            return None
        set_before.add(x.targets[0].id)
    if len({x.targets[0].id for x in before}) != len(before):
        return None
    iter_ = _with_row_length(nested.iter, b, array)
    if iter_ is None or S.loaded_names(iter_) & (bound - set_before - {s}) \
            or s in S.loaded_names(iter_):
        return None
    reads = S.loaded_names(add.value)
    if reads & (bound - set_before - {j, t, b}) or s in reads or not _rows_read_at(add.value, b, t):
        return None
    set_after = set_before | {s}
    for x in after:
        reads = S.loaded_names(x.value.args[1] if x is update else x.value)
        if reads & (bound - set_after) or b in reads or t in reads \
                or (x is not update and x.targets[0].id in (m, j, t, b)):
            return None
        set_after.add(x.targets[0].id)
    if not _only_read_as_rows(fn, array, row):
        return None
    return {"array": array, "row": b, "sum": s, "init": init[0].value, "hoisted": hoisted,
            "iter": iter_, "add": add.value, "after": after, "m": m}


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

    def __init__(self, b, t, j, transposed, namer):
        self.b, self.t, self.j, self.transposed = b, t, j, transposed
        self.namer, self.hoisted = namer, {}

    def visit_Subscript(self, node):
        if isinstance(node.value, gast.Name) and node.value.id == self.b:
            return S.parse_expr(f"{self.transposed}[{self.t}, {self.j}]")
        if self.j not in S.loaded_names(node) and self.b not in S.loaded_names(node):
            text = S.unparse_expr(node)
            if text not in self.hoisted:
                self.hoisted[text] = self.namer.fresh("element")
            return S.name(self.hoisted[text])
        return self.generic_visit(node)


def _interchanged(loop, shape, transposed, sums, namer) -> list:
    j, stop = loop.target.id, S.unparse_expr(loop.iter.args[0])
    t = [s for s in loop.body if isinstance(s, gast.For)][0].target.id
    reads = _RowsTransposed(shape["row"], t, j, transposed, namer)
    term = reads.visit(S.clone(shape["add"]))
    elements = "".join(f"    {name} = {text}\n" for text, name in reads.hoisted.items())
    out = [S.comment(f"the sums {shape['sum']} of all rows of {shape['array']} at once, "
                     "the loops interchanged (srcad/transform/numba_row_sums.py)")]
    body = [S.clone(x) for x in shape["hoisted"]]
    body += S.parse_stmts(f"for {j} in range({stop}):\n"
                          f"    {sums}[{j}] = {S.unparse_expr(shape['init'])}\n"
                          f"for {t} in {S.unparse_expr(shape['iter'])}:\n"
                          f"{elements}"
                          f"    for {j} in range({stop}):\n"
                          f"        {sums}[{j}] = {sums}[{j}] + ({S.unparse_expr(term)})\n"
                          f"for {j} in range({stop}):\n"
                          f"    {shape['sum']} = {sums}[{j}]")
    body[-1].body += [S.clone(x) for x in shape["after"]]
    out.append(gast.If(test=S.parse_expr(f"{stop} > 0"), body=body, orelse=[]))
    return out
