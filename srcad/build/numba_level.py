"""The LLVM optimization level numba compiles srcad's generated code at: `-O2` unless the
environment variable `SRCAD_NUMBA_OPT` says 1, 2 or 3 (read when srcad builds a function's
numba code; any other value is refused).

numba optimizes at `-O3` by default (`NUMBA_OPT`), and its `-O3` passes on the elementwise loops
of multi-dimensional arrays take most of whole-array code's first compile (numba's loop for a
product of two 4-D arrays: about 20 s at `-O3`, 1.5 s at `-O2`), for run times the same or up to
a third slower (docs/numba_first_compile.md has the measurements). numba reads its level
(`numba.core.config.OPT`) each time it builds an LLVM pass manager, that is during every
compilation: `at_level` makes a dispatcher compile with the level set, holding numba's compiler
lock (no other compilation of the process, the user's own numba code on another thread, runs
meanwhile and sees it) and putting numba's level back after. What the dispatcher's compilation
compiles on the way (srcad's runtime helpers, the helper kernels it calls) is compiled at the
same level; code numba already has (a runtime helper compiled for another kernel, read from
numba's cache) is linked into the kernel and optimized again with it, at the kernel's level.
numba's disk cache does not key on the level: the level is part of each generated module's name
(srcad/build/compiler.py), so code compiled at one level is never loaded for another, and a
second process at the same level loads it without compiling. `-O0` is not offered: numba refuses
to cache its code. LLVM's function passes run on that code once, in the module that links it,
not also before (srcad/runtime/numba_function_passes.py).

>>> numba_level({"SRCAD_NUMBA_OPT": "3"}), numba_level({})
(3, 2)
"""

from __future__ import annotations

import os

from srcad.build.numba_literals import plain_first
from srcad.errors import SrcadError
from srcad.runtime.numba_function_passes import function_passes_at_link

LEVELS = (1, 2, 3)
DEFAULT = 2


def numba_level(environ=os.environ) -> int:
    """The level of `SRCAD_NUMBA_OPT` (DEFAULT when unset or empty); SrcadError for a value
    other than 1, 2 or 3."""
    setting = environ.get("SRCAD_NUMBA_OPT", "").strip()
    if not setting:
        return DEFAULT
    if setting not in {str(level) for level in LEVELS}:
        raise SrcadError(f"{setting!r} is not an optimization level srcad compiles numba "
                         "code at", construct="SRCAD_NUMBA_OPT",
                         hint="set it to 1, 2 (the default: quicker first compiles) or 3 "
                              "(numba's default: longer compiles, faster loops over arrays "
                              "of 3 or more dimensions), or unset it")
    return int(setting)


def at_level(dispatcher, level: int) -> None:
    """Make every compilation of numba `dispatcher` (its first call for new argument types, a
    call from another compiled function) run LLVM's passes at `level`, for its argument types
    without constants' values (srcad/build/numba_literals.py)."""
    compile_ = getattr(dispatcher.compile, "srcad_unwrapped", dispatcher.compile)

    def compile(sig):
        from numba.core import config
        from numba.core.compiler_lock import global_compiler_lock

        with global_compiler_lock, function_passes_at_link(dispatcher.py_func.__qualname__):
            before = config.OPT
            config.OPT = type(before)(level)
            try:  # one compilation for every constant value of an argument
                return plain_first(compile_, sig)
            finally:
                config.OPT = before

    compile.srcad_level, compile.srcad_unwrapped = level, compile_
    dispatcher.compile = compile
