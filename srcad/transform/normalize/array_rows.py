"""Lists grown by append whose elements are arrays: the array the list became gets rows.

The lowerings of lists grown by append (lists.py, conditional_lists.py) make the list an
array of floats, `hs_buffer = np.zeros(room)`, written through a counter, before any type is
known. Once types are known, a list whose appends are 1-D arrays gets a row per append:

    hs = []                            h = h0.copy()
    h = h0.copy()                      hs_width = h.shape[0]
    for t in range(T):                 hs = np.zeros((len(range(T)), hs_width))
        h = np.tanh(W @ h + xs[t])     for t in range(T):
        hs.append(h)                       h = np.tanh(W @ h + xs[t])
                                           if len(h) != hs_width:
                                               raise ValueError("srcad: ...")
                                           hs[hs_length] = h

The rows' length must be computable where the array is made, before the loop that appends:
the shape of an array the appended value is (`h` bound before the loop), or is computed from
by elementwise arithmetic and functions, `@`, a row `x[i]` of a 2-D array or a slice
`x[i:i + c]` (`np.broadcast_shapes` of the operands' shapes). Each append checks its
length, so an array of another length raises ValueError instead of being broadcast into the
row (srcad/build/running.py passes the error on as it is). A list of arrays read while it fills
(`h = f(hs[-1])`) does not type with a 1-D buffer: it is typed again with a 2-D one. `sum(hs)`
(a loop from `0`) starts from a row of zeros. Reverse mode keeps what it keeps for any row
write. Refused (at the append): arrays of rank 2 or more, numbers and arrays appended to one
list, and a length not known before the loop.
"""

from __future__ import annotations

import gast

from srcad.analysis.types import Types
from srcad.analysis.value_types import Array
from srcad.frontend import syntax as S
from srcad.frontend.refused_code import set_aside_node
from srcad.transform.normalize.list_reductions import joins_as_arrays
from srcad.transform.normalize.row_shapes import RowShape, entry

_RUN_TIME_REFUSAL = "srcad: "  # srcad/build/running.py raises such an error as it is


def shape_list_rows(norm, arg_types: dict) -> None:
    """Give the arrays of `norm.namer.list_buffers` whose writes are 1-D arrays rows of
    their shape (above), in `norm.body`; refuse what cannot be done, setting it aside."""
    if not norm.namer.list_buffers:
        return
    with joins_as_arrays(norm):  # typed past `np.vstack(hs)`: a reshape later
        _shape_rows(norm, arg_types)


def _shape_rows(norm, arg_types) -> None:
    """One list at a time, the types inferred again after each: a list of arrays given rows
    changes what is appended to the lists filled from it (`zs = [np.dot(y, w) for y in ys]`
    appends numbers once `ys` has rows); a list refused while another could still be given
    rows is tried again after it."""
    shaped: set = set()
    while True:
        types, errors = Types(norm, arg_types, check=False), []
        for buffer, list_name in norm.namer.list_buffers.items():
            if buffer in shaped:
                continue
            writes = [n for stmt in norm.body for n in gast.walk(stmt)
                      if writes_element(n, buffer)]
            kinds = [types.of(w.value) for w in writes]
            if not any(isinstance(k, Array) for k in kinds) and (types.refusal is not None
                                                                  or types.mixed):
                types, kinds = _typed_as_rows(norm, arg_types, types, buffer, writes)
            if not any(isinstance(k, Array) for k in kinds):
                continue
            error = _refusal(norm, types, buffer, list_name, writes, kinds)
            if error is None:
                shaped.add(buffer)
                break
            errors.append(error)
        else:
            for error in errors:
                norm.body = set_aside_node(norm.body, error.node, error, norm.refusals)
            return


def _typed_as_rows(norm, arg_types, types, buffer, writes) -> tuple:
    """(types, the writes' types) with `buffer` made 2-D, when the inference stops with it
    1-D and every write is then a 1-D array: a list of arrays read while it fills
    (`h = np.tanh(W @ hs[-1])`) reads numbers from a 1-D buffer, and `for h in hs` binds
    the appended `h` to numbers. Else `types` as they were.
    A list of numbers types without a refusal: never tried as rows; a list of matrices is
    tried as an array of rank 3 after rows."""
    path = _path(norm.body, buffer)
    if path is None:
        return types, [types.of(w.value) for w in writes]
    block, at = path[-1]
    made = block[at].value
    for rank in (1, 2):  # rows, then matrices
        block[at].value = S.substitute(f"np.zeros((room{', 1' * rank}))",
                                       {"room": made.args[0]})
        trial = Types(norm, arg_types, check=False)
        kinds = [trial.of(w.value) for w in writes]
        block[at].value = made
        stopped = trial.refusal is not None and str(trial.refusal) == str(types.refusal)
        if not stopped and all(isinstance(k, Array) and k.ndim == rank for k in kinds):
            return trial, kinds  # (the inference stopped there, or its rows were the cause)
    return types, [types.of(w.value) for w in writes]


