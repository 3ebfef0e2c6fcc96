"""What numba-compiled generated code calls at run time (imported by the generated modules,
never by srcad itself, so srcad does not need numba)."""

import numba
import numpy as np


@numba.njit(cache=True, inline="never")
def reserve_tape(tape, need):
    """`tape` if it holds `need` values, else a longer copy (at least doubled).

    A call rather than an inline `if ...: tape = ...`: numba code that rebinds the tape in a
    branch ran the mixture's loops 10-15% slower (benchmarks/kernels.py, measured)."""
    if need <= tape.shape[0]:
        return tape
    return np.concatenate((tape, np.empty(max(need, tape.shape[0]), tape.dtype)))
