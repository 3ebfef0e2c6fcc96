"""The signature a preparation records of each argument (srcad/operators/preparation.py): kind,
shape and dtype, and the value of an int Constant (or a tuple of ints) for the operators whose
result f's output shapes, since such a value may set that shape (`x[:n]`); and how a
mismatch report shows one (`int 2`, `float64 array (4,)`).
"""

from __future__ import annotations

import numpy as np

from srcad.build.plans import is_shape_value

# operators whose result has the shape of f's result: an int Constant may set it
# (`x[:n]`), so its value is part of their preparation
OUTPUT_SHAPED = ("jacobian", "pushforward", "pullback")


def signature_of(value, operator=None, role=None) -> tuple:
    """(kind, shape, dtype or value) of an argument as a preparation records it: an array's
    shape and dtype; an int (or ints) Constant's value for an operator in OUTPUT_SHAPED.

    >>> signature_of(2, "jacobian", "constant"), signature_of(2, "gradient", "constant")
    (('int', (), 2), ('int', (), None))
    """
    if isinstance(value, np.ndarray):
        return ("array", value.shape, value.dtype.str)
    if role == "constant" and operator in OUTPUT_SHAPED and is_shape_value(value):
        return (type(value).__name__, (), value)
    return (type(value).__name__, (), None)


def shown(signature) -> str:
    """A signature as the mismatch report shows it: `float64 array (4,)`, `int 2`, `float`."""
    kind, shape, detail = signature
    if kind == "array":
        return f"{np.dtype(detail).name} array {shape}"
    return kind if detail is None else f"{kind} {detail!r}"
