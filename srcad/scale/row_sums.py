"""Proof from the source that f(..., data, ...) is a sum over the rows of `data`.

`row_sum(f)` accepts a function of the shape

    <prelude: never reads `data`, except data.shape[c] for c >= 1>
    total = 0.0
    for n in range(len(data)):        # or range(data.shape[0]), or `for row in data:`
        <body: reads data only as data[n] / data[n, ...]; n nowhere else;
               updates total only by `total += e` / `total -= e`, e free of total>
    return total

and refuses anything else with a `RowSumError` naming the line. For such a function the
iterations are independent: every name the body assigns is assigned before it is read, in a
block enclosing every later use (so no value flows from one iteration into the next), the body
writes elements of arrays it creates itself only, and it never sees the row count or the row
index except to read row n. Hence f(data) = sum of f(data[a:b]) over any split of the rows
into consecutive chunks, up to the order of the float additions. `srcad.scale.parallel` runs the
chunks on threads, `srcad.dask` on the workers of a Dask cluster.
"""

from __future__ import annotations

import functools
import types
from dataclasses import dataclass

import gast

from srcad.errors import SrcadError, surfaced
from srcad.frontend.parse import parse_function
from srcad.transform.normalize.user_functions import is_library_function


class RowSumError(SrcadError):
    """f is not (provably) a sum over the rows of one argument."""


@dataclass(frozen=True)
class RowSum:
    data_position: int  # the argument whose rows are summed over
    data_name: str
    loop_line: int


_SHAPE_HINT = ("write f as `total = 0.0; for n in range(len(data)): ... total += ...; "
               "return total`, with data read only as data[n]")


@functools.lru_cache(maxsize=256)
def _cached(f, code):
    return _RowSumCheck(parse_function(f)).run()


def row_sum(f) -> RowSum:
    """The RowSum of f (see the module docstring), or a RowSumError saying why not."""
    f = getattr(f, "__srcad_wrapped__", f)
    return _cached(f, f.__code__)


def required_row_sum(f, needs: str) -> RowSum:
    """`row_sum(f)` for an option that needs it; a refusal is raised at the user's call, its
    message led by `needs` ("parallel=True needs f to be a sum over the rows of an
    argument")."""
    try:
        return row_sum(f)
    except RowSumError as err:
        raise surfaced(RowSumError(f"{needs}: {err.message}", filename=err.filename,
                                   line=err.line, construct=err.construct, hint=err.hint,
                                   column=err.column)) from None


