"""An engine's arguments as the operators see them: each argument's role (`Slot`), the
argument kinds srcad compiles for it (`_spec`), the refusal of a Constant f writes, and the
copy of x an engine runs on when f writes its input (`InputCopy`). The engines
(srcad/build/engines.py) build their flat argument lists from these.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from srcad.analysis.types import FLOAT, type_of_value
from srcad.build.aliasing import refuse_aliased_writes
from srcad.build.length_specialization import small_length
from srcad.build.pipeline import ArgSpec
from srcad.errors import ArgumentError


@dataclass
class Slot:
    """One argument of the user's function, as an operator sees it."""

    role: str  # "x" | "constant" | "cache" | "output"
    value: object

    @property
    def is_array(self) -> bool:
        return isinstance(self.value, np.ndarray)


def _spec(slot: Slot, differentiated: bool, backend: str = "python") -> ArgSpec:
    """The ArgSpec of `slot` (on numba with the length of a short array the code is
    specialized for: srcad/build/length_specialization.py)."""
    typ = type_of_value(slot.value)
    length = small_length(slot.value, backend)
    if slot.role == "constant":
        return ArgSpec("const", typ, length)
    if slot.role == "x" and not slot.is_array:
        return ArgSpec("active" if not differentiated else "duplicated", FLOAT)
    return ArgSpec("duplicated", typ, length)


def refuse_written_constants(compiled, slots) -> None:
    """Constant is read-only (operators run f several times); f writing into one is refused."""
    for i, slot in enumerate(slots):
        if slot.role == "constant" and i in compiled.written:
            raise ArgumentError(f"f writes into argument {i}, passed as Constant; operators run "
                                "f more than once, so a Constant must be read-only",
                                hint="pass it as Cache(...) if it is scratch storage, or "
                                "Output(...) if it holds a result")


class InputCopy:
    """Operators leave x unchanged. When f writes elements of its input x (argument
    `position`, at flat[index]), the generated code runs on this copy, allocated at preparation
    and refilled from the caller's x before every pass (each pass must start from x)."""

    def __init__(self, flat: list, value_index: list, position: int, f=None):
        self.index = index = value_index[position]
        self.position, self.value_index, self.f = position, value_index, f
        self.work, self.given = np.empty_like(flat[index]), flat[index]
        flat[index] = self.work

    @staticmethod
    def needed(compiled, slots, flat, value_index, f=None):
        """An InputCopy of x when f writes x's elements, else None."""
        for position, slot in enumerate(slots):
            if slot.role == "x" and slot.is_array and position in compiled.written:
                return InputCopy(flat, value_index, position, f)
        return None

    def take(self, flat: list) -> None:
        """After `set_values` put the caller's x into `flat`: keep it as the source, run on
        the copy; refused when x shares memory with another argument (`Constant(x)`)."""
        self.given = flat[self.index]
        refuse_aliased_writes([flat[i] for i in self.value_index], {self.position}, self.f)
        flat[self.index] = self.work

    def refill(self) -> None:
        np.copyto(self.work, self.given)
