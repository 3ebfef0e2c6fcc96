"""The derivative rule table: one entry per primitive, forward and reverse from one formula.

Each differentiable primitive is a `Rule` whose `partials` give, for every operand, the action
of that operand's partial derivative on a seed `g`. The formula is linear in `g`, so the very same
text serves both modes and they cannot drift apart:

* forward (tangent) mode:  d_ans = sum over operands of partial[g := d_operand]
* reverse (adjoint) mode:  operand_bar += partial[g := ans_bar]

Placeholders: the operand names (their primal values), `ans` (the primal result) and `g`.
A partial of None marks an operand with no derivative (an index, a condition).
The table is read-only; transformations only look rules up.
"""

from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True)
class Rule:
    """A differentiable primitive.

    >>> MUL.partials
    ('g * y', 'x * g')
    """

    name: str  # used to name temporaries in generated code (`exp_1`, `mul_2_bar`)
    operands: tuple[str, ...]
    partials: tuple[str | None, ...]
    result: str = "float"  # the primal result type when operands are floats

    def __post_init__(self):
        assert len(self.operands) == len(self.partials), self.name


def rule(name, operands, *partials, result="float") -> Rule:
    return Rule(name, tuple(operands.split()), tuple(partials), result)


# Operators (kept here: the transformations need them by name).
ADD = rule("add", "x y", "g", "g")
SUB = rule("sub", "x y", "g", "-g")
MUL = rule("mul", "x y", "g * y", "x * g")
DIV = rule("div", "x y", "g / y", "-g * ans / y")
POW = rule("pow", "x y", "g * y * x ** (y - 1)", "g * ans * math.log(x)")
MOD = rule("mod", "x y", "g", "-g * math.floor(x / y)")
NEG = rule("neg", "x", "-g")
POS = rule("pos", "x", "g")
IFEXP = rule("select", "test body orelse", None, "(g if test else 0.0)", "(0.0 if test else g)")

from srcad.rules.table import CallInfo, lookup_call  # noqa: E402  (the table needs Rule)

__all__ = ["Rule", "rule", "lookup_call", "CallInfo", "ADD", "SUB", "MUL", "DIV", "POW", "MOD",
           "NEG", "POS", "IFEXP"]
