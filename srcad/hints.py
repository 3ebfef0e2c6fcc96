"""Type aliases for the signatures of the public API (annotations only; nothing here runs)."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any, Literal

import numpy as np

Function = Callable[..., Any]  # a plain Python function srcad can read the source of
Point = float | np.ndarray  # an input, a tangent or a derivative: a float or a float array
Backend = Literal["python", "numba"]
Compile = Literal["wait", "background"]  # numba: answer first calls while it compiles
OperatorMode = Literal["forward", "reverse"] | None  # None: the operator chooses
# the modes of hvp, hessian, ... (None: forward over reverse on python, reverse over forward
# on numba)
SecondOrderMode = Literal["forward-over-reverse", "reverse-over-forward"] | None
Memory = int | str | None  # memory=: bytes, or "50MB"; None: the automatic budget