def _refusal(norm, types, buffer, list_name, writes, kinds):
    """The error refusing the rows of `buffer`, or None once they are made."""
    mixed = next((w for w, k in zip(writes, kinds) if not isinstance(k, Array)), None)
    if mixed is not None:
        return norm.parsed.error(mixed, "append", f"`{list_name}` is appended arrays and "
                                 "numbers", hint="append arrays of one shape, or numbers")
    rank = kinds[0].ndim
    other = next((w for w, k in zip(writes, kinds) if k.ndim != rank), None)
    if other is not None:
        return norm.parsed.error(other, "append", f"arrays of ranks {rank} and "
                                 f"{types.of(other.value).ndim} are appended to `{list_name}`",
                                 hint="append arrays of one shape")
    path = _path(norm.body, buffer)
    if path is None:
        return norm.parsed.error(writes[0], "append", f"srcad does not see where `{list_name}`"
                                 " is made")
    block, at = path[-1]
    _made_before_filling(block, at, writes[0])
    path[-1] = (block, at := next(k for k, s in enumerate(block) if _binds(s, buffer)))
    shape = RowShape(norm, types, _available(norm, path)).of(writes[0].value)
    if shape is None:
        return norm.parsed.error(writes[0], "append", "the shape of the arrays appended to "
                                 f"`{list_name}` is not known before the loop that appends "
                                 "them", hint="append a variable holding an array of that "
                                 "shape before the loop (`h = np.zeros(m)`, then `h = ...; "
                                 f"{list_name}.append(h)` in the loop), or make a 2-D array "
                                 "with np.zeros((n, m)) and write its rows")
    sizes = [norm.namer.fresh(f"{list_name}_width" if rank == 1 else f"{list_name}_size{k}")
             for k in range(rank)]
    made = block[at]
    made.value = S.call("np.zeros", gast.Tuple(elts=[made.value.args[0]] + [
        S.name(s) for s in sizes], ctx=gast.Load()))
    for k, size in enumerate(sizes):
        block.insert(at + k, gast.copy_location(S.assign(S.name(size), entry(shape, k, rank)),
                                                made))
    checked = _CheckedRows(norm.namer, list_name, sizes, {id(w) for w in writes})
    norm.body = checked.block(norm.body)
    _rows_summed_from_zeros(norm.body, {buffer, list_name}, sizes)
    return None


def _rows_summed_from_zeros(body, names, sizes) -> None:
    """`s = 0` and `s = s + xs[k]` (the loop `sum(xs)` becomes) with `xs` the array of rows:
    `s` starts as a row of zeros (0 plus a row is that row), so it holds a row throughout."""
    bindings: dict = {}
    for node in (n for stmt in body for n in gast.walk(stmt)):
        if isinstance(node, gast.Assign) and len(node.targets) == 1 \
                and isinstance(node.targets[0], gast.Name):
            bindings.setdefault(node.targets[0].id, []).append(node)
    for acc, assigns in bindings.items():
        if len(assigns) != 2:
            continue
        start, step = assigns
        if isinstance(start.value, gast.Constant) and start.value.value == 0 \
                and type(start.value.value) is int and _adds_row(step.value, acc, names):
            row = S.name(sizes[0]) if len(sizes) == 1 else \
                gast.Tuple(elts=[S.name(s) for s in sizes], ctx=gast.Load())
            start.value = gast.copy_location(S.call("np.zeros", row), start.value)


def _adds_row(value, acc, names) -> bool:
    """Is `value` `acc + xs[k]` (or `xs[0:n][k]`), a row of a name `xs` of `names`?"""
    if not (isinstance(value, gast.BinOp) and isinstance(value.op, gast.Add)
            and isinstance(value.left, gast.Name) and value.left.id == acc
            and isinstance(value.right, gast.Subscript)):
        return False
    row = value.right
    if isinstance(row.slice, (gast.Tuple, gast.Slice)):
        return False  # an element or a slice, no row
    base = row.value
    while isinstance(base, gast.Subscript) and isinstance(base.slice, gast.Slice):
        base = base.value  # the filled part `xs_buffer[0:n]`
    return isinstance(base, gast.Name) and base.id in names


