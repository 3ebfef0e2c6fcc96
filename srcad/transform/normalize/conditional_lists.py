"""Lists of floats grown by appends anywhere in a loop nest become buffers and a counter.

`ys = []` in the function's body, or in the body of a loop or an `if`, followed (before any
other use of `ys`) by a statement that appends to it: appends under `if`s, in nested `for`
loops (over a `range` or an array, or `zip`, `enumerate`, `reversed` of those), in `while`
loops, `break` and `continue` allowed:

    ys = []
    for i in range(n):
        for j in range(i, n):
            if x[i] > x[j]:
                ys.append(x[i] * x[j])

becomes a buffer with room for every append the statement can make (srcad/transform/normalize/
list_room.py; when no bound is known before the loops, a buffer that grows as it fills:
unbounded_lists.py), written through a counter, and `ys` the copy of its filled part:

    ys_buffer = np.zeros(sum(len(range(i, n)) for i in range(n)))
    ys_length = 0
    for i in range(n):
        for j in range(i, n):
            if x[i] > x[j]:
                ys_buffer[ys_length] = x[i] * x[j]
                ys_length += 1
    ys = ys_buffer[0:ys_length].copy()

so `ys` is an array of exactly `len(ys)` floats, read as lists.py's grown lists are. While it
fills, the loop may read it as a list is read (`len(ys)`, `ys[-1]`, `ys[k]`, `sum(ys)`,
`for v in ys` without appending to it, a truth test `if ys:`, list_truth.py), also in the
appended value (`ys.append(ys[-1] * x[i])`): through its filled part `ys_buffer[0:ys_length]`,
whose indexing raises what the list's does. A list created in a loop body is read that way
until the end of that body too (no copy per iteration), and used nowhere else. Each element is
written once per filling, so reverse mode needs no tape of the buffer beyond what it keeps for
any array write; the counter's values are those of any int of the loop. A filtered list
comprehension kept in a variable (`ys = [e for i in range(n) if c]`) arrives here as such a
loop (srcad/transform/normalize/lower.py). The same buffer takes element writes (`ys[k] = v`,
`ys[k] += v`, through the filled part like reads), `ys.pop()` (the counter one less), `[e] *
n`, and a literal never appended to that lists.py cannot split (indexed by a variable):
srcad/transform/normalize/list_writes.py. Any other list stays as written, and the fence
refuses it with its line. Needs `np` to be NumPy in the function's module.
"""

from __future__ import annotations

import gast

from srcad.frontend import syntax as S
from srcad.frontend.parse import ParsedFunction
from srcad.transform.names import Namer
from srcad.transform.normalize.grown_lists import (
    is_append,
    lists_grown,
    names_of,
    read_uses,
    reduced_as_loop,
    reduction,
)
from srcad.transform.normalize.list_reductions import building_call
from srcad.transform.normalize.list_room import added, room
from srcad.transform.normalize.list_writes import (
    int_list,
    item_writes,
    needs_buffer,
    pop_uses,
    popped,
    repeated,
)
from srcad.transform.normalize.unbounded_lists import bind_growth, growing


def grow_conditional_lists(parsed: ParsedFunction, body: list, namer: Namer) -> list:
    """`body` with the lists appended to in loops (above) made arrays."""
    bind_growth(parsed)
    def accepts(candidate) -> bool:
        region, name_ = candidate.region, candidate.name
        if not any(is_append(n, name_) for s in region for n in S.nodes(s)) \
                and not needs_buffer(candidate.made, region + candidate.rest, name_):
            return False  # lists.py makes its elements variables
        used = region + candidate.rest
        if parsed.generated and pop_uses(region, name_) \
                and not (read_uses(used, name_, parsed) | item_writes(used, name_)):
            return False  # a stack (append and pop only) of srcad's: generated code's tapes
        return _only_read_and_appended(parsed, region, candidate.name) \
            and candidate.name not in names_of(candidate.made.value) \
            and not names_of(candidate.made.value) & _stored(candidate.between)

    def grow(candidate):
        name_, region = candidate.name, candidate.region
        buffer = namer.fresh(f"{name_}_buffer")
        count = namer.fresh(f"{name_}_length")
        namer.list_buffers[buffer] = name_
        space = room(region, name_, _stored(region))
        zeros = "np.zeros(n, dtype=np.int64)" if int_list(candidate.made, region
                                                          + candidate.rest, name_) \
            else "np.zeros(n)"  # a list of ints holds ints
        reads = _BufferReads(parsed, namer, name_, buffer, count)
        region = [s for stmt in region for s in _as_list(reads.visit(stmt))]
        if space is None:  # no bound before the loops: the buffer grows as it fills
            space, region = growing(region, buffer, count)
        made = _made(candidate.made.value, buffer, count, space, namer, zeros)
        # made where the filler starts, when the room's names have their values there
        new = S.located(made, candidate.made) + region
        if not candidate.in_loop:
            filled = S.substitute("buffer[0:count].copy()", {"buffer": S.name(buffer),
                                                              "count": S.name(count)})
            new.append(S.located([S.assign(S.name(name_), filled)], candidate.filler)[0])
        return [], new, candidate.rest

    return lists_grown(parsed, body, accepts, grow, nested=True)


