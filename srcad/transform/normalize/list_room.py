"""Room for a list's appends: an int expression, evaluated before the statements that append,
at least the number of appends they can make.

An append counts 1, an `if` the larger of its arms' counts, a `for` over a range or an array
(or zip/enumerate/reversed of those) its trip count times its body's (or, when the body's room
depends on the loop variable, their sum over the iterations: `sum(len(range(i, n)) for i in
range(n))`, a generator that srcad/transform/normalize/lower.py makes a loop). A `while` loop
counts when its trip count is provable: `while i < n` (or `<=`), the first of the statements
or right after `i = e`, whose body increments `i` by 1 once, at its top level, binds `i`
nowhere else and never continues (the body's room may depend on `i` when the increment is
its last statement). `break` only makes fewer appends. Every name the room reads must keep
its value through the statements (`region_stored`), so that the room computed before them
holds. None when no such
bound is known (a `while` of another form, an append in another statement): the buffer then
grows as it fills (srcad/transform/normalize/unbounded_lists.py).

>>> import gast
>>> stmts = gast.parse("for i in range(n):\\n  for j in range(m):\\n    ys.append(x)").body
>>> print(S.unparse_expr(room(stmts, "ys", S.bound_names(stmts[0]))).strip())
len(range(n)) * len(range(m))
"""

from __future__ import annotations

import gast

from srcad.frontend import syntax as S
from srcad.transform.normalize.grown_lists import is_append, names_of
from srcad.transform.normalize.lists import _exits_loop


def room(stmts: list, name_: str, region_stored: set):
    """The room (above) for the appends to `name_` in `stmts`, or None."""
    return _Room(name_, region_stored).block(stmts, set(), first=True)


def trips(sequence):
    """An expression at least the number of iterations of `for ... in sequence`: `len` of a
    range or an array variable, of the first sequence of a `zip` (it stops at the shortest),
    of the sequence `enumerate` or `reversed` is given; None for other sequences."""
    if isinstance(sequence, gast.Name):
        return S.call("len", S.as_load(sequence))
    if not (isinstance(sequence, gast.Call) and isinstance(sequence.func, gast.Name)
            and sequence.args and not sequence.keywords):
        return None
    if sequence.func.id == "range":
        return S.call("len", S.as_load(sequence))
    if sequence.func.id in ("zip", "enumerate", "reversed"):
        return trips(sequence.args[0])
    return None