def _made_before_filling(block, at, write) -> None:
    """Move the statement `block[at]` making the array to just before the statement of
    `block` that first writes it, when the statements between bind no name it reads: the
    values the appended arrays are computed from are bound there."""
    filling = next((k for k, s in enumerate(block) if k > at
                    and any(n is write for n in gast.walk(s))), None)
    if filling is None:
        return
    reads = S.loaded_names(block[at].value)
    if any(reads & S.bound_names(s) for s in block[at + 1:filling]):
        return
    block.insert(filling - 1, block.pop(at))


def _binds(stmt, name_) -> bool:
    return isinstance(stmt, gast.Assign) and len(stmt.targets) == 1 \
        and isinstance(stmt.targets[0], gast.Name) and stmt.targets[0].id == name_


class _CheckedRows:
    """Each write `xs_buffer[n] = v` of a row after a check of `len(v)` (of `v.shape[k]` for
    each axis of a matrix: `v` bound to a name of its own first, unless it is one): an array
    of another shape raises, where NumPy would broadcast one of length 1 into the row."""

    def __init__(self, namer, list_name, sizes, writes):
        self.namer = namer
        self.list_name = list_name
        self.sizes = sizes
        self.writes = writes

    def block(self, stmts) -> list:
        return each_statement(stmts, lambda stmt: self.checked(stmt)
                              if id(stmt) in self.writes else [stmt])

    def checked(self, write) -> list:
        out = []
        if not isinstance(write.value, gast.Name):
            row = self.namer.fresh(f"{self.list_name}_row")
            out.append(gast.copy_location(S.assign(S.name(row), write.value), write))
            write.value = S.name(row)
        row = write.value.id
        message = (f"{_RUN_TIME_REFUSAL}the arrays appended to `{self.list_name}` have "
                   "different " + ("lengths (srcad makes a list of arrays an array of rows)"
                                   if len(self.sizes) == 1 else "shapes (srcad makes a list"
                                   " of arrays one array with an axis more)"))
        test = f"len({row}) != {self.sizes[0]}" if len(self.sizes) == 1 else " or ".join(
            f"{row}.shape[{k}] != {size}" for k, size in enumerate(self.sizes))
        out += S.parse_stmts(f"if {test}:\n    raise ValueError({message!r})\n")
        return [*(gast.copy_location(s, write) for s in out[:-1]), S.relocated(out[-1], write),
                write]


def each_statement(stmts, rewrite) -> list:
    """`stmts` with each statement (in the blocks of loops and `if`s too, inner ones first)
    replaced by the statements `rewrite(stmt)` returns."""
    out = []
    for stmt in stmts:
        if isinstance(stmt, (gast.For, gast.While, gast.If)):
            stmt.body = each_statement(stmt.body, rewrite)
            stmt.orelse = each_statement(stmt.orelse, rewrite)
        out.extend(rewrite(stmt))
    return out



def writes_element(node, buffer) -> bool:
    """Is `node` a write `buffer[...] = v`?"""
    return isinstance(node, gast.Assign) and len(node.targets) == 1 \
        and isinstance(node.targets[0], gast.Subscript) \
        and isinstance(node.targets[0].value, gast.Name) and node.targets[0].value.id == buffer


def _path(block, buffer, outer=()):
    """[(block, position)] from the body down to the statement `buffer = np.zeros(room)`."""
    for k, stmt in enumerate(block):
        if _binds(stmt, buffer):
            ok = isinstance(stmt.value, gast.Call) and len(stmt.value.args) == 1 \
                and not stmt.value.keywords
            return [*outer, (block, k)] if ok else None
        for field in ("body", "orelse"):
            inner = getattr(stmt, field, None)
            if isinstance(inner, list) and isinstance(stmt, (gast.For, gast.While, gast.If)):
                found = _path(inner, buffer, (*outer, (block, k)))
                if found is not None:
                    return found
    return None


def _available(norm, path) -> set:
    """The names bound where the array is made: the parameters, and the names assigned by the
    statements before it in its block and in the blocks around it."""
    names = set(norm.params)
    for block, at in path:
        for stmt in block[:at]:
            if isinstance(stmt, gast.Assign):
                names |= {n.id for t in stmt.targets for n in S.nodes(t)
                          if isinstance(n, gast.Name)}
    return names
