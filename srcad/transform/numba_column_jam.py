"""numba: a loop nest adding each column of a triangle into a work vector (gmm's `Qtimesx`:
`out[j] = out[j] + ltri[idx] * x[i]` for `j` in `range(i + 1, d)`) runs four columns at a
time (unroll and jam), each element updated by the four columns in one statement, with a
result bit-identical to the nest as written.

In the nest as written every update of `out[j]` loads and stores it, and the inner trips (d - 1
down to 1) are too short for LLVM's vector loops (8 doubles, 4 times unrolled on AVX-512
machines): the loop mostly runs scalar. Jammed, one load and one store of `out[j]` serve four
columns, and the inner loop's body is four times larger: gmm's objective ran 1.7-1.9x faster at
d = 10, 32 and 64. Each element still receives the columns' terms one by one in the order
written (`((out[j] + t0) + t1) + t2) + t3`), so the bits are the same (but for which NaN
comes out where terms are NaN: LLVM may swap an addition's operands, in the nest as written
too).

A nest is rewritten when it is a `for i in range(a, b)` (or `range(b)`) whose body (comments
aside) is one `for j in range(s, e)`, `s` being `i` or `i + c` (`c` an int literal), whose body is
`w[j] = w[j] + t` (or `w[j] += t`) and optionally, last, `k += 1` (a counter `t` may read: in
column `i` at row `j` it is `k`'s value on entering the column plus `j - s`), followed in the
outer body by nothing or by records on srcad's tapes (`tape[tape_size] = x[i]`, `tape_size +=
1`: a reverse sweep's forward nest keeping what its columns read, run for the four columns in
turn after their rows), where:

* `w` is a one-dimensional work array of the function's own (every binding `np.zeros(n)`,
  `np.empty(n)` or `np.ones(n)`, and every other use an element `w[index]`, `len(w)`,
  `w.shape`, `w.size`, `np.zeros_like(w)` (`empty_like`, `ones_like`), a slice assigned to or
  the value returned): no other name can see its memory, so `t` reads none of it;
* `t` is pure (srcad/transform/numba_extremum_lanes.py's `_pure`) and does not read `w`;
* `e`, `a` and `b` read no name the nest assigns, `s` none but `i`;
* the records read neither `w`, `j` nor `k`, write only a tape array (indexed by a tape
  counter: srcad's own, which no other array shares memory with) and step tape counters,
  none of which `t` or the bounds read;
* `i` and `j` are dead after the nest (the jammed nest leaves other values in them), `k`
  and the tape counters hold after it what the nest leaves in them.

Groups of four run while the group's last column starts at a row of the nest (`s <= e`);
the columns after them run as written. In a group, the elements a term reads that do not
depend on the row are read once before the rows (nothing in the nest writes them: only `w` is
written, which they cannot be; the last column's only where it has rows), the rows only the
first columns reach are one statement each, and the rows all four reach one loop. The rewrite
runs on the tree numba compiles, after the subscripts by counters that are never negative
became unsigned (srcad/transform/numba_indices.py): a name in such a subscript is replaced by
an expression of the same value, so the subscript stays unsigned.

>>> import gast
>>> from srcad.build.codegen import to_source
>>> tree = gast.parse("def f(l, x, d):\\n"
...                   "    out = np.zeros(d)\\n"
...                   "    k = 0\\n"
...                   "    for i in range(d):\\n"
...                   "        for j in range(i + 1, d):\\n"
...                   "            out[j] = out[j] + l[k] * x[i]\\n"
...                   "            k += 1\\n"
...                   "    return out\\n")
>>> code = to_source(jam_columns(tree))
>>> print(code[code.index("    i_groups"):code.index("        # 4 columns")].rstrip())
    i_groups = min(len(range(d)) // 4, max(0, d - 0 + 0) // 4)
    for i_block in range(0, 0 + 4 * i_groups, 4):
>>> print(code[code.index("    for i in range(0 + 4 * i_groups"):].rstrip())
    for i in range(0 + 4 * i_groups, d):
        for j in range(i + 1, d):
            out[j] = out[j] + l[k] * x[i]
            k += 1
    return out
"""

from __future__ import annotations

import gast

from srcad.frontend import syntax as S
from srcad.transform.names import Namer
from srcad.transform.numba_extremum_lanes import _is_range, _pure
from srcad.transform.numba_loop_sites import replace_loops
from srcad.transform.numba_step_effects import dead_after

COLUMNS = 4  # columns jammed into one inner loop
_FRESH_ARRAYS = ("zeros", "empty", "ones")
_LIKE = ("zeros_like", "empty_like", "ones_like")


