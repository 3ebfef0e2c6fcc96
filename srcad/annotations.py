"""Enzyme-style argument annotations and modes.

A bare argument means `Const`. `Duplicated(x, dx)`: in reverse mode the derivative is ADDED
into `dx`; in forward mode `dx` is the tangent seed.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any


class Annotation:
    __slots__ = ()  # the subclasses too (slots=True): one is built per argument per call
    kind = "const"


@dataclass(slots=True)
class Const(Annotation):
    """No derivative; the value is read (and possibly written) as is."""

    value: Any
    kind = "const"


@dataclass(slots=True)
class Active(Annotation):
    """A float scalar whose derivative is returned (reverse mode)."""

    value: Any
    kind = "active"


@dataclass(slots=True)
class Duplicated(Annotation):
    """A float array with a shadow of the same shape and dtype."""

    value: Any
    shadow: Any
    kind = "duplicated"


@dataclass(slots=True)
class DuplicatedNoNeed(Duplicated):
    """Like Duplicated; the primal result may be skipped (srcad computes it anyway)."""

    kind = "duplicated"


@dataclass(frozen=True)
class Mode:
    name: str
    reverse: bool
    with_primal: bool

    def __repr__(self):
        return f"srcad.{self.name}"


Reverse = Mode("Reverse", True, False)
ReverseWithPrimal = Mode("ReverseWithPrimal", True, True)
Forward = Mode("Forward", False, False)
ForwardWithPrimal = Mode("ForwardWithPrimal", False, True)


@dataclass(slots=True)
class BatchDuplicated(Annotation):
    """A float (scalar or array) with W shadows: a sequence of W shadows, or one array whose
    leading axis is W. Forward mode propagates all W tangent directions in one call."""

    value: Any
    shadows: Any
    kind = "batch"


@dataclass(slots=True)
class BatchDuplicatedNoNeed(BatchDuplicated):
    """Like BatchDuplicated; the primal result may be skipped (srcad computes it anyway)."""

    kind = "batch"


# Contexts of the operators (DifferentiationInterface style): every argument but the one we
# differentiate with respect to says what it is.
@dataclass(slots=True)
class Constant:
    """Read-only data: no derivative flows through it."""

    value: Any


@dataclass(slots=True)
class Cache:
    """Scratch storage: its value on entry does not matter and f may overwrite it; srcad owns
    its shadow (allocated at preparation, zeroed on each call)."""

    value: Any


@dataclass(slots=True)
class Output:
    """An array f writes its result into (f returns None): `f(y, x, ...)`."""

    value: Any
