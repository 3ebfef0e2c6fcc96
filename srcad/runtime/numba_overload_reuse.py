"""One compilation of an overload's implementation per argument types and inherited options,
whether a generated kernel or a function it calls asks for it.

numba keeps the implementation of an `overload` (numba's own `np.zeros`, `np.empty`, `np.eye`,
`max`, ...; srcad's runtime overloads) per argument types and per the compile options of the
function calling it (numba/core/typing/templates.py, `_OverloadFunctionTemplate._get_impl`:
its cache key holds the caller's `Flags`). Two of those options describe only the caller's
own entry points: `release_gil` (srcad's generated kernels compile with `nogil=True`) and
`no_cpython_wrapper` (set for an overload's implementation, which Python never calls). So
`np.zeros((n, m))` written in a generated kernel and in an overload the kernel calls was
typed, lowered and optimized twice for the same argument types: in the Kalman filter's
gradient `np.zeros` of three shapes, `np.eye` and `max` (0.03-0.14 s each).

`reuse_overloads()` makes numba key those implementations with both options at their defaults:
the implementation an overload compiles does not read them (numba's CPU target inherits only
`nrt`, `fastmath`, `error_model` and `forceinline` from the caller, numba/core/cpu.py), and
those stay in the key. Called once when the numba backend's runtime loads
(srcad/runtime/numba_runtime.py); where numba's template has no such method (another numba),
nothing changes.
"""

from __future__ import annotations

import functools

from numba.core import targetconfig
from numba.core.typing import templates

# options that shape only the caller's own wrappers, never the code of what it calls
_CALLER_ONLY = ("release_gil", "no_cpython_wrapper")


def reuse_overloads() -> bool:
    """Key overload implementations without the caller-only options (module docstring);
    True where installed (now or before)."""
    template = getattr(templates, "_OverloadFunctionTemplate", None)
    original = getattr(template, "_get_impl", None)
    if original is None:
        return False
    if getattr(original, "srcad_reuse", False):
        return True

    @functools.wraps(original)
    def _get_impl(self, args, kws):
        flags = targetconfig.ConfigStack.top_or_none()
        if flags is None or not any(getattr(flags, name, False) for name in _CALLER_ONLY):
            return original(self, args, kws)
        shared = flags.copy()
        for name in _CALLER_ONLY:
            setattr(shared, name, False)
        with targetconfig.ConfigStack().enter(shared):
            return original(self, args, kws)

    _get_impl.srcad_reuse = True
    template._get_impl = _get_impl
    return True