def jam_columns(tree, counters=frozenset(), env=None):
    """`tree` with the nests the module docstring describes rewritten (in place); `counters`:
    srcad's tape counters (the records a column may push after its rows); `env`: srcad's
    types of the names, where the work vector must be a one-dimensional array (`np.zeros(n)`
    of a tuple `n` is not; None: the code's own, as in the example above)."""
    namers = []  # made at the first nest rewritten
    for fn in [n for n in S.walk(tree) if isinstance(n, gast.FunctionDef)]:
        def rewrite(loop, fn=fn):
            nest = _nest(fn, loop, counters, env)
            if nest is None:
                return None
            namers[:] = namers or [Namer.for_tree(tree)]
            return _jammed(loop, nest, namers[0])
        replace_loops(fn, rewrite)
    return tree


class _Nest:
    def __init__(self, outer, inner, target, term, counter, offset, records):
        self.outer, self.inner = outer, inner
        self.i, self.j = outer.target.id, inner.target.id
        self.target, self.term, self.counter, self.offset = target, term, counter, offset
        self.records = records  # the statements after the rows, each column's in turn


def _nest(fn, outer, tape_counters, env):
    """The nest's parts when `outer` is a nest to rewrite, else None."""
    if outer.orelse or not isinstance(outer.target, gast.Name) or not _is_range(outer.iter):
        return None
    body = [s for s in outer.body if not S.is_comment(s)]
    if not body or not isinstance(body[0], gast.For):
        return None
    inner, records = body[0], body[1:]
    if inner.orelse or not isinstance(inner.target, gast.Name) or not _is_range(inner.iter) \
            or len(inner.iter.args) != 2:
        return None
    i, j = outer.target.id, inner.target.id
    offset = _offset(inner.iter.args[0], i)
    if offset is None or i == j:
        return None
    statements = [s for s in inner.body if not S.is_comment(s)]
    counter = None
    if len(statements) == 2 and _is_step(statements[1]):
        counter = statements[1].target.id
        statements = statements[:1]
    if len(statements) != 1:
        return None
    update = _update(statements[0], j)
    if update is None:
        return None
    target, term = update
    array = target.value.id
    if env is not None and getattr(env.get(array), "ndim", None) != 1:
        return None
    assigned = {i, j} | ({counter} if counter else set())
    recorded = _records(records, tape_counters, (assigned - {i}) | {array})
    if recorded is None:
        return None
    assigned |= recorded
    if S.loaded_names(term) & ({array} | recorded) or counter in (i, j, array) \
            or any(S.loaded_names(a) & assigned for a in outer.iter.args) \
            or S.loaded_names(inner.iter.args[1]) & assigned \
            or not _fresh_vector(fn, array) \
            or not dead_after(fn, outer, keep={counter} | (recorded & tape_counters)):
        return None
    return _Nest(outer, inner, target, term, counter, offset, records)


def _records(statements, tape_counters, unread):
    """The names and arrays the statements after the rows write, when each is a record on
    one of srcad's tapes (`tape[c] = v`, `c` reading a tape counter: the array is srcad's,
    which no other array shares memory with) or a step of a tape counter (`c += 1`), reading
    none of `unread` (the row, the counter, the work vector); else None."""
    written = set()
    for stmt in statements:
        if isinstance(stmt, gast.AugAssign) and isinstance(stmt.op, (gast.Add, gast.Sub)) \
                and isinstance(stmt.target, gast.Name) and stmt.target.id in tape_counters \
                and isinstance(stmt.value, gast.Constant) and type(stmt.value.value) is int:
            written.add(stmt.target.id)
        elif isinstance(stmt, gast.Assign) and len(stmt.targets) == 1 \
                and isinstance(stmt.targets[0], gast.Subscript) \
                and isinstance(stmt.targets[0].value, gast.Name) \
                and S.loaded_names(stmt.targets[0].slice) & tape_counters \
                and _pure(_signed(stmt.value)) and _pure(_signed(S.as_load(stmt.targets[0]))):
            tape = stmt.targets[0].value.id
            if tape in unread:
                return None
            written.add(tape)
        else:
            return None
        if S.loaded_names(stmt) & unread:
            return None
    return written


def _offset(start, i):
    """c when `start` is `i`, `i + c` or `c + i` (c an int literal >= 0), else None."""
    if isinstance(start, gast.Name) and start.id == i:
        return 0
    if isinstance(start, gast.BinOp) and isinstance(start.op, gast.Add):
        for a, b in ((start.left, start.right), (start.right, start.left)):
            if isinstance(a, gast.Name) and a.id == i and isinstance(b, gast.Constant) \
                    and type(b.value) is int and b.value >= 0:
                return b.value
    return None