class _RowSumCheck:
    def __init__(self, parsed):
        self.parsed = parsed
        self.params = [a.id for a in parsed.tree.args.args]

    def refuse(self, node, message, hint=_SHAPE_HINT):
        raise self.parsed.error(node, "row sum", message, hint=hint, kind=RowSumError)

    def run(self) -> RowSum:
        tree = self.parsed.tree
        body = list(tree.body)
        if body and isinstance(body[0], gast.Expr) and isinstance(body[0].value, gast.Constant):
            body = body[1:]  # the docstring
        loops = [i for i, s in enumerate(body) if isinstance(s, gast.For) and self._rows_of(s)]
        if not loops:
            self.refuse(tree, f"{tree.name} has no top-level loop over the rows of an argument "
                        "(`for n in range(len(data))` or `for row in data`)")
        if len(loops) > 1:
            self.refuse(body[loops[1]], "a second loop over the rows of an argument; one loop "
                        "must hold the whole sum")
        index = loops[0]
        loop = body[index]
        data, row_index, row_name = self._rows_of(loop)
        rest = body[index + 1:]
        if len(rest) != 1 or not isinstance(rest[0], gast.Return) \
                or not isinstance(rest[0].value, gast.Name):
            self.refuse(rest[0] if rest else loop, "the loop over the rows must be followed by "
                        "`return total` alone (the sum is the result)")
        total = rest[0].value.id
        prelude = body[:index]
        self._check_argument_writes(tree, self.parsed, set(self.params))
        self._check_prelude(prelude, data, total, loop)
        self._check_body(loop, data, row_index, row_name, total)
        return RowSum(self.params.index(data), data, self.parsed.line_of(loop))

    def _check_argument_writes(self, tree, parsed, arrays, seen=()):
        """f (and, through the arrays they are given, its own helpers) writes no element of
        an argument: the threads of parallel=True share the arguments, and a write there
        would carry values from one row (or chunk) to the next."""
        for node in gast.walk(tree):
            if isinstance(node, (gast.Assign, gast.AugAssign)):
                targets = node.targets if isinstance(node, gast.Assign) else [node.target]
                for target in targets:
                    base = target
                    while isinstance(base, gast.Subscript):
                        base = base.value
                    if base is not target and isinstance(base, gast.Name) \
                            and base.id in arrays:
                        raise parsed.error(target, "row sum", f"writes an element of "
                                           f"`{base.id}`, an argument of "
                                           f"{parsed.name}: chunks of rows run at once would "
                                           "share it", hint="work in a local array",
                                           kind=RowSumError)
            if isinstance(node, gast.Call) and isinstance(node.func, gast.Name) \
                    and node.func.id not in seen:
                self._check_helper(parsed, node, seen)

    def _check_helper(self, parsed, call, seen):
        """A helper of the user's own that writes into the arrays it is given is refused (the
        array may outlive one row: a prelude array, or an argument)."""
        try:
            helper = parsed.resolve(call.func.id)
        except KeyError:
            return
        if not isinstance(helper, types.FunctionType) or is_library_function(helper):
            return
        inner = parse_function(helper)
        names = [a.id for a in inner.tree.args.args]
        self._check_argument_writes(inner.tree, inner, set(names),
                                    tuple(seen) + (call.func.id,))

    def _rows_of(self, loop):
        """(data, index name or None, row name or None) when `loop` runs over the rows of an
        argument, else None."""
        if not isinstance(loop.target, gast.Name):
            return None
        it = loop.iter
        if isinstance(it, gast.Name) and it.id in self.params:
            return it.id, None, loop.target.id
        if not (_is_call(it, "range") and len(it.args) == 1 and not it.keywords):
            return None
        bound = it.args[0]
        if _is_call(bound, "len") and len(bound.args) == 1 \
                and isinstance(bound.args[0], gast.Name) and bound.args[0].id in self.params:
            return bound.args[0].id, loop.target.id, None
        if _shape_axis(bound) == 0 and bound.value.value.id in self.params:
            return bound.value.value.id, loop.target.id, None
        return None

    def _check_prelude(self, prelude, data, total, loop):
        for statement in prelude:
            for node in gast.walk(statement):
                if _is_name(node, data) and not self._shape_read(statement, node):
                    self.refuse(node, f"reads `{data}` before the loop over its rows; the sum "
                                "over chunks of rows would see each chunk's rows there",
                                hint=f"use {data} only as {data}[n] inside the loop "
                                f"({data}.shape[1] and on are fine)")
        starts = [s for s in prelude if any(_stores(t, total) for t in _targets(s))]
        last = starts[-1] if starts else None
        if last is None or not (isinstance(last, gast.Assign) and _is_zero(last.value)):
            self.refuse(last or loop, f"`{total}` must start at 0 right before the loop "
                        "(each chunk of rows starts its own sum)")
        for statement in prelude[prelude.index(last) + 1:]:
            for node in gast.walk(statement):
                if _is_name(node, total):
                    self.refuse(node, f"uses `{total}` between its start at 0 and the loop")

    def _shape_read(self, statement, node) -> bool:
        """`node` (the data name) is read as data.shape[c], c >= 1 (the size of a row)."""
        for parent in gast.walk(statement):
            if isinstance(parent, gast.Subscript) and _shape_axis(parent) not in (None, 0) \
                    and parent.value.value is node:
                return True
        return False

    def _check_body(self, loop, data, row_index, row_name, total):
        if loop.orelse:
            self.refuse(loop.orelse[0], "an `else` block on the loop over the rows")
        body = gast.Module(body=loop.body, type_ignores=[])  # the loop without its header
        for node in gast.walk(body):
            if isinstance(node, gast.Return):
                self.refuse(node, "`return` inside the loop over the rows")
        self._check_breaks(loop.body, loop)
        _Iteration(self, {total, data, row_index} - {None}).check(loop, row_name)
        allowed = set()  # the Name nodes of data[n] reads
        for node in gast.walk(body):
            if isinstance(node, gast.Subscript) and _is_name(node.value, data):
                first = node.slice.elts[0] if isinstance(node.slice, gast.Tuple) \
                    else node.slice
                if row_index is not None and _is_name(first, row_index) \
                        and isinstance(node.ctx, gast.Load):
                    allowed.update((id(node.value), id(first)))
        for node in gast.walk(body):
            if _is_name(node, data) and id(node) not in allowed:
                if self._shape_read(body, node):
                    continue
                self.refuse(node, f"uses `{data}` other than reading row {data}[n] inside the "
                            "loop over its rows (a chunk of rows does not know the others)")
            if row_index is not None and _is_name(node, row_index) and id(node) not in allowed:
                self.refuse(node, f"uses the row index `{row_index}` other than in "
                            f"{data}[{row_index}] (a chunk of rows numbers its rows from 0)")
        for node in gast.walk(body):
            if isinstance(node, (gast.AugAssign)) and _is_name(node.target, total):
                if not isinstance(node.op, (gast.Add, gast.Sub)):
                    self.refuse(node, f"`{total}` is updated other than by += or -=")
                if any(_is_name(n, total) for n in gast.walk(node.value)):
                    self.refuse(node, f"the increment of `{total}` reads `{total}`")
                continue
        sums = {id(n.target) for n in gast.walk(body)
                if isinstance(n, gast.AugAssign) and _is_name(n.target, total)}
        for node in gast.walk(body):
            if _is_name(node, total) and id(node) not in sums:
                self.refuse(node, f"reads or sets `{total}` inside the loop other than by "
                            f"`{total} += ...`: a loop-carried dependence between iterations")

    def _check_breaks(self, statements, loop):
        for statement in statements:
            if isinstance(statement, gast.Break):
                self.refuse(statement, "`break` out of the loop over the rows (whether later "
                            "rows count depends on earlier ones)")
            if isinstance(statement, gast.If):
                self._check_breaks(statement.body, loop)
                self._check_breaks(statement.orelse, loop)
            # breaks inside inner loops leave those loops only


