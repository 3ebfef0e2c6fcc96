"""Lists of known length become one variable per element (before the fence).

A local bound only to list literals of one length (`xs = [a, x * x, 2.0]`) and used only as

* `xs[k]` with a constant `k` (read or written, `xs[k] += ...` too),
* `len(xs)`, `sum(xs)`, `max(xs)`, `min(xs)`, `np.concatenate(xs, axis=1)` and the other
  building calls (list_reductions.building_call: of the list literal of the parts),
* `for v in xs` whose body does not `break` or `continue` (the loop is unrolled),

is split into `xs_0, xs_1, ...`: the analyses see plain scalars (or arrays), and reverse mode
needs no list on its tape. `for v in (a, b, c)` over a tuple literal is unrolled the same way.
A list indexed by a variable, appended to, popped or `[e] * n` is made a buffer before
(conditional_lists.py, list_writes.py); one used any other way (passed to a call) stays a
list, and the fence refuses it with its line.
"""

from __future__ import annotations

import gast

from srcad.frontend import syntax as S
from srcad.frontend.parse import ParsedFunction
from srcad.frontend.transformer import Transformer
from srcad.transform.names import Namer
from srcad.transform.normalize.grown_lists import (
    bindings_of,
    is_append,
    lists_grown,
    names_of,
    reduction,
)
from srcad.transform.normalize.list_reductions import building_call, builtin_name


def split_fixed_lists(parsed: ParsedFunction, body: list, namer: Namer, params) -> list:
    finder = _Finder(parsed, set(params))
    lists = {s.targets[0].id for s in body if isinstance(s, gast.Assign)
             and len(s.targets) == 1 and isinstance(s.targets[0], gast.Name)
             and isinstance(s.value, gast.List)}
    body = version_rebinds(body, lists - set(params), namer, parsed.spellings)
    lengths = finder.splittable(body)
    parts = {n: [namer.fresh(f"{n}_{k}") for k in range(size)] for n, size in lengths.items()}
    entries = {part: f"{parsed.spellings.get(n, n)}[{k}]"  # messages say `xs[0]`, not `xs_0`
               for n, names in parts.items() for k, part in enumerate(names)}
    parsed.spellings.update(entries)
    namer.list_parts.update(entries)
    return _Split(finder, parts, namer).block(body)


def _exits_loop(body, exits=(gast.Break, gast.Continue)) -> bool:
    """Does `body` break or continue (one of `exits`) the loop it belongs to (not a nested
    loop)?"""
    for stmt in body:
        if isinstance(stmt, exits):
            return True
        if isinstance(stmt, gast.If) and (_exits_loop(stmt.body, exits)
                                          or _exits_loop(stmt.orelse, exits)):
            return True
    return False


class _Finder:
    def __init__(self, parsed, params):
        self.parsed = parsed
        self.params = params

    def reduction(self, node):
        return reduction(self.parsed, node)

    def splittable(self, body) -> dict:
        lengths: dict = {}
        for stmt in body:
            for node in S.nodes(stmt):
                if isinstance(node, gast.Assign) and len(node.targets) == 1 \
                        and isinstance(node.targets[0], gast.Name) \
                        and isinstance(node.value, gast.List) \
                        and not any(isinstance(e, gast.Starred) for e in node.value.elts):
                    lengths.setdefault(node.targets[0].id, set()).add(len(node.value.elts))
        candidates = {n: s.pop() for n, s in lengths.items()
                      if len(s) == 1 and n not in self.params}
        if not candidates:
            return {}
        allowed = set()
        for stmt in body:
            for node in S.nodes(stmt):
                if isinstance(node, gast.Assign) and len(node.targets) == 1 \
                        and isinstance(node.targets[0], gast.Name) \
                        and node.targets[0].id in candidates \
                        and isinstance(node.value, gast.List):
                    allowed.add(id(node.targets[0]))
                elif isinstance(node, gast.Subscript) and isinstance(node.value, gast.Name) \
                        and node.value.id in candidates and S.constant_index(
                            node.slice, candidates[node.value.id]) is not None:
                    allowed.add(id(node.value))
                elif (self.reduction(node) or building_call(self.parsed, node)) \
                        and node.args[0].id in candidates:
                    allowed.add(id(node.args[0]))
                elif isinstance(node, gast.For) and isinstance(node.iter, gast.Name) \
                        and node.iter.id in candidates and not _exits_loop(node.body) \
                        and not node.orelse:
                    allowed.add(id(node.iter))
        for stmt in body:
            for node in S.nodes(stmt):
                if isinstance(node, gast.Name) and node.id in candidates \
                        and id(node) not in allowed:
                    del candidates[node.id]
        return candidates


