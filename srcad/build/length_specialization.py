"""numba code specialized for the lengths of short array arguments.

A 1-D float array argument of at most MAX_LENGTH elements (a point in the plane, a
quaternion) has its length recorded in its `ArgSpec`, so the request, and with it the cache
key, names that length: the code generated for it knows the length as a constant, and the
small arrays computed from the argument (`x = start.copy()`, `x - eta * g`) are held as
numbers, one per element (srcad/transform/small_arrays.py), without the reference counting
numba does for every array. A call whose argument has another length gets code of its own:
a longer array the general code, which reads lengths at run time.

What keeps a specialized kernel from running on another length: the cache key, the plans of
repeated calls (`length_test`: a plan made for a length matches that length alone, a general
plan no array it could have been specialized for) and the prepared operator calls (which
compare shapes). Where the specialization changes nothing in the generated code (no small
array is made from the argument), the source is the general code's, and numba's compiled
module is shared.

>>> import numpy as np
>>> small_length(np.zeros(2), "numba"), small_length(np.zeros(2), "python")
(2, None)
>>> small_length(np.zeros(5), "numba"), small_length(np.zeros((2, 2)), "numba")
(None, None)
"""

from __future__ import annotations

import numpy as np

from srcad.transform.small_array_lengths import MAX_LENGTH


def small_length(value, backend: str) -> int | None:
    """The length numba code is specialized for when `value` is an argument: that of a 1-D
    float array of 1 to MAX_LENGTH elements on the numba backend, else None."""
    if backend == "numba" and type(value) is np.ndarray and value.ndim == 1 \
            and value.dtype.kind == "f" and 1 <= value.shape[0] <= MAX_LENGTH:
        return value.shape[0]
    return None


def given_lengths(params, specs) -> dict:
    """{parameter: length} of the arguments whose specs name a length."""
    return {p: s.length for p, s in zip(params, specs) if getattr(s, "length", None)}


def length_test(var: str, value, length: int | None, backend: str) -> str | None:
    """The test (a Python expression) a plan's matcher fails on for the argument `var` (like
    `value`) when the code was generated for `length` (None: the general code): another
    length, or, for the general code, a length it is specialized for. None: no test."""
    if length is not None:
        return f"{var}.shape[0] != {length}"
    if backend == "numba" and type(value) is np.ndarray and value.ndim == 1 \
            and value.dtype.kind == "f":
        return f"0 < {var}.shape[0] <= {MAX_LENGTH}"
    return None
