"""numba, reverse mode: what one step of a reverse loop changes, for the rewrites that skip
steps (srcad/transform/numba_zero_adjoints.py, numba_extremum_winners.py with
numba_winner_adjoints.py, numba_last_winner.py), and whether a loop's names are read after it.

`follow` runs a step's statements on what is known of the values at its start (names known
+0.0, tests the caller decides) and answers, for each name the step assigns, its value at the
step's end: the value it started with, +0.0 (`ZERO`), a zero of either sign or a NaN
(`VANISHES`: `0.0 * v`, which is NaN for an infinite `v`), or `UNKNOWN`; and the names it
reads before assigning them. An addition into an adjoint (`a_bar += e`, `a_bar[i] += e`, one
of `adjoints`) is allowed when what it adds vanishes, and then keeps its value (srcad's zeroed
adjoints hold no -0.0, so adding a zero keeps their bits; a NaN from `0.0 * inf` is the one
difference, which the rewrites using it document);
any other statement (a loop, a call with an effect, an element written otherwise, a branch
not decided) makes `follow` answer None: the step may change more. Each rewrite keeps its own
decision on that answer: the zero-adjoint guard asks that every addition vanish when one
adjoint is zero, the winner's step that every addition vanish when the comparison is false,
the last winner that each kept name end exactly as it started.

`dead_after` answers the question the rewrites share about the names a loop assigns: is any
of them read after the loop before being assigned again.

>>> from srcad.frontend import syntax as S
>>> step = follow(S.parse_stmts("t = a[i] * 2.0\\n"
...                             "b_bar[i] += -(g * t)\\n"
...                             "s = 0.0\\n"), zero={"g"}, adjoints={"b_bar"})
>>> step.values == {"t": UNKNOWN, "s": ZERO}, sorted(step.read_at_start)
(True, ['a', 'b_bar', 'g', 'i'])
>>> follow(S.parse_stmts("b_bar[i] += t\\n"), zero={"g"}, adjoints={"b_bar"}) is None
True
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import gast

from srcad.frontend import syntax as S
from srcad.transform.reverse.unused_value import harmless

ZERO, VANISHES, UNKNOWN = "zero", "vanishes", "unknown"
_ZEROS = (ZERO, VANISHES)


def start(name: str) -> tuple:
    """The value `name` held when the step began."""
    return ("start", name)


@dataclass
class StepEffects:
    """What a step does to names: `values` for each name it assigns (`start(name)`, `ZERO`,
    `VANISHES`, `UNKNOWN`), `read_at_start` the names it reads before assigning them."""

    values: dict
    read_at_start: set

    def unchanged(self, zero=frozenset()):
        """The names the step assigns and leaves as they were (those in `zero` starting at
        +0.0), or None when it reads at its start a name it changes."""
        same = {name for name, value in self.values.items()
                if value == start(name) or (value == ZERO and name in zero)}
        if (self.read_at_start & set(self.values)) - same:
            return None
        return same


def follow(statements, *, zero=frozenset(), decide=None, adjoints=frozenset(),
           allowed=harmless, relaxed=False):
    """The `StepEffects` of running `statements`, the names `zero` holding +0.0 at the start;
    `decide(test)` is True or False for a test the caller knows (None otherwise); an element
    of an array in `adjoints` may be added a value that vanishes; `allowed(expression)` says
    which expressions may run. None where a statement may do more (module docstring), unless
    `relaxed`: then what such a statement assigns is `UNKNOWN`."""
    values: dict = {}
    read_at_start: set = set()

    def known_zero() -> set:
        return {n for n, v in values.items() if v == ZERO} | (set(zero) - set(values))

    def read(node):
        if node.id not in values:
            read_at_start.add(node.id)
            return ZERO if node.id in zero else start(node.id)
        return values[node.id]

    def value_of(node):
        if isinstance(node, gast.Name):
            return read(node)
        if isinstance(node, gast.Constant):
            if type(node.value) in (int, float) and node.value == 0:
                return ZERO if math.copysign(1.0, node.value) > 0 else VANISHES
            return UNKNOWN
        if _is_unshared(node):
            return value_of(node.args[1])
        if isinstance(node, gast.IfExp):
            taken = outcome(node.test, known_zero(), decide)
            if taken is not None:
                return value_of(node.body if taken else node.orelse)
            reads_of(node.test)
            return _either(value_of(node.body), value_of(node.orelse))
        if isinstance(node, gast.UnaryOp) and isinstance(node.op, (gast.USub, gast.UAdd)):
            inner = value_of(node.operand)
            if inner == ZERO and isinstance(node.op, gast.UAdd):
                return ZERO
            return VANISHES if inner in _ZEROS else UNKNOWN
        if isinstance(node, gast.BinOp) and isinstance(node.op, (gast.Mult, gast.Div,
                                                                 gast.Add, gast.Sub)):
            left, right = value_of(node.left), value_of(node.right)
            if isinstance(node.op, (gast.Add, gast.Sub)):
                return _either(left, right) if left in _ZEROS and right in _ZEROS else UNKNOWN
            zeroed = left in _ZEROS or (isinstance(node.op, gast.Mult) and right in _ZEROS)
            return VANISHES if zeroed else UNKNOWN
        reads_of(node)
        return UNKNOWN

    def reads_of(node) -> None:
        for n in S.walk(node):
            if isinstance(n, gast.Name) and isinstance(n.ctx, gast.Load):
                read(n)

    def run(block) -> bool:
        for stmt in block:
            if S.is_comment(stmt):
                continue
            taken = outcome(stmt.test, known_zero(), decide) \
                if isinstance(stmt, gast.If) else None
            if taken is not None:
                if not run(stmt.body if taken else stmt.orelse):
                    return False
            elif isinstance(stmt, gast.Assign) and len(stmt.targets) == 1 \
                    and isinstance(stmt.targets[0], gast.Name) and _allowed(stmt.value, allowed):
                values[stmt.targets[0].id] = value_of(stmt.value)
            elif _adds_into_adjoint(stmt, adjoints, allowed):
                if value_of(stmt.value) not in _ZEROS:
                    return False
                if isinstance(stmt.target, gast.Name):  # a zero added: the value it had
                    values[stmt.target.id] = read(stmt.target)
                else:
                    reads_of(stmt.target)
            elif isinstance(stmt, gast.AugAssign) and isinstance(stmt.target, gast.Name) \
                    and isinstance(stmt.op, gast.Add) and _allowed(stmt.value, allowed):
                added, current = value_of(stmt.value), read(stmt.target)
                values[stmt.target.id] = added if current == ZERO else \
                    current if added == ZERO else UNKNOWN
            elif relaxed:
                for n in S.walk(stmt):
                    if isinstance(n, gast.Name):
                        if isinstance(n.ctx, gast.Load):
                            read(n)
                        else:
                            values[n.id] = UNKNOWN
            else:
                return False
        return True

    return StepEffects(values, read_at_start) if run(statements) else None


def vanishes(node, zero=frozenset(), decide=None) -> bool:
    """Whether `node` is a zero of either sign (or NaN) when the names `zero` are zero and
    the tests `decide` answers are as it says."""
    step = follow([S.assign(S.name("_value", store=True), node)], zero=zero, decide=decide,
                  allowed=lambda _: True)
    return step is not None and step.values["_value"] in _ZEROS


def outcome(test, zero, decide=None):
    """True or False for a test known at this point: `x != 0.0` with `x` in `zero`, one
    `decide` answers, and their negations; None for any other test."""
    if isinstance(test, gast.UnaryOp) and isinstance(test.op, gast.Not):
        inner = outcome(test.operand, zero, decide)
        return None if inner is None else not inner
    if isinstance(test, gast.Compare) and len(test.ops) == 1 \
            and isinstance(test.ops[0], gast.NotEq) and isinstance(test.left, gast.Name) \
            and test.left.id in zero and S.same(test.comparators[0], S.const(0.0)):
        return False
    return None if decide is None else decide(test)


def _either(left, right):
    return left if left == right else VANISHES if left in _ZEROS and right in _ZEROS \
        else UNKNOWN


def _is_unshared(node) -> bool:
    """srcad's `unshared(t, v)`, which is `v`."""
    return isinstance(node, gast.Call) and isinstance(node.func, gast.Name) \
        and node.func.id == "unshared" and len(node.args) == 2


