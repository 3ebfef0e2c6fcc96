"""Compiled derivative code, kept per (function, code, mode, argument signature, options).

The key uses the function object and its code object (a redefined function is a new object
with new code, so it never hits a stale entry) and, for each argument, its annotation kind and
type (float, int, array rank and dtype kind). Shapes are not in the key: the generated code is
shape-generic. A thread lock makes the first transformation happen once.
"""

from __future__ import annotations

import threading

_lock = threading.RLock()
_entries: dict = {}


def lookup_or_build(key, build):
    entry = _entries.get(key)
    if entry is not None:
        return entry
    with _lock:
        entry = _entries.get(key)
        if entry is None:
            entry = build()
            _entries[key] = entry
        return entry


def clear() -> None:
    """Forget every compiled derivative."""
    with _lock:
        _entries.clear()


def size() -> int:
    return len(_entries)
