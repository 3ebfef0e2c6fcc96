"""Symbols of numba-compiled code that differ between processes.

numba names the machine code of each function it compiles `<module>.<qualname>` with a
version, the value of a counter that starts at 1 in every process (numba/core/bytecode.py,
`FunctionIdentity`), and the argument types. srcad's runtime makes many implementations with
one name and different bodies (the loop nests `impl` it writes for each expression and rank,
closures made for each reduction), and numba's cache keeps the machine code of a generated
function with the symbols of the process that compiled it. Two generated functions compiled
by two processes can then define one symbol with two bodies; a process loading both from the
cache links both calls to one of them, and one of the two derivatives is silently wrong
(seen: the MLP's reverse code loaded first, GradBench gmm's vectorized gradient off by 1387
after it; both defined `<dynamic>.impl` version 72 of a matrix and a pair of ints).

`distinct_symbols()` starts this process's counter at a random 48-bit value, once: a symbol
compiled here differs from one compiled by another process except with probability about
2^-48 per pair, and symbols within a process stay distinct as before. Called when the numba
backend's runtime loads (srcad/runtime/numba_runtime.py), before it compiles anything.
"""

from __future__ import annotations

import itertools
import secrets

from numba.core.bytecode import FunctionIdentity

_started: list = []


def distinct_symbols() -> int:
    """Start numba's function counter at a random value (once per process); returns it.

    >>> distinct_symbols() == distinct_symbols()
    True
    """
    if not _started:
        start = secrets.randbits(48) + 1
        FunctionIdentity._unique_ids = itertools.count(start)
        _started.append(start)
    return _started[0]
