"""Conditional expressions in derivative code: the values of a branch of `a if test else b` are
computed only when that branch is taken (srcad/transform/expressions.py)."""

from __future__ import annotations

import gast

from srcad.frontend import syntax as S


def guarded(guard, test):
    """The condition under which a branch of `... if test else ...` runs, inside `guard`."""
    if guard is None:
        return test
    return gast.BoolOp(op=gast.And(), values=[S.clone(guard), S.clone(test)])


def negated(test):
    return gast.UnaryOp(op=gast.Not(), operand=S.clone(test))


def only_if(guard, value):
    """`value if guard else 0.0`: an intermediate of an untaken branch is never computed
    (`math.log(x) if x > 0.0 else 0.0` at x <= 0 would raise); nothing reads it then."""
    if guard is None:
        return value
    return gast.IfExp(test=S.clone(guard), body=value, orelse=S.const(0.0))
