"""The derivative rule table: one entry per primitive, forward and reverse from one formula.

Each differentiable primitive is a `Rule` whose `partials` give, for every operand, the action
of that operand's partial derivative on a seed `g`. The formula is linear in `g`, so the very same
text serves both modes and they cannot drift apart:

* forward (tangent) mode:  d_ans = sum over operands of partial[g := d_operand]
* reverse (adjoint) mode:  operand_bar += partial[g := ans_bar]

Placeholders: the operand names (their primal values), `ans` (the primal result) and `g`.
A partial of None marks an operand with no derivative (an index, a condition).
The table is read-only; transformations only look rules up.

Array rules (rules/elementwise.py, reductions.py, linalg.py) use the same type. An elementwise
rule keeps one formula for both modes; its operands broadcast against each other, which the
transformation undoes in one place (`unbroadcast`). A rule that is not elementwise (a sum, a
matmul) gives its `tangents` beside its `partials`, and its result's `shape` from the
operands' shapes (placeholders `x_shape`, ...); every adjoint it gives has exactly its
operand's shape.

May import: `runtime` (the functions a rule's formula names) and the shared vocabulary only.
Imported by `analysis`, `transform` and `operators.nested` (which registers its primitive).
"""

from __future__ import annotations

from srcad.rules.rule_type import (
    ADD,
    ARRAY_MOD,
    ARRAY_POW,
    DIV,
    IFEXP,
    MOD,
    MUL,
    NEG,
    POS,
    POW,
    POW_BY_ZERO,
    SUB,
    Rule,
    linear,
    rule,
)
from srcad.rules.table import CallInfo, lookup_call, lookup_method, method_function

__all__ = ["Rule", "rule", "linear", "lookup_call", "lookup_method", "method_function",
           "CallInfo", "ARRAY_POW", "POW_BY_ZERO", "ARRAY_MOD", "ADD", "SUB", "MUL", "DIV", "POW",
           "MOD",
           "NEG", "POS", "IFEXP"]
