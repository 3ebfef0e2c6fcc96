"""The user's own Python functions that generated numba code calls as they are: the primal of
a `srcad.custom_jvp` / `srcad.custom_vjp` function and its rule functions
(srcad/api/custom_rules.py).

`compiled(fun)` is `numba.njit(fun)`, made once per function and process; a generated kernel
receives it as an argument (srcad/build/numba_constants.py), and a custom function called
inside another rule function types as it (`_numba_type_`). numba's scipy.special
(srcad/runtime/numba_special.py) is registered first, so a rule may call the family. A kernel
that takes a function as an argument is compiled once per process (numba's disk cache does
not key on a function), not at every call.

Imported only on the numba backend (it imports numba).
"""

from __future__ import annotations

import numba

from srcad.runtime import numba_special  # noqa: F401 - registers numba's scipy.special

_COMPILED: dict = {}


def compiled(fun):
    """`numba.njit(fun)`, the same dispatcher for the same function (of a custom function:
    of the function it wraps)."""
    fun = getattr(fun, "srcad_numba_function", fun)
    entry = _COMPILED.get(id(fun))
    if entry is None or entry[0] is not fun:
        entry = _COMPILED[id(fun)] = (fun, numba.njit(fun))
    return entry[1]
