"""Compiled derivative code, kept per (function, code, mode, argument signature, options).

The key uses the function object and its code object (a redefined function is a new object
with new code, so it never hits a stale entry) and, for each argument, its annotation kind and
type (float, int, array rank and dtype kind), the mode and the batch width. Shapes are not in
the key: the generated code is shape-generic. Each entry also remembers every module-level
name and every closure cell the code was generated from (helpers it inlined, constants and
closure variables it read); if one has been rebound since, the entry is rebuilt. A thread
lock makes the first transformation happen once.
"""

from __future__ import annotations

import shutil
import threading

from srcad.compiler import cache_dir

_lock = threading.RLock()
_entries: dict = {}
plans: dict = {}  # function -> its plans (srcad/plans.py), the fast path of repeated calls


def lookup_or_build(key, build):
    """The entry for `key`, built once (`entry.is_current()` false rebuilds it)."""
    entry = _entries.get(key)
    if entry is not None and entry.is_current():
        return entry
    with _lock:
        entry = _entries.get(key)
        if entry is None or not entry.is_current():
            entry = build()
            _entries[key] = entry
        return entry


def clear() -> None:
    """Forget every compiled derivative, and the preparations kept for unprepared operator
    calls (srcad/prep_cache.py)."""
    from srcad import prep_cache  # the operators' layer sits above this module

    with _lock:
        _entries.clear()
        plans.clear()
    prep_cache.clear()


def clear_disk() -> None:
    """Delete the numba backend's compiled modules (the folder `compiler.cache_dir()`)."""
    shutil.rmtree(cache_dir(), ignore_errors=True)


def size() -> int:
    return len(_entries)
