"""The `Rule` type and the operators' rules: what every family module builds its entries from.

Kept apart from the package's __init__ so the family modules import it without going through the
package (whose __init__ imports the table, which imports the families).
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
    # forward mode, per operand, when not the same formula as `partials` (g: the tangent)
    tangents: tuple[str | None, ...] | None = None
    elementwise: bool = True  # operands broadcast; the result has the broadcast shape
    shape: str | None = None  # not elementwise: the result's shape from `x_shape`, ...
    rank: int | None = None  # not elementwise: the result's rank (0: a float)

    def __post_init__(self):
        assert len(self.operands) == len(self.partials), self.name
        assert self.tangents is None or len(self.tangents) == len(self.partials), self.name

    def tangent(self, k: int) -> str | None:
        """The forward-mode template of operand k (g: its tangent)."""
        return self.partials[k] if self.tangents is None else self.tangents[k]

    def selects(self, k: int) -> bool:
        """Operand k's tangent selects its seed (`np.where(c, g, 0.0)`, `(g if c else 0.0)`:
        max, min, abs, clip, where). Forward lanes then keep the formula, not a shared 0/1
        coefficient, which would turn the other branch's nan or inf tangent into nan."""
        formula = self.tangent(k)
        return formula is not None and (formula.startswith("np.where(") or " if " in formula)


class ShapeLength(int):
    """The rank `select` gives a shape operand (a tuple, `x.shape`): its length, told apart
    from the 0 of an int operand, which as a shape means one axis (`np.full(3, x)`), while
    `()` means none (analysis/shape_lengths.py makes these)."""


def shape_rank(rank) -> int | None:
    """The rank of the arrays a shape operand of this rank describes: a shape value's length,
    1 for an int n (the shape (n,)), None where the code does not show it."""
    if rank is None or isinstance(rank, ShapeLength):
        return rank
    return 1 if rank == 0 else None


def rule(name, operands, *partials, result="float") -> Rule:
    return Rule(name, tuple(operands.split()), tuple(partials), result)


def linear(name, operands, *pairs, shape, rank) -> Rule:
    """A rule that is not elementwise: per operand a (tangent, adjoint) pair of templates."""
    return Rule(name, tuple(operands.split()), tuple(a for _, a in pairs), "float",
                tuple(t for t, _ in pairs), False, shape, rank)


# Operators (kept here: the transformations need them by name).
ADD = rule("add", "x y", "g", "g")
SUB = rule("sub", "x y", "g", "-g")
MUL = rule("mul", "x y", "g * y", "x * g")
DIV = rule("div", "x y", "g / y", "-g * ans / y")
POW = rule("pow", "x y", "g * y * x ** (y - 1)", "g * ans * math.log(x + (x == 0.0))")
MOD = rule("mod", "x y", "g", "-g * math.floor(x / y)")
# x ** 0 is 1 for every x (NumPy's and Python's 0 ** 0 too): no derivative, where the pow rule
# gives 0 * x ** -1, NaN at 0 (JAX gives 0 for an int exponent 0, NaN for the float 0.0)
POW_BY_ZERO = rule("pow", "x y", None, None)
NEG = rule("neg", "x", "-g")
POS = rule("pos", "x", "g")
IFEXP = rule("select", "test body orelse", None, "(g if test else 0.0)", "(0.0 if test else g)")

# The same operators on arrays: NumPy in place of math where a formula calls a function.
ARRAY_POW = rule("pow", "x y", "g * y * x ** (y - 1)", "g * ans * np.log(x + (x == 0.0))")
ARRAY_MOD = rule("mod", "x y", "g", "-g * np.floor(x / y)")
