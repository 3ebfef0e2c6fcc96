"""Compiled derivative code, kept per (function, code, mode, argument signature, options).

The key uses the function object and its code object (a redefined function is a new object
with new code, so it never hits a stale entry) and, for each argument, its annotation kind and
type (float, int, array rank and dtype kind), the mode and the batch width. Shapes are not in
the key: the generated code is shape-generic. Each entry also remembers every module-level
name and every closure cell the code was generated from (helpers it inlined, constants and
closure variables it read); if one has been rebound since, the entry is rebuilt. A thread
lock makes the first transformation happen once.

A lambda made anew for each call (`gradient(lambda p: loss(p, data), p)` in a loop) is a new
function object each time: `same_lambda` hands every operator the first of the lambdas of the
same code that is the same function (the same globals, defaults and closure values, each the
same object), so its compiled code, plans and preparations are found again.
"""

from __future__ import annotations

import shutil
import threading

from srcad.build.cache_folder import cache_dir

_lock = threading.RLock()
_entries: dict = {}
plans: dict = {}  # function -> its plans (srcad/build/plans.py), the fast path of repeated calls
_lambdas: dict = {}  # a lambda's code -> the lambdas of that code met (the last few)
_clear_also: list = []  # what layers above keep from compiled code registers its `clear` here


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


def current(key) -> bool:
    """Is there a current entry for `key` (built, and nothing it read rebound since)?"""
    entry = _entries.get(key)
    return entry is not None and entry.is_current()


def same_lambda(f):
    """The lambda met before that is the same function as the lambda `f`, or `f`.

    >>> def scaled(data):
    ...     return lambda p: p * data
    >>> data = [1.0]
    >>> a, b, c = scaled(data), scaled(data), scaled([1.0])
    >>> same_lambda(a) is a, same_lambda(b) is a, same_lambda(c) is c
    (True, True, True)
    """
    met = _lambdas.setdefault(f.__code__, [])
    for g in met:
        if g is f or (g.__globals__ is f.__globals__ and not f.__dict__ and not g.__dict__
                      and _same_objects(g.__defaults__, f.__defaults__)
                      and _same_objects(g.__kwdefaults__, f.__kwdefaults__)
                      and _same_objects(_cell_values(g), _cell_values(f))):
            return g
    met.append(f)
    del met[:-8]
    return f


def _cell_values(f) -> tuple:
    try:
        return tuple(cell.cell_contents for cell in f.__closure__ or ())
    except ValueError:  # an empty cell: f is no other lambda
        return (object(),)


def _same_objects(a, b) -> bool:
    if a is None or b is None:
        return a is b
    if isinstance(a, dict):
        return a.keys() == b.keys() and all(a[k] is b[k] for k in a)
    return len(a) == len(b) and all(u is v for u, v in zip(a, b))


def clear() -> None:
    """Forget every compiled derivative, and the preparations kept for unprepared operator
    calls (srcad/operators/prep_cache.py registers its `clear` with `clear_also`)."""
    with _lock:
        _entries.clear()
        plans.clear()
        _lambdas.clear()
    for clear_other in list(_clear_also):
        clear_other()


def clear_also(clear_other):
    """Register `clear_other()` to run whenever `clear()` does (a layer above this one keeps
    something made from compiled code, e.g. the operators' kept preparations). Returns it, so
    it can decorate the function."""
    if clear_other not in _clear_also:
        _clear_also.append(clear_other)
    return clear_other


def clear_disk() -> None:
    """Delete the numba backend's compiled modules (the folder `cache_folder.cache_dir()`)."""
    shutil.rmtree(cache_dir(), ignore_errors=True)


def size() -> int:
    return len(_entries)


def entries() -> list:
    """The compiled derivatives kept (their `stage_seconds` say what each build cost)."""
    return list(_entries.values())