def _allowed(node, allowed) -> bool:
    if _is_unshared(node):
        return allowed(node.args[0]) and allowed(node.args[1])
    return allowed(node)


def _adds_into_adjoint(stmt, adjoints, allowed) -> bool:
    """Whether `stmt` is `a_bar += e`, `a_bar[...] += e` or `-=` into an adjoint `a_bar`."""
    return isinstance(stmt, gast.AugAssign) and isinstance(stmt.op, (gast.Add, gast.Sub)) \
        and target_name(stmt.target) in adjoints \
        and allowed(stmt.target) and _allowed(stmt.value, allowed)


def target_name(target):
    """`a` for `a`, `a[i]`, `a[i][j]`; None for anything else."""
    while isinstance(target, gast.Subscript):
        target = target.value
    return target.id if isinstance(target, gast.Name) else None


def dead_after(fn, loop, keep=frozenset()) -> bool:
    """Whether every name `loop` assigns (but those in `keep`) is, at each read outside the
    loop, assigned earlier in the same block (or an enclosing one) since the block began,
    with no pass through the loop in between: no read sees the loop's value. Conservative:
    a read elsewhere without such an assignment keeps the loop as it is."""
    names = {n.id for n in S.walk(loop) if isinstance(n, gast.Name)
             and isinstance(n.ctx, gast.Store)} - set(keep)
    return _reads_covered(fn.body, names, loop, frozenset())


def _reads_covered(block, names, loop, covered) -> bool:
    covered = set(covered)
    for stmt in block:
        if stmt is loop:
            covered = set()  # after the loop: its values, until assigned again
            continue
        if getattr(stmt, "handlers", None) and any(S.loaded_names(h) & names
                                                  for h in stmt.handlers):
            return False  # an except clause: not followed
        nested = [getattr(stmt, f) for f in ("body", "orelse", "finalbody")
                  if isinstance(getattr(stmt, f, None), list)]
        own = [stmt] if not nested else _headers(stmt)
        if any((S.loaded_names(part) & names) - covered for part in own):
            return False
        if not nested:
            if isinstance(stmt, gast.Assign) \
                    and all(isinstance(t, gast.Name) for t in stmt.targets):
                covered |= {t.id for t in stmt.targets} & names
            continue
        holds = any(n is loop for n in S.walk(stmt))
        repeats = isinstance(stmt, (gast.For, gast.While))
        if holds and isinstance(stmt, gast.While) and S.loaded_names(stmt.test) & names:
            return False  # tested again after the loop ran
        # a later iteration of a block holding the loop reads what the loop left
        inner = set() if holds and repeats else set(covered)
        if isinstance(stmt, gast.For) and isinstance(stmt.target, gast.Name):
            inner.add(stmt.target.id)
        if not all(_reads_covered(b, names, loop, inner) for b in nested):
            return False
        if holds:
            covered = set()
    return True


def _headers(stmt) -> list:
    """The expressions of a compound statement outside its blocks (a loop's bounds, an if's
    test)."""
    return [getattr(stmt, f) for f in ("iter", "test", "items") if getattr(stmt, f, None)
            is not None and not isinstance(getattr(stmt, f), list)]
