"""What the grammar knows while it writes a function: the variables in scope (floats, ints
with their intervals, arrays with their shapes), the helpers it may call and the budget left;
the arithmetic forms and comparisons the expression grammars share.
"""

from __future__ import annotations

from dataclasses import dataclass, field


@dataclass
class Arr:
    name: str
    shape: tuple  # concrete sizes, or None per dimension when unknown (helper parameters)
    len_expr: tuple  # how the code names each size
    min_shape: tuple


@dataclass
class IntVar:
    name: str
    lo: int | None  # a concrete interval, when known
    hi: int | None
    valid_for: frozenset = frozenset()  # arrays it indexes safely along axis 0


@dataclass
class Scope:
    floats: list = field(default_factory=list)
    ints: list = field(default_factory=list)
    arrays: list = field(default_factory=list)

    def child(self) -> Scope:
        return Scope(list(self.floats), list(self.ints), list(self.arrays))


@dataclass
class Helper:
    name: str
    kind: str  # scalar | tuple | array | array2


@dataclass
class FunctionContext:
    returns: str  # float | none | tuple
    helpers: list
    is_main: bool
    loop_depth: int = 0
    budget: int = 30  # statements left in this function
    calls_left: int = 3


CMP_OPS = ["<", ">", "<=", ">="]


# Arithmetic forms both expression grammars share: kind -> form of an operand generator `e`
# (each call of `e` draws a new operand, left to right).
ARITHMETIC = {
    "add": lambda e: f"{e()} + {e()}",
    "sub": lambda e: f"{e()} - ({e()})",
    "mul": lambda e: f"({e()}) * ({e()})",
    "neg": lambda e: f"-({e()})",
}


def helpers_of(ctx: FunctionContext) -> list:
    return [h for h in ctx.helpers if h.kind == "scalar"]


def indent(lines: list[str]) -> list[str]:
    return ["    " + line if line else line for line in lines]
