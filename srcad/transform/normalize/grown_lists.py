"""The driver of the lowerings that make a list grown by appends an array.

A list `ys = []` (or a literal `ys = [a, b]`, for lowerings that take one) is made an array
where a lowering accepts the statement that next uses it (lists.py: one append per iteration
of a range loop; conditional_lists.py: appends anywhere in a loop nest). The driver finds the
candidates, in the function's body and in the blocks nested in it (the body of a loop or of
an `if`), checks what only it can check (the list is bound once in the whole function and
used nowhere outside the block that creates it) and hands the lowering the statements to
rewrite. After the filling statement a list of a block outside any loop is the copy of the
filled part, and may only be read (`_only_read_after`); a list created in a loop body is
read through its buffer by the lowering itself (a copy per iteration would be an array of
another length each time).
"""

from __future__ import annotations

from dataclasses import dataclass

import gast
import numpy as np

from srcad.frontend import syntax as S
from srcad.frontend.parse import ParsedFunction
from srcad.transform.normalize.list_reductions import (
    building_call,
    builtin_name,
    numpy_reduction,
    reduction_kind,
)
from srcad.transform.normalize.list_truth import truth_as_length
from srcad.transform.normalize.list_writes import is_pop, item_writes, repeated


@dataclass
class Candidate:
    """A list `name = []` (the statement `made`), the statements `between` it and the first
    statement that uses it, the statements that fill it (`region`: from that first one to the
    last one that appends to it; in a loop body, to the end of the body), the statements
    after them (`rest`), and whether the block is in a loop."""
    name: str
    made: gast.stmt
    between: list
    region: list
    rest: list
    in_loop: bool

    @property
    def filler(self):
        return self.region[0]


def lists_grown(parsed: ParsedFunction, body: list, accepts, grow, nested=False) -> list:
    """`body` with each list `name = []` whose candidate (above) `accepts(candidate)` made an
    array by `grow(candidate)`: (the statements replacing `name = []`, those replacing the
    region, those replacing the rest; the statements between stay). Without `nested`, only
    the lists of the top level of `body`. A list outside loops must be only read after the
    filler (as `_only_read_after` allows); len/sum/max/min of it become loops, a truth test of
    it its length. Needs `np` to be NumPy in the function's module."""
    try:
        if parsed.resolve("np") is not np:
            return body
    except KeyError:
        return body
    grown: set = set()
    body = _grow_block(parsed, body, body, accepts, grow, nested, False, grown)
    return [_ReductionsAsLoops(parsed, grown).visit(s) for s in body] if grown else body


def _grow_block(parsed, block, body, accepts, grow, nested, in_loop, grown) -> list:
    j = 0
    while j < len(block):
        name_ = _new_list(block[j])
        later = [k for k in range(j + 1, len(block)) if name_ in names_of(block[k])] \
            if name_ is not None else []
        if not later or bindings_of(body, name_) != 1 \
                or _uses(body, name_) != sum(_uses([s], name_) for s in block[j:]):
            j += 1
            continue
        k = later[0]
        # to the last statement that appends, pops or assigns an element (the copy after
        # it is an expression: its elements are not written)
        end = len(block) if in_loop else 1 + max(m for m in later if any(
            is_append(n, name_) or is_pop(n, name_) for n in S.nodes(block[m]))
            or _assigns_element(block[m], name_) or m == k)
        truth_as_length(block[k:], name_)  # `if ys:` is `len(ys) > 0`, list or array
        candidate = Candidate(name_, block[j], block[j + 1:k], block[k:end], block[end:],
                              in_loop)
        if not accepts(candidate) or not (in_loop or _only_read_after(candidate.rest, name_,
                                                                      parsed)):
            j += 1
            continue
        if not in_loop:
            grown.add(name_)
        made, filled, rest = grow(candidate)
        block[j:] = made + candidate.between + filled + rest
        j += len(made)
    if nested:
        for stmt in block:
            loop = in_loop or isinstance(stmt, (gast.For, gast.While))
            for field in ("body", "orelse"):
                if isinstance(stmt, (gast.For, gast.While, gast.If)):
                    setattr(stmt, field, _grow_block(parsed, getattr(stmt, field), body,
                                                     accepts, grow, nested, loop, grown))
    return block


def _assigns_element(stmt, name_) -> bool:
    """Does `stmt` (or a statement in it) assign an element of `name_` (`ys[k] = v`)?"""
    return any(isinstance(n, gast.Assign) and id(n.targets[0].value) in item_writes([n], name_)
               for n in S.nodes(stmt) if isinstance(n, gast.Assign)
               and isinstance(n.targets[0], gast.Subscript))


def bindings_of(body, name_) -> int:
    """How many statements bind `name_` (assignments, augmented ones, loop variables)."""
    count = 0
    for stmt in body:
        for node in S.nodes(stmt):
            targets = node.targets if isinstance(node, gast.Assign) else \
                [node.target] if isinstance(node, (gast.AugAssign, gast.For)) else []
            count += sum(1 for t in targets for n in S.nodes(t) if isinstance(n, gast.Name)
                         and n.id == name_ and isinstance(n.ctx, gast.Store))
    return count


def _uses(stmts, name_) -> int:
    return sum(1 for s in stmts for n in S.nodes(s) if isinstance(n, gast.Name) and n.id == name_)