def _is_step(stmt) -> bool:
    """Whether `stmt` is `k += 1`."""
    return (isinstance(stmt, gast.AugAssign) and isinstance(stmt.op, gast.Add)
            and isinstance(stmt.target, gast.Name) and isinstance(stmt.value, gast.Constant)
            and type(stmt.value.value) is int and stmt.value.value == 1)


def _element_of(node, j) -> bool:
    """Whether `node` is `w[j]` or `w[np.uint64(j)]` (w a name)."""
    if not (isinstance(node, gast.Subscript) and isinstance(node.value, gast.Name)):
        return False
    index = node.slice.args[0] if _unsigned(node.slice) else node.slice
    return isinstance(index, gast.Name) and index.id == j


def _update(stmt, j):
    """(the element `w[j]`, the term `t`) of `w[j] = w[j] + t` or `w[j] += t`, else None."""
    if isinstance(stmt, gast.AugAssign) and isinstance(stmt.op, gast.Add):
        target, term = stmt.target, stmt.value
    elif isinstance(stmt, gast.Assign) and len(stmt.targets) == 1 \
            and isinstance(stmt.value, gast.BinOp) and isinstance(stmt.value.op, gast.Add) \
            and S.unparse_expr(stmt.value.left) == S.unparse_expr(stmt.targets[0]):
        target, term = stmt.targets[0], stmt.value.right
    else:
        return None
    if not _element_of(target, j) or not _pure(_signed(term)):
        return None
    return target, term


def _unsigned(index) -> bool:
    return (isinstance(index, gast.Call) and isinstance(index.func, gast.Attribute)
            and isinstance(index.func.value, gast.Name) and index.func.value.id == "np"
            and index.func.attr == "uint64" and len(index.args) == 1 and not index.keywords)


def _signed(node):
    """A copy of `node` with each subscript `a[np.uint64(e)]` read `a[e]` (for `_pure`)."""
    node = S.clone(node)
    for n in S.walk(node):
        if isinstance(n, gast.Subscript) and _unsigned(n.slice):
            n.slice = n.slice.args[0]
    return node


def _fresh_vector(fn, array, like=False) -> bool:
    """Whether `array` is a one-dimensional array of `fn`'s own that no other name sees: every
    binding `np.zeros(n)` (`empty`, `ones`; `like`: `np.zeros_like(w)`, ...) with one argument
    that is not a tuple, every other
    use an element, its length, shape or size, an array like it, a slice assigned to, or the
    value returned."""
    if array in {a.id for a in fn.args.args}:
        return False
    allowed = set()  # the Name nodes of `array` in allowed uses
    bound = False
    for node in S.walk(fn):
        if isinstance(node, gast.Assign) and any(
                isinstance(t, gast.Name) and t.id == array for t in node.targets):
            value = node.value
            if len(node.targets) != 1 or not _fresh_call(value, _FRESH_ARRAYS + _LIKE * like):
                return False
            allowed.add(id(node.targets[0]))
            bound = True
        elif isinstance(node, gast.Subscript) and isinstance(node.value, gast.Name) \
                and node.value.id == array:
            sliced = any(isinstance(n, gast.Slice) for n in S.walk(node.slice)) \
                or isinstance(node.slice, gast.Tuple)
            if not sliced or isinstance(node.ctx, gast.Store):
                allowed.add(id(node.value))
        elif isinstance(node, gast.Call) and isinstance(node.func, gast.Name) \
                and node.func.id == "len" and len(node.args) == 1:
            allowed.add(id(node.args[0]))
        elif isinstance(node, gast.Attribute) and node.attr in ("shape", "size"):
            allowed.add(id(node.value))
        elif _fresh_call(node, _LIKE) and isinstance(node.args[0], gast.Name):
            allowed.add(id(node.args[0]))  # a new array of its shape
        elif isinstance(node, gast.Return) and node.value is not None:  # to the caller
            returned = node.value.elts if isinstance(node.value, gast.Tuple) else [node.value]
            allowed |= {id(r) for r in returned}
    uses = [n for n in S.walk(fn) if isinstance(n, gast.Name) and n.id == array]
    return bound and all(id(n) in allowed for n in uses)


def _fresh_call(value, functions) -> bool:
    """Whether `value` is `np.f(a)` for an `f` of `functions`, one argument, not a tuple."""
    return (isinstance(value, gast.Call) and isinstance(value.func, gast.Attribute)
            and isinstance(value.func.value, gast.Name) and value.func.value.id == "np"
            and value.func.attr in functions and len(value.args) == 1
            and not value.keywords and not isinstance(value.args[0], (gast.Tuple, gast.List)))