class _Room:
    def __init__(self, name_, region_stored):
        self.name_ = name_
        self.stored = region_stored

    def invariant(self, expr, bound) -> bool:
        """Does `expr` read only names that keep their value (or loop variables in `bound`)?"""
        return not (names_of(expr) - bound) & self.stored

    def block(self, stmts, bound, first=False):
        total = S.const(0)
        for k, stmt in enumerate(stmts):
            start = None  # a while's counter at entry: its value where the room is computed
            if isinstance(stmt, gast.While) and first and k == 0:
                start = _counter(stmt)
            elif isinstance(stmt, gast.While) and k:  # or set just before the loop (`j = 0`)
                start = _counter_start(stmts[k - 1], stmt)
                start = start if start is not None and self.invariant(start, bound) else None
            part = self.statement(stmt, bound, start)
            if part is None:
                return None
            total = added(total, part)
        return total

    def statement(self, stmt, bound, start):
        if not any(is_append(n, self.name_) for n in S.nodes(stmt)):
            return S.const(0)  # whatever its loops (those that move elements, say)
        if is_append(stmt, self.name_):
            return S.const(1)
        if isinstance(stmt, gast.If):
            body, orelse = self.block(stmt.body, bound), self.block(stmt.orelse, bound)
            return None if body is None or orelse is None else _larger(body, orelse)
        if isinstance(stmt, gast.For) and not stmt.orelse:
            return self.for_loop(stmt, bound)
        if isinstance(stmt, gast.While) and not stmt.orelse:
            return None if start is None else self.while_loop(stmt, bound, start)
        return None  # an append in a statement of another kind (a loop with `else`)

    def for_loop(self, loop, bound):
        count = trips(loop.iter)
        if count is None or not self.invariant(loop.iter, bound):
            return None
        targets = names_of(loop.target)
        if not all(isinstance(n, (gast.Name, gast.Tuple, gast.List, gast.Store))
                   for n in S.nodes(loop.target)) \
                or any(targets & S.bound_names(s) for s in loop.body):
            return None  # the body rebinds the loop variable
        body = self.block(loop.body, bound | targets)
        if body is None:
            return None
        if not names_of(body) & targets:
            return _times(count, body)
        looped = gast.GeneratorExp(elt=body, generators=[gast.comprehension(
            target=S.clone(loop.target), iter=S.as_load(loop.iter), ifs=[], is_async=0)])
        return S.call("sum", looped)

    def while_loop(self, loop, bound, start):
        counter, stop = loop.test.left.id, loop.test.comparators[0]
        steps = [s for s in loop.body if isinstance(s, gast.AugAssign)
                 and isinstance(s.target, gast.Name) and s.target.id == counter
                 and isinstance(s.op, gast.Add) and isinstance(s.value, gast.Constant)
                 and s.value.value == 1 and type(s.value.value) is int]
        rebinds = sum(1 for s in loop.body if counter in S.bound_names(s))
        if len(steps) != 1 or rebinds != 1 or _exits_loop(loop.body, gast.Continue) \
                or not self.invariant(stop, bound):
            return None
        # the body sees the counter's values from its value at entry up, when it steps last
        inner = bound | {counter} if loop.body[-1] is steps[0] else bound
        body = self.block(loop.body, inner)
        if body is None or not self.invariant(body, inner):
            return None
        if isinstance(loop.test.ops[0], gast.LtE):
            stop = gast.BinOp(left=S.as_load(stop), op=gast.Add(), right=S.const(1))
        span = S.call("range", S.clone(start), S.as_load(stop))
        if counter not in names_of(body):  # `i` or `n` may be floats: no len(range(i, n))
            return _times(S.substitute("max(0, int(np.ceil(n - i)))", {
                "n": S.as_load(stop), "i": S.clone(start)}), body)
        return S.call("sum", gast.GeneratorExp(elt=body, generators=[gast.comprehension(
            target=S.name(counter, store=True), iter=span, ifs=[], is_async=0)]))



def added(a, b):
    """`a + b`, folded when either is a constant."""
    if isinstance(a, gast.Constant) and isinstance(b, gast.Constant):
        return S.const(a.value + b.value)
    if isinstance(a, gast.Constant) and a.value == 0:
        return b
    if isinstance(b, gast.Constant) and b.value == 0:
        return a
    return gast.BinOp(left=a, op=gast.Add(), right=b)


def _counter(loop):
    """`i` of `while i < n` (or `<=`), else None."""
    test = loop.test
    if isinstance(test, gast.Compare) and len(test.ops) == 1 \
            and isinstance(test.ops[0], (gast.Lt, gast.LtE)) and isinstance(test.left, gast.Name):
        return S.name(test.left.id)
    return None


def _counter_start(before, loop):
    """`e` when the statement `before` the while loop `loop` is `i = e` for its counter `i`."""
    counter = _counter(loop)
    if counter is not None and isinstance(before, gast.Assign) and len(before.targets) == 1 \
            and isinstance(before.targets[0], gast.Name) and before.targets[0].id == counter.id \
            and counter.id not in names_of(before.value):
        return before.value
    return None


def _larger(a, b):
    """The room of one arm or the other: the larger."""
    if isinstance(a, gast.Constant) and isinstance(b, gast.Constant):
        return S.const(max(a.value, b.value))
    return S.call("max", a, b)


def _times(a, b):
    if isinstance(b, gast.Constant) and b.value == 1:
        return a
    if isinstance(b, gast.Constant) and b.value == 0:
        return b
    return gast.BinOp(left=a, op=gast.Mult(), right=b)
