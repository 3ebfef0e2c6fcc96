"""Which names a function may read after a statement before setting them again.

A loop rewritten to run all its iterations at once (srcad/transform/parallel_loops.py) must
give every name it sets the value the loop leaves, but only for names read afterwards: a
temporary that the rest of the function always sets before reading (a loop variable reused
by the next loop, an accumulator reset to 0.0) needs nothing. The answer is conservative:
a name is live unless every path from the statement to a read of it sets it first.

Paths follow the structure: after the statement come the rest of its block, then what follows
the statement holding that block; a loop body continues into its next iteration (the whole
body, the statement itself read as setting nothing and reading nothing it did not set first:
its caller checks that) and after the loop. `break`, `continue` and `raise` make the name
live; `try`, `with` and `while` count every read inside them and no assignment.

>>> import gast
>>> fn = gast.parse('''
... def f(x):
...     for i in range(3):
...         s = x[i]
...     s = 0.0
...     for i in range(2):
...         t = x[i]
...     return s + t
... ''').body[0]
>>> sorted(live_after(fn, fn.body[0], {"s", "i"}))
[]
>>> sorted(live_after(fn, fn.body[2], {"t", "i"}))
['t']
"""

from __future__ import annotations

import gast


def live_after(fn: gast.FunctionDef, statement, names, memo=None) -> set:
    """The names of `names` that some path from the end of `statement` (a statement of
    `fn`, at any depth) reads before setting. `memo` (a dict kept by `LiveAfter`): what is
    known of the statements after it, asked again for a later statement."""
    path = _path(fn.body, statement)
    if path is None:
        return set(names)
    return {name for name in names if _from(path, len(path) - 1, statement, name, memo)}


class LiveAfter:
    """`live_after` asked for many statements of one function in order, as a pass that
    rewrites statements front to back asks: each block's rest is read once per name and
    outcome, not once per statement (a walk of the rest per loop made long unrolled code
    quadratic). The answers for a statement depend only on the statements after it, which
    such a pass has not changed yet."""

    def __init__(self, fn):
        self.fn, self._memo = fn, _Memo()

    def __call__(self, statement, names) -> set:
        return live_after(self.fn, statement, names, self._memo)


def _suffix(block, start, name, live_out, memo) -> bool:
    """`_live_in(block[start:], name, live_out)`, from `memo` where it was found before: one
    backward pass over `block` gives the answer for every start."""
    if memo is None:
        return _live_in(block[start:], name, live_out, None, memo)
    if start >= len(block):
        return live_out
    key = (id(block[start]), name, live_out)
    if key not in memo:
        live = live_out
        for statement in reversed(block[start:]):
            live = _transfer(statement, name, live, None, memo)
            memo[(id(statement), name, live_out)] = (statement, live)  # kept: ids stay unique
    return memo[key][1]


def _path(block, statement):
    """[(block, index)] from `fn.body` down to `statement`: each block sits inside the
    statement the previous pair names."""
    for index, s in enumerate(block):
        if s is statement:
            return [(block, index)]
        for child in _blocks(s):
            inner = _path(child, statement)
            if inner is not None:
                return [(block, index), *inner]
    return None


def _blocks(statement):
    return [getattr(statement, field) for field in ("body", "orelse", "finalbody")
            if isinstance(getattr(statement, field, None), list)] + \
        [h.body for h in getattr(statement, "handlers", [])]


def _from(path, depth, statement, name, memo=None) -> bool:
    """Whether `name` is live after path[depth]'s statement."""
    block, index = path[depth]
    if depth == 0:
        after = False
    else:
        outer = path[depth - 1][0][path[depth - 1][1]]
        after = _from(path, depth - 1, statement, name, memo)
        if isinstance(outer, (gast.For, gast.While)) and block is outer.body:
            # the next iteration runs the body again (this statement sets nothing)
            if _target_sets(outer, name):
                again = False
            else:
                again = _live_in(outer.body, name, after, statement, memo)
            if isinstance(outer, gast.While):
                again = again or _reads(outer.test, name, memo)
            after = after or again
        elif not isinstance(outer, (gast.If, gast.For)):
            return True  # try, with, while's else: not followed
    return _suffix(block, index + 1, name, after, memo)  # `statement` is not in the rest


def _target_sets(loop, name) -> bool:
    return isinstance(loop, gast.For) and isinstance(loop.target, gast.Name) \
        and loop.target.id == name


def _live_in(block, name, live_out, skipped=None, memo=None) -> bool:
    """Whether running `block` (then something where `name` is live iff `live_out`) may read
    `name` before setting it. `skipped`: a statement read as doing nothing."""
    live = live_out
    for statement in reversed(block):
        if statement is skipped:
            continue
        live = _transfer(statement, name, live, skipped, memo)
    return live


def _transfer(statement, name, live, skipped, memo=None) -> bool:
    if isinstance(statement, gast.Assign):
        sets = any(isinstance(t, gast.Name) and t.id == name for t in statement.targets)
        return _reads(statement, name, memo) or (live and not sets)
    if isinstance(statement, (gast.Expr, gast.AugAssign, gast.AnnAssign, gast.Pass,
                              gast.Assert, gast.Delete)):
        return _reads(statement, name, memo) or live
    if isinstance(statement, gast.Return):
        return _reads(statement, name, memo)
    if isinstance(statement, gast.If):
        return _reads(statement.test, name, memo) \
            or _live_in(statement.body, name, live, skipped, memo) \
            or _live_in(statement.orelse, name, live, skipped, memo)
    if isinstance(statement, gast.For) and not _has_jumps(statement, memo):
        if _reads(statement.iter, name, memo):
            return True
        after = _live_in(statement.orelse, name, live, skipped, memo)
        if _target_sets(statement, name):
            return after
        return after or _live_in(statement.body, name, after, skipped, memo)
    if isinstance(statement, (gast.Break, gast.Continue, gast.Raise)) \
            or _has_jumps(statement, memo):
        return True
    return live or _reads(statement, name, memo)


class _Memo(dict):
    """`LiveAfter`'s memo: the transfers found before (keyed by statement, name and outcome)
    and, per node, the names it reads and whether it jumps, each found by one walk of the
    node instead of one walk per name asked. A compound statement's reads are not kept: a
    pass may still rewrite its body (a loop lifted inside a `while`); nothing it rewrites
    gains or loses a `break`, `continue` or `raise`."""

    def __init__(self):
        super().__init__()
        self.reads: dict = {}
        self.jumps: dict = {}

    def read_names(self, node) -> frozenset:
        found = self.reads.get(id(node))
        if found is None:
            found = self.reads[id(node)] = (node, _read_names(node))  # kept: ids stay unique
        return found[1]

    def has_jumps(self, node) -> bool:
        found = self.jumps.get(id(node))
        if found is None:
            found = self.jumps[id(node)] = (node, _walk_jumps(node))
        return found[1]


def _has_jumps(statement, memo=None) -> bool:
    return _walk_jumps(statement) if memo is None else memo.has_jumps(statement)


def _walk_jumps(statement) -> bool:
    return any(isinstance(n, (gast.Break, gast.Continue, gast.Raise))
               for n in gast.walk(statement))


def _reads(node, name, memo=None) -> bool:
    if memo is None or isinstance(getattr(node, "body", None), list):
        return name in _read_names(node)
    return name in memo.read_names(node)


def _read_names(node) -> frozenset:
    return frozenset(n.id for n in gast.walk(node)
                     if isinstance(n, gast.Name) and not isinstance(n.ctx, gast.Store))