def _jammed(outer, nest, namer) -> list:
    """The statements replacing `outer`: whole groups of COLUMNS columns jammed, then the
    remaining columns as written."""
    i, j = nest.i, nest.j
    args = outer.iter.args
    first = S.clone(args[0]) if len(args) == 2 else S.const(0)
    stop = args[-1]
    groups, block = namer.fresh(f"{i}_groups"), namer.fresh(f"{i}_block")
    column = [S.substitute(f"{block} + {u}" if u else block, {}) for u in range(COLUMNS)]
    starts = [S.substitute(f"_c + {nest.offset}" if nest.offset else "_c", {"_c": c})
              for c in column]
    end = nest.inner.iter.args[1]
    counters = [nest.counter] + [namer.fresh(nest.counter) for _ in range(COLUMNS - 1)] \
        if nest.counter else [None] * COLUMNS

    def term(u):
        mapping = {i: column[u]}
        if nest.counter:
            mapping[nest.counter] = S.substitute("_k + (_j - _s)", {
                "_k": S.name(counters[u]), "_j": S.name(j), "_s": starts[u]})
        return S.substitute(nest.term, mapping)

    def update(value):
        target = S.clone(nest.target)
        S.set_store(target)
        return S.assign(target, value)

    group = [S.comment(f"{COLUMNS} columns of {i} at a time, jammed (srcad/transform/"
                       "numba_column_jam.py)")]
    for u in range(1, COLUMNS if nest.counter else 1):
        if nest.counter:
            group.append(S.assign(S.name(counters[u], store=True), S.substitute(
                "_k + len(range(_s, _e))", {"_k": S.name(counters[u - 1]), "_s": starts[u - 1],
                                            "_e": end})))
    last = starts[-1]
    # the group's last column starts at a row of the nest (the groups are counted so): the
    # elements the terms read that the rows do not change, read once (LLVM cannot tell them
    # from `w`'s); the rows the later columns do not reach, one statement each (a row's
    # columns in order); where the last column has rows, the rows all reach, one loop
    hoisted = [[] for _ in range(COLUMNS)]
    terms = [_Hoist(j, namer, f"{i}_read", hoisted[u]).visit(term(u)) for u in range(COLUMNS)]
    group += [s for u in range(COLUMNS - 1) for s in hoisted[u]]
    for m in range(COLUMNS - 1):
        row = {j: S.substitute(f"_s + {m}" if m else "_s", {"_s": starts[0]})}
        value = S.as_load(S.substitute(nest.target, row))
        for u in range(m + 1):
            value = gast.BinOp(left=value, op=gast.Add(), right=S.substitute(terms[u], row))
        target = S.substitute(nest.target, row)
        S.set_store(target)
        group.append(S.assign(target, value))
    value = S.as_load(S.clone(nest.target))
    for u in range(COLUMNS):
        value = gast.BinOp(left=value, op=gast.Add(), right=terms[u])
    rows = gast.For(target=S.name(j, store=True),
                    iter=S.substitute("range(_s, _e)", {"_s": last, "_e": end}),
                    body=[update(value)], orelse=[], type_comment=None)
    group.append(gast.If(test=S.substitute("_s < _e", {"_s": last, "_e": end}),
                         body=hoisted[-1] + [rows], orelse=[]))
    if nest.counter:
        group.append(S.assign(S.name(nest.counter, store=True), S.substitute(
            "_k + len(range(_s, _e))", {"_k": S.name(counters[-1]), "_s": last, "_e": end})))
    group += [S.substitute_stmt(s, {i: column[u]}) for u in range(COLUMNS)
              for s in nest.records]
    # whole groups whose last column starts at a row: first + 4 g + 3 + c <= e
    groups_of = S.substitute(f"min(len(_r) // {COLUMNS}, max(0, _e - _a + "
                             f"{1 - nest.offset}) // {COLUMNS})",
                             {"_r": outer.iter, "_e": end, "_a": first})
    blocks = gast.For(target=S.name(block, store=True), iter=S.substitute(
        f"range(_a, _a + {COLUMNS} * {groups}, {COLUMNS})", {"_a": first}), body=group,
        orelse=[], type_comment=None)
    rest = S.clone(outer)
    rest.iter = S.substitute(f"range(_a + {COLUMNS} * {groups}, _b)",
                             {"_a": first, "_b": stop})
    return [S.assign(S.name(groups, store=True), groups_of), blocks, rest]


class _Hoist(S.Transformer):
    """Replaces each element read that does not read `row` by a name assigned before the loop
    (the assignments appended to `hoisted`)."""

    def __init__(self, row, namer, base, hoisted):
        self.row, self.namer, self.base, self.hoisted = row, namer, base, hoisted

    def visit_Subscript(self, node):
        if self.row in S.loaded_names(node):
            return self.generic_visit(node)
        name = self.namer.fresh(self.base)
        self.hoisted.append(S.assign(S.name(name, store=True), node))
        return S.name(name)