def _made(value, buffer, count, space, namer, zeros) -> list:
    """The buffer (`zeros`: its constructor of n elements) with room for `space` appends
    after the elements of the list `value` (`[a, b]`: two appends before the filler; `[e] *
    n`: n copies of e), and its counter."""
    if repeated(value) is None:
        made = [S.assign(S.name(buffer), S.substitute(zeros, {"n": added(space, S.const(len(
            value.elts)))}))]
        made += [S.assign(gast.Subscript(value=S.name(buffer), slice=S.const(k),
                                         ctx=gast.Store()), e) for k, e in enumerate(value.elts)]
        return made + [S.assign(S.name(count), S.const(len(value.elts)))]
    element, times = repeated(value)
    if not (isinstance(times, gast.Constant) and type(times.value) is int and times.value >= 0):
        times = S.call("max", S.const(0), times)  # `[e] * -1` is empty
    made = [S.assign(S.name(count), times),
            S.assign(S.name(buffer), S.substitute(zeros, {"n": added(space, S.name(count))}))]
    if not (isinstance(element, gast.Constant) and element.value == 0):
        k = namer.fresh("k")
        write = S.assign(gast.Subscript(value=S.name(buffer), slice=S.name(k),
                                        ctx=gast.Store()), element)
        made.append(gast.For(target=S.name(k, store=True), iter=S.call("range", S.name(count)),
                             body=[write], orelse=[], type_comment=None))
    return made


def _stored(stmts) -> set:
    return set().union(*(S.stored_names(s) for s in stmts))


def _as_list(new) -> list:
    return new if isinstance(new, list) else [new]


def _only_read_and_appended(parsed, region, name_) -> bool:
    """Does `region` use `name_` only in `name_.append(e)` statements and as a list is read
    (read_uses), written by element (`ys[k] = v`) or popped (`ys.pop()`), never iterating
    over it in a loop that appends to it?"""
    appends = [n for s in region for n in S.nodes(s) if is_append(n, name_)]
    allowed = read_uses(region, name_, parsed) | {id(a.value.func.value) for a in appends} \
        | item_writes(region, name_) | pop_uses(region, name_)
    if any(isinstance(n, gast.Name) and n.id == name_ and id(n) not in allowed
                          for s in region for n in S.nodes(s)):
        return False
    return not any(isinstance(n, gast.For) and isinstance(n.iter, gast.Name)
                   and n.iter.id == name_ and any(is_append(a, name_) for a in S.nodes(n))
                   for s in region for n in S.nodes(s))


class _BufferReads(gast.NodeTransformer):
    """Appends to `name_` as writes of `buffer` through `count`, reads of `name_` as reads of
    its filled part `buffer[0:count]`: `len` is `count`, sum/max/min loops over the part."""

    def __init__(self, parsed, namer, name_, buffer, count):
        self.parsed = parsed
        self.namer = namer
        self.name_ = name_
        self.buffer = buffer
        self.count = count

    def filled(self):
        return S.substitute("buffer[0:count]", {"buffer": S.name(self.buffer),
                                                 "count": S.name(self.count)})

    def visit_Expr(self, node):
        if popped(node, self.name_) is not None:
            return self._pop(node, None)
        if not is_append(node, self.name_):
            return self.generic_visit(node)
        value = self.visit(node.value.args[0])  # read before the append, as Python does
        target = gast.Subscript(value=S.name(self.buffer), slice=S.name(self.count),
                                ctx=gast.Store())
        return [gast.copy_location(S.assign(target, value), node),
                gast.copy_location(S.aug_assign(S.name(self.count), gast.Add(), S.const(1)),
                                   node)]

    def visit_Assign(self, node):
        if popped(node, self.name_) is None:
            return self.generic_visit(node)
        return self._pop(node, node.targets[0])

    def _pop(self, stmt, target):
        """`v = ys.pop()`: the last element of the filled part (IndexError when it is empty,
        as for the list), then the counter one less."""
        if target is None:
            target = S.name(self.namer.fresh(f"{self.name_}_popped"), store=True)
        last = gast.Subscript(value=self.filled(), slice=S.const(-1), ctx=gast.Load())
        return [gast.copy_location(S.assign(target, last), stmt),
                gast.copy_location(S.aug_assign(S.name(self.count), gast.Sub(), S.const(1)),
                                   stmt)]

    def visit_Call(self, node):
        self.generic_visit(node)
        if building_call(self.parsed, node) and node.args[0].id == self.name_:
            node.args[0] = gast.copy_location(self.filled(), node.args[0])  # of its rows
            return node
        kind = reduction(self.parsed, node)
        if kind is None or node.args[0].id != self.name_:
            return node
        if kind == "len":
            return gast.copy_location(S.name(self.count), node)
        if kind == "array":
            return gast.copy_location(S.substitute("part.copy()", {"part": self.filled()}),
                                      node)
        looped = reduced_as_loop(self.parsed, node, S.name(self.buffer), S.name(self.count))
        return node if looped is None else looped

    def visit_Subscript(self, node):
        self.generic_visit(node)
        if isinstance(node.value, gast.Name) and node.value.id == self.name_:
            node.value = gast.copy_location(self.filled(), node.value)
        return node

    def visit_For(self, node):
        self.generic_visit(node)
        if isinstance(node.iter, gast.Name) and node.iter.id == self.name_:
            # over the indices of the filled part (srcad loops over ranges and arrays)
            index = self.namer.fresh("k")
            node.body.insert(0, gast.copy_location(S.assign(node.target, gast.Subscript(
                value=S.name(self.buffer), slice=S.name(index), ctx=gast.Load())), node))
            node.target = S.name(index, store=True)
            node.iter = gast.copy_location(S.call("range", S.name(self.count)), node.iter)
        return node