class _Iteration:
    """Every name the loop body assigns is assigned before any read, in a block enclosing all
    its later uses; every element the body writes belongs to an array the body created."""

    def __init__(self, check, skip):
        self.check_, self.skip = check, skip
        self.first = {}  # name -> (kind, block path, node)
        self.local_arrays = set()

    def check(self, loop, row_name):
        block = (id(loop.body),)
        if row_name is not None:
            self.first[row_name] = ("store", block, loop.target)
        self.block(loop.body, block)

    def block(self, statements, path):
        for statement in statements:
            self.statement(statement, path)

    def statement(self, s, path):
        if isinstance(s, gast.Assign):
            self.expression(s.value, path)
            for target in s.targets:
                self.target(target, path, s)
        elif isinstance(s, gast.AugAssign):
            if isinstance(s.target, gast.Name) and s.target.id in self.skip:
                self.expression(s.value, path)
                return
            self.expression(s.target, path, store_as_load=True)
            self.expression(s.value, path)
            self.target(s.target, path, s)
        elif isinstance(s, gast.For):
            self.expression(s.iter, path)
            inner = path + (id(s.body),)
            self.target(s.target, inner, s)
            self.block(s.body, inner)
            self.block(s.orelse, path + (id(s.orelse),))
        elif isinstance(s, (gast.If, gast.While)):
            self.expression(s.test, path)
            self.block(s.body, path + (id(s.body),))
            self.block(s.orelse, path + (id(s.orelse),))
        else:
            for child in gast.iter_child_nodes(s):
                if isinstance(child, gast.expr):
                    self.expression(child, path)

    def target(self, target, path, statement):
        if isinstance(target, gast.Name):
            self.occurrence(target.id, "store", path, target)
            # a new array (np.zeros(...), an expression), not a second name for an old one
            if isinstance(statement, gast.Assign) and not isinstance(
                    statement.value, (gast.Name, gast.Subscript, gast.Attribute)):
                self.local_arrays.add(target.id)
        elif isinstance(target, (gast.Tuple, gast.List)):
            for element in target.elts:
                self.target(element, path, statement)
        elif isinstance(target, gast.Subscript):
            base = target.value
            while isinstance(base, gast.Subscript):
                base = base.value
            if not isinstance(base, gast.Name) or base.id not in self.local_arrays:
                name = getattr(base, "id", "an array")
                self.check_.refuse(target, f"writes an element of `{name}`, an array that "
                                   "outlives one iteration of the loop over the rows (a "
                                   "dependence between iterations, or a result that a sum "
                                   "over chunks of rows would lose)",
                                   hint="create the array inside the loop, or sum into the "
                                   "returned total")
            self.expression(target, path, store_as_load=True)

    def expression(self, node, path, store_as_load=False):
        bound = {n.id for g in gast.walk(node) if isinstance(g, gast.comprehension)
                 for n in gast.walk(g.target) if isinstance(n, gast.Name)}
        for n in gast.walk(node):
            if isinstance(n, gast.Name) and n.id not in bound \
                    and (store_as_load or isinstance(n.ctx, gast.Load)):
                self.occurrence(n.id, "load", path, n)

    def occurrence(self, name, kind, path, node):
        if name in self.skip:
            return
        first = self.first.get(name)
        if first is None:
            self.first[name] = (kind, path, node)
            return
        first_kind, first_path, _ = first
        if first_kind == "store" and path[:len(first_path)] != first_path:
            self.check_.refuse(node, f"uses `{name}` outside the block that assigns it first "
                               "in the loop over the rows: on some path it holds the value of "
                               "an earlier iteration", hint=f"assign `{name}` at the top of "
                               "the loop body")
        if first_kind == "load" and kind == "store":
            self.check_.refuse(node, f"assigns `{name}` in the loop over the rows after reading "
                               "it: each iteration reads the value the previous one left (a "
                               "loop-carried dependence)", hint=f"assign `{name}` before "
                               "reading it in each iteration, or sum into the returned total")


