"""Rows of one array told apart: the part of an array a view `a[e]` holds, for
analysis/array_sharing.py.

A view `row = A[e]` with an int index `e` affine in names (`2 * i`, `2 * i + 1`, `t - 1`)
holds the row `e` of `A`; any other view (a slice, `A.T`, a row of a row) holds an unknown
part. Two rows of one array are apart when their index expressions differ by a nonzero
constant, evaluated at the same values of their names (`2 * i` and `2 * i + 1`), or when the
one made earlier went stale only through steps of a `for` variable over an ascending range
and no number of steps makes them meet (`state[2 * i]` kept from an earlier iteration is not
the `state[2 * i]` or `state[2 * i + 1]` of this one). A part is None (the whole array),
UNKNOWN, or (form, staleness): form a (frozenset of (name, coefficient), constant) pair,
staleness FRESH (its names still hold the values they had), ("stepped", name) or UNKNOWN.
"""

from __future__ import annotations

import gast

UNKNOWN = "unknown"
FRESH = "fresh"


def row_part(index):
    """The part `A[index]` holds, for an index that is not a slice or a tuple."""
    form = _affine(index)
    return UNKNOWN if form is None else (form, FRESH)


def _affine(node):
    """(frozenset of (name, coefficient), constant) of an int expression, or None."""
    if isinstance(node, gast.Constant) and type(node.value) is int:
        return frozenset(), node.value
    if isinstance(node, gast.Name):
        return frozenset({(node.id, 1)}), 0
    if isinstance(node, gast.UnaryOp) and isinstance(node.op, gast.USub):
        inner = _affine(node.operand)
        return None if inner is None else _scaled(inner, -1)
    if not isinstance(node, gast.BinOp):
        return None
    left, right = _affine(node.left), _affine(node.right)
    if left is None or right is None:
        return None
    if isinstance(node.op, (gast.Add, gast.Sub)):
        sign = 1 if isinstance(node.op, gast.Add) else -1
        coefficients = dict(left[0])
        for name, c in right[0]:
            coefficients[name] = coefficients.get(name, 0) + sign * c
        return frozenset((n, c) for n, c in coefficients.items() if c), \
            left[1] + sign * right[1]
    if isinstance(node.op, gast.Mult):
        if not left[0]:
            return _scaled(right, left[1])
        if not right[0]:
            return _scaled(left, right[1])
    return None


def _scaled(form, k):
    return frozenset((n, c * k) for n, c in form[0] if c * k), form[1] * k


def rebound(part, names: set, step: str | None):
    """The part once `names` are rebound; `step`: the one name rebound by the next iteration
    of a `for` over an ascending range of step one (its value grew by one)."""
    if not isinstance(part, tuple):
        return part
    form, staleness = part
    mentioned = {n for n, _ in form[0]} & names
    if not mentioned:
        return part
    if step is not None and mentioned == {step} and staleness in (FRESH, ("stepped", step)):
        return form, ("stepped", step)
    return form, UNKNOWN


def may_overlap(a, b) -> bool:
    """May the parts `a` and `b` of one array share an element?"""
    if not isinstance(a, tuple) or not isinstance(b, tuple):
        return True
    (form_a, stale_a), (form_b, stale_b) = a, b
    if form_a[0] != form_b[0]:
        return True
    if stale_a == FRESH and stale_b == FRESH:
        return form_a[1] == form_b[1]
    if stale_b == FRESH:
        (form_a, stale_a), (form_b, stale_b) = (form_b, stale_b), (form_a, stale_a)
    if stale_a != FRESH or not (isinstance(stale_b, tuple) and stale_b[0] == "stepped"):
        return True
    # b was made `steps` >= 1 steps of its name ago: equal rows iff k_b - c * steps == k_a
    c = dict(form_b[0]).get(stale_b[1], 0)
    if c == 0:
        return True
    steps, remainder = divmod(form_b[1] - form_a[1], c)
    return remainder == 0 and steps >= 1