class PartsSplitter(Transformer):
    """Rewrites a container `v` of known length into its parts `parts[v]` (one variable per
    element): `v[k]` with a constant k becomes the k-th part. Lists and tuples add how their
    assignments and loops split."""

    def __init__(self, parts):
        self.parts = parts

    def block(self, stmts):
        out = []
        for stmt in stmts:
            new = self.visit(stmt)
            out.extend(new if isinstance(new, list) else [new])
        return out

    def visit_Subscript(self, node):
        self.generic_visit(node)
        if isinstance(node.value, gast.Name) and node.value.id in self.parts:
            part = self.parts[node.value.id][S.constant_index(node.slice,
                                                            len(self.parts[node.value.id]))]
            return gast.copy_location(S.name(part, store=isinstance(node.ctx, gast.Store)),
                                      node)
        return node


class _Split(PartsSplitter):
    def __init__(self, finder, parts, namer):
        super().__init__(parts)
        self.finder = finder
        self.namer = namer

    def visit_Call(self, node):
        self.generic_visit(node)
        if building_call(self.finder.parsed, node) and node.args[0].id in self.parts:
            # np.concatenate(parts, axis=1): of the list literal (the fence accepts it)
            node.args = [gast.List(elts=[S.name(p) for p in self.parts[node.args[0].id]],
                                   ctx=gast.Load())]
            return node
        kind = self.finder.reduction(node)
        if kind is None or node.args[0].id not in self.parts:
            return node
        parts = [S.name(p) for p in self.parts[node.args[0].id]]
        if kind == "len":
            return gast.copy_location(S.const(len(parts)), node)
        if kind == "array":  # np.array(xs): of the list literal (the fence accepts it)
            node.args = [gast.List(elts=parts, ctx=gast.Load())]
            return node
        if kind == "sum":  # as Python adds: 0 + xs[0] + xs[1] + ...
            total = S.const(0)
            for part in parts:
                total = gast.BinOp(left=total, op=gast.Add(), right=part)
            return gast.copy_location(total, node)
        builtin = builtin_name(self.finder.parsed, kind)
        if not parts or builtin is None:
            return node  # max([]) raises in Python: leave it to the fence
        out = parts[0]
        for part in parts[1:]:
            out = gast.Call(func=S.clone(builtin), args=[out, part], keywords=[])
        return gast.copy_location(out, node)

    def visit_Assign(self, node):
        target = node.targets[0]
        if not (len(node.targets) == 1 and isinstance(target, gast.Name)
                and target.id in self.parts and isinstance(node.value, gast.List)):
            return self.generic_visit(node)
        values = [self.visit(e) for e in node.value.elts]
        names = self.parts[target.id]
        written = set(names)
        read = set().union(set(), *(S.loaded_names(v) for v in values))
        if not written & read:
            return [gast.copy_location(S.assign(S.name(n), v), node)
                    for n, v in zip(names, values)]
        temps = [self.namer.fresh(f"{n}_new") for n in names]  # all first, as Python does
        return ([gast.copy_location(S.assign(S.name(t), v), node) for t, v in zip(temps, values)]
                + [gast.copy_location(S.assign(S.name(n), S.name(t)), node)
                   for n, t in zip(names, temps)])

    def visit_For(self, node):
        it = node.iter
        elements, out = None, []
        if isinstance(it, gast.Name) and it.id in self.parts:
            elements = [S.name(p) for p in self.parts[it.id]]  # read live, as Python does
        elif isinstance(it, (gast.Tuple, gast.List)) and not _exits_loop(node.body) \
                and not node.orelse and not any(isinstance(e, gast.Starred) for e in it.elts):
            elements = []  # a tuple literal is built once, before the loop
            for e in it.elts:
                if isinstance(e, gast.Constant):
                    elements.append(e)
                    continue
                tmp = self.namer.fresh("element")
                out.append(gast.copy_location(S.assign(S.name(tmp), self.visit(e)), node))
                elements.append(S.name(tmp))
        if elements is None:
            node.iter = self.visit(node.iter)
            node.body = self.block(node.body)
            node.orelse = self.block(node.orelse)
            return node
        for element in elements:
            out.append(gast.copy_location(S.assign(node.target, element), node))
            out.extend(self.block(S.clone(node.body)))
        return out

    def _nested(self, node):
        if hasattr(node, "test"):
            node.test = self.visit(node.test)
        node.body = self.block(node.body)
        node.orelse = self.block(node.orelse)
        return node

    visit_While = visit_If = _nested