def _is_name(node, name) -> bool:
    return isinstance(node, gast.Name) and node.id == name


def _is_call(node, name) -> bool:
    return isinstance(node, gast.Call) and _is_name(node.func, name)


def _shape_axis(node):
    """c for `name.shape[c]` with a constant c, else None."""
    if isinstance(node, gast.Subscript) and isinstance(node.value, gast.Attribute) \
            and node.value.attr == "shape" and isinstance(node.value.value, gast.Name) \
            and isinstance(node.slice, gast.Constant) and isinstance(node.slice.value, int):
        return node.slice.value
    return None


def _is_zero(node) -> bool:
    return isinstance(node, gast.Constant) and type(node.value) in (int, float) \
        and node.value == 0


def _targets(statement):
    if isinstance(statement, gast.Assign):
        return statement.targets
    if isinstance(statement, (gast.AugAssign, gast.AnnAssign)):
        return [statement.target]
    if isinstance(statement, (gast.For, gast.If, gast.While, gast.With)):
        return [n for n in gast.walk(statement) if isinstance(n, gast.Name)
                and isinstance(n.ctx, gast.Store)]
    return []


def _stores(target, name) -> bool:
    return any(_is_name(n, name) and isinstance(n.ctx, gast.Store) for n in gast.walk(target))