def names_of(tree) -> set:
    """Every name `tree` reads or binds."""
    return {n.id for n in S.nodes(tree) if isinstance(n, gast.Name)}


def _new_list(stmt):
    """The name `ys` of `ys = []`, `ys = [a, b]` (no starred element) or `ys = [e] * n`,
    else None."""
    if isinstance(stmt, gast.Assign) and len(stmt.targets) == 1 \
            and isinstance(stmt.targets[0], gast.Name) and (repeated(stmt.value) or (
                isinstance(stmt.value, gast.List)
                and not any(isinstance(e, gast.Starred) for e in stmt.value.elts))):
        return stmt.targets[0].id
    return None


def is_append(stmt, name_) -> bool:
    """Is `stmt` the statement `name_.append(e)` (one argument, no keywords)?"""
    return (isinstance(stmt, gast.Expr) and isinstance(stmt.value, gast.Call)
            and isinstance(stmt.value.func, gast.Attribute) and stmt.value.func.attr == "append"
            and isinstance(stmt.value.func.value, gast.Name)
            and stmt.value.func.value.id == name_ and len(stmt.value.args) == 1
            and not stmt.value.keywords)


def reduction(parsed, node):
    """'len'/'sum'/'max'/'min' when `node` is such a call of one name (also np.sum,
    np.max, np.min), 'array' for np.array/np.asarray of it, else None."""
    if not (isinstance(node, gast.Call) and len(node.args) == 1 and not node.keywords
            and isinstance(node.args[0], gast.Name)):
        return None
    return reduction_kind(parsed, node.func)


def read_uses(stmts, name_, parsed) -> set:
    """The ids of the uses of `name_` in `stmts` that read the list as a list is read:
    `xs[...]`, `for v in xs`, len/sum/max/min/np.array of `xs`, and np.concatenate/stack/
    hstack/vstack/column_stack of it (list_building.py)."""
    allowed = set()
    for stmt in stmts:
        for node in S.nodes(stmt):
            if isinstance(node, gast.Subscript) and isinstance(node.ctx, gast.Load):
                read = node.value
            elif isinstance(node, gast.For):
                read = node.iter
            elif reduction(parsed, node) or building_call(parsed, node):
                read = node.args[0]
            else:
                continue
            if isinstance(read, gast.Name) and read.id == name_:
                allowed.add(id(read))
    return allowed


def _only_read_after(stmts, name_, parsed) -> bool:
    """After the loop: only `xs[...]` reads and writes of one element, `for v in xs` (also
    in a comprehension, which srcad/transform/normalize/lower.py makes a loop),
    len/sum/max/min of `xs`, and `np.sum`/`np.mean` of it with `axis=` (of the array it is
    then)."""
    allowed = read_uses(stmts, name_, parsed) | item_writes(stmts, name_) | {
        id(n.iter) for s in stmts for n in S.nodes(s)
        if isinstance(n, gast.comprehension) and isinstance(n.iter, gast.Name)} | {
        id(n.args[0]) for s in stmts for n in S.nodes(s)  # np.mean(xs, axis=0): the array
        if isinstance(n, gast.Call) and n.args and numpy_reduction(parsed, n.func)}
    return all(id(n) in allowed for s in stmts for n in S.nodes(s)
               if isinstance(n, gast.Name) and n.id == name_)


def reduced_as_loop(parsed, node, elements, length):
    """`sum(xs)`, `max(xs)`, `min(xs)` (the call `node`) as the same builtin over a generator
    expression of `elements[k] for k in range(length)`, which srcad/transform/normalize/lower.py
    turns into a loop (`np.sum(xs)`, `np.max(xs)`, `np.min(xs)`: the same NumPy call of
    `elements[0:length]`, so that of a list of arrays reduces every element of every row);
    None when `node` is no such call or the module rebinds the builtin."""
    kind = reduction(parsed, node)
    if kind not in ("sum", "max", "min"):
        return None
    if not isinstance(node.func, gast.Name):  # np.sum(xs): of every element of every row
        part = S.substitute("xs[0:n]", {"xs": elements, "n": length})
        return gast.copy_location(gast.Call(func=node.func, args=[part], keywords=[]), node)
    if builtin_name(parsed, kind) is None:
        return None
    loop = S.substitute("(xs[k] for k in range(n))", {"xs": elements, "n": length})
    return gast.copy_location(gast.Call(func=builtin_name(parsed, kind), args=[loop],
                                        keywords=[]), node)


class _ReductionsAsLoops(gast.NodeTransformer):
    """`sum(xs)`, `max(xs)`, `min(xs)` of a grown list: the same over a generator expression,
    which srcad/transform/normalize/lower.py turns into a loop."""

    def __init__(self, parsed, grown):
        self.parsed = parsed
        self.grown = grown

    def visit_Call(self, node):
        self.generic_visit(node)
        kind = reduction(self.parsed, node)
        if kind is None or node.args[0].id not in self.grown:
            return node
        if kind == "array":  # already an array: a copy
            return gast.copy_location(S.substitute("xs.copy()", {"xs": node.args[0]}), node)
        name_ = node.args[0].id
        looped = reduced_as_loop(self.parsed, node, S.name(name_), S.call("len", S.name(name_)))
        return node if looped is None else looped