def grow_lists_into_arrays(parsed: ParsedFunction, body: list, namer: Namer) -> list:
    """A list of floats built by one `append` per iteration of a `for` loop becomes an array.

    `xs = []` at the top level of the function, followed (before any other use of `xs`) by a
    `for` loop over a range whose body appends to it exactly once, at the body's top level,
    and never breaks or continues: `xs` becomes `np.zeros(len(range(...)))` written through a
    counter, so the analyses see a local array (reverse mode keeps what it needs like for any
    array). Afterwards `xs` may only be indexed, iterated, and given to len/sum/max/min (the
    latter three become loops). Its elements are floats. Needs `np` to be NumPy in the
    function's module; any other list stays as written, for the fence to refuse.
    """
    def grow(candidate):
        loop, name_ = candidate.filler, candidate.name
        count = namer.fresh(f"{name_}_length")
        namer.list_buffers[name_] = name_
        made = gast.copy_location(S.assign(S.name(name_), S.substitute(
            "np.zeros(len(span))", {"span": S.as_load(loop.iter)})), candidate.made)
        loop.body = [s for a in loop.body for s in _append_as_write(a, name_, count)]
        return [made], [gast.copy_location(S.assign(S.name(count), S.const(0)), loop),
                        loop], candidate.rest
    return lists_grown(parsed, body, _appending_loop, grow)


def _appending_loop(candidate) -> bool:
    loop, name_ = candidate.filler, candidate.name
    between = set().union(set(), *(S.stored_names(s) for s in candidate.between))
    if candidate.in_loop or not isinstance(candidate.made.value, gast.List) \
            or candidate.made.value.elts or len(candidate.region) > 1 or not (
            isinstance(loop, gast.For) and not loop.orelse and isinstance(loop.iter, gast.Call)
            and isinstance(loop.iter.func, gast.Name) and loop.iter.func.id == "range"
            and not _exits_loop(loop.body)):
        return False
    if names_of(loop.iter) & between:
        return False  # the array is made at `ys = []`, before the range's names are bound
    appends = [s for s in loop.body if is_append(s, name_)]
    uses = sum(1 for s in loop.body for n in S.nodes(s)
               if isinstance(n, gast.Name) and n.id == name_)
    return len(appends) == 1 and uses == 1 and name_ not in S.loaded_names(appends[0].value.args[0])


def _append_as_write(stmt, name_, count):
    if not is_append(stmt, name_):
        return [stmt]
    target = gast.Subscript(value=S.name(name_), slice=S.name(count), ctx=gast.Store())
    return [gast.copy_location(S.assign(target, stmt.value.args[0]), stmt),
            gast.copy_location(S.aug_assign(S.name(count), gast.Add(), S.const(1)), stmt)]


def version_rebinds(body: list, names: set, namer: Namer, spellings: dict | None = None
                    ) -> list:
    """Each of `names` that is bound only by assignments at the top level of `body` (several
    times) gets a fresh name per binding, read until the next one: `zs = [a, b, c]; ...;
    zs = [d, e]` holds two lists of known lengths, each split on its own. `spellings` learns
    each fresh name's spelling (`zs_v1` is `zs`): refusals name it as the user wrote it."""
    bound_at: dict = {}
    for k, stmt in enumerate(body):
        if isinstance(stmt, gast.Assign) and len(stmt.targets) == 1 \
                and isinstance(stmt.targets[0], gast.Name) and stmt.targets[0].id in names:
            bound_at.setdefault(stmt.targets[0].id, []).append(k)
    for name_, positions in bound_at.items():
        if len(positions) < 2 or bindings_of(body, name_) != len(positions):
            continue
        current = name_
        for k, stmt in enumerate(body):
            if k in positions:
                stmt.value = S.rename(stmt.value, name_, current)
                version = positions.index(k)
                current = name_ if version == 0 else namer.fresh(f"{name_}_v{version}")
                if spellings is not None:
                    spellings.setdefault(current, spellings.get(name_, name_))
                stmt.targets[0].id = current
            else:
                body[k] = S.rename(stmt, name_, current)
    return body


