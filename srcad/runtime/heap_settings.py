"""glibc's malloc settings for numba-compiled whole-array code: freed memory kept for the
next call instead of given back to the kernel and faulted in again.

srcad's generated numba code allocates its temporaries and adjoints at every call, as NumPy
code does. glibc serves a block above its mmap threshold (128 KiB, rising to the largest
block freed so far) with fresh pages from the kernel and unmaps it when freed, and returns
the top of its heap to the kernel once more than the trim threshold (twice that) is free:
a call allocating megabytes then meets a page fault per 4 KiB page at every call (the kernel
zeroes each page again). Measured in a process of its own on this machine: the vectorized
GradBench gmm gradient (d=10, k=25, n=1000) 3,400 page faults and 32 ms per call, 0 and
3.3 ms with the settings below; the MLP of benchmarks/ (N=2000, 100-64-10) 760 and 3.3 ms,
0 and 1.9 ms. JAX's runtime keeps its buffers in its own allocator across calls.

`keep_freed_memory(trim_threshold)`: blocks up to 32 MiB (glibc's largest mmap threshold on
64-bit) come from the heap, and the heap keeps up to `trim_threshold` bytes free. The numba
backend applies it once, with 256 MiB, when its runtime first loads
(srcad/runtime/numba_runtime.py), unless the environment sets SRCAD_SYSTEM_MALLOC=1 (glibc's
defaults stay) or this function was called before (srcad's GradBench tool keeps up to
2 GiB). It changes only this process's malloc settings, and only with glibc (elsewhere it
does nothing and says so).
"""

from __future__ import annotations

import ctypes
import ctypes.util
import os
import platform

M_TRIM_THRESHOLD = -1  # glibc's mallopt parameters (malloc.h)
M_MMAP_THRESHOLD = -3
MMAP_THRESHOLD = 32 * 2**20  # glibc's largest accepted value on 64-bit (HEAP_MAX_SIZE / 2)
LIBRARY_TRIM_THRESHOLD = 256 * 2**20  # what the numba backend keeps free at most
_settled: list = []  # what keep_freed_memory answered, once called in this process


def keep_freed_memory(trim_threshold: int = LIBRARY_TRIM_THRESHOLD) -> str:
    """Ask glibc to serve blocks up to 32 MiB from its heap and to keep up to
    `trim_threshold` bytes of it free. Returns "kept" when glibc took both settings, else why
    nothing changed.

    >>> keep_freed_memory() in ("kept", "not glibc", "mallopt refused")
    True
    """
    _settled.append(trim_threshold)
    if platform.system() != "Linux" or platform.libc_ver()[0] != "glibc":
        return "not glibc"
    libc = ctypes.CDLL(ctypes.util.find_library("c") or "libc.so.6")
    mallopt = libc.mallopt
    mallopt.argtypes = (ctypes.c_int, ctypes.c_int)
    mallopt.restype = ctypes.c_int
    if (mallopt(M_MMAP_THRESHOLD, MMAP_THRESHOLD) != 1
            or mallopt(M_TRIM_THRESHOLD, int(trim_threshold)) != 1):
        return "mallopt refused"
    return "kept"


def system_malloc() -> bool:
    """Does the environment ask for glibc's own settings (SRCAD_SYSTEM_MALLOC=1)?"""
    return os.environ.get("SRCAD_SYSTEM_MALLOC", "") not in ("", "0")


def numba_backend_settings() -> str:
    """What the numba backend's runtime does when it loads: keep freed memory, unless
    SRCAD_SYSTEM_MALLOC=1 or the process chose its settings already (GradBench's tool)."""
    if system_malloc():
        return "system"
    if _settled:
        return "set before"
    return keep_freed_memory()
