"""Numba backend, reverse mode: the tape pushes of a `while` loop's iteration share one check
of the tape's room, made where the iteration starts.

A `for` loop's pushes are reserved before the loop (srcad/transform/tapes.py); a `while` loop's
trip count is not known there, so each push checks its tape first:

    if int_tape_size == int_tape.shape[0]:
        int_tape = np.concatenate((int_tape, np.empty_like(int_tape)))

numba code that may rebind a tape in a branch runs slower (srcad/runtime/numba_runtime.py:
`reserve_tape`): each such statement costs reference counting on the tape's array, though
the branch is almost never taken. Where a tape's every push in the iteration (outside the
loops inside it) advances its size by a constant, the checks of that tape go, and the
iteration starts with

    int_tape = reserve_tape(int_tape, int_tape_size + K)

K the most pushes any path through the iteration makes (a branch counts its larger arm).
A tape whose size or array anything else in the iteration changes (a loop inside it that
pushes, a reservation for such a loop) keeps its checks.
"""

from __future__ import annotations

import gast

from srcad.frontend import syntax as S

_LOOPS = (gast.For, gast.While)


def reserve_while_tapes(tree) -> int:
    """Rewrite (in place) the `while` loops of `tree` (module docstring); the number of tapes
    reserved once per iteration.

    >>> from srcad.build.codegen import to_source
    >>> tree = gast.parse("def f(t, t_size, n):\\n"
    ...                   "    while n > 0:\\n"
    ...                   "        if t_size == t.shape[0]:\\n"
    ...                   "            t = np.concatenate((t, np.empty_like(t)))\\n"
    ...                   "        t[t_size] = n\\n"
    ...                   "        t_size += 1\\n"
    ...                   "        n = n - 1\\n"
    ...                   "    return t")
    >>> reserve_while_tapes(tree)
    1
    >>> print(to_source(tree).strip().splitlines()[2].strip())
    t = reserve_tape(t, t_size + 1)
    """
    count = 0
    for loop in [n for n in S.walk(tree) if isinstance(n, gast.While)]:
        for tape, size in _checked_tapes(loop.body):
            most = _most_pushes(loop.body, tape, size)
            if most is None or most == 0:
                continue
            loop.body = _without_checks(loop.body, tape, size)
            need = gast.BinOp(S.name(size), gast.Add(), S.const(most))
            reserve = S.assign(S.name(tape, store=True),
                               S.call("reserve_tape", S.name(tape), need))
            loop.body.insert(0, gast.copy_location(reserve, loop.body[0]))
            count += 1
    return count


def _check(stmt):
    """(tape, size) where `stmt` is `if size == tape.shape[0]: tape = np.concatenate((tape,
    np.empty_like(tape)))`, else None."""
    if not (isinstance(stmt, gast.If) and not stmt.orelse and len(stmt.body) == 1):
        return None
    test, grow = stmt.test, stmt.body[0]
    if not (isinstance(test, gast.Compare) and len(test.ops) == 1
            and isinstance(test.ops[0], gast.Eq) and isinstance(test.left, gast.Name)):
        return None
    bound = test.comparators[0]
    if not (isinstance(bound, gast.Subscript) and isinstance(bound.value, gast.Attribute)
            and bound.value.attr == "shape" and isinstance(bound.value.value, gast.Name)
            and isinstance(bound.slice, gast.Constant) and bound.slice.value == 0):
        return None
    tape, size = bound.value.value.id, test.left.id
    if not (isinstance(grow, gast.Assign) and len(grow.targets) == 1
            and _is_name(grow.targets[0], tape) and _numpy_call(grow.value, "concatenate")):
        return None
    parts = grow.value.args[0] if len(grow.value.args) == 1 else None
    if not (isinstance(parts, gast.Tuple) and len(parts.elts) == 2
            and _is_name(parts.elts[0], tape) and _numpy_call(parts.elts[1], "empty_like")
            and len(parts.elts[1].args) == 1 and _is_name(parts.elts[1].args[0], tape)):
        return None
    return tape, size


def _is_name(node, name) -> bool:
    return isinstance(node, gast.Name) and node.id == name


def _numpy_call(node, attr) -> bool:
    return isinstance(node, gast.Call) and isinstance(node.func, gast.Attribute) \
        and node.func.attr == attr and _is_name(node.func.value, "np") and not node.keywords


def _checked_tapes(body) -> list:
    """The (tape, size) pairs checked in `body` outside the loops inside it."""
    found = []
    for stmt in _own(body):
        pair = _check(stmt)
        if pair is not None and pair not in found:
            found.append(pair)
    return found


def _own(body):
    """The statements of `body`, into branches but not into loops or their bodies."""
    for stmt in body:
        yield stmt
        if isinstance(stmt, gast.If):
            yield from _own(stmt.body)
            yield from _own(stmt.orelse)


def _most_pushes(body, tape, size):
    """The most `size += constant` advances along any path through `body`, or None where the
    tape or its size changes some other way (or in a loop, or in a statement this does not
    follow)."""
    total = 0
    for stmt in body:
        if _check(stmt) == (tape, size):
            continue
        if isinstance(stmt, gast.If):
            if _mentions(stmt.test, tape, size, stores_only=True):
                return None
            arms = [_most_pushes(stmt.body, tape, size), _most_pushes(stmt.orelse, tape, size)]
            if None in arms:
                return None
            total += max(arms)
        elif isinstance(stmt, gast.AugAssign) and isinstance(stmt.target, gast.Name) \
                and stmt.target.id == size:
            if not (isinstance(stmt.op, gast.Add) and isinstance(stmt.value, gast.Constant)
                    and type(stmt.value.value) is int and stmt.value.value >= 0):
                return None
            total += stmt.value.value
        elif isinstance(stmt, _LOOPS) or not isinstance(stmt, (gast.Assign, gast.AugAssign,
                                                                gast.Expr, gast.Pass,
                                                                gast.Break)):
            if _mentions(stmt, tape, size):
                return None
        elif _mentions(stmt, tape, size, stores_only=True):
            return None
    return total


def _mentions(node, tape, size, stores_only=False) -> bool:
    """Does `node` mention `size` or `tape` (with `stores_only`: bind either, or the size
    otherwise than through a store into the tape)?"""
    for n in S.walk(node):
        if isinstance(n, gast.Name) and n.id in (tape, size):
            if not stores_only or not isinstance(n.ctx, gast.Load):
                return True
    return False


def _without_checks(body, tape, size) -> list:
    out = []
    for stmt in body:
        if _check(stmt) == (tape, size):
            continue
        if isinstance(stmt, gast.If):
            stmt.body = _without_checks(stmt.body, tape, size) or [gast.Pass()]
            stmt.orelse = _without_checks(stmt.orelse, tape, size)
        out.append(stmt)
    return out
