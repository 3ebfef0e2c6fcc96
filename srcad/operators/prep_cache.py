"""Preparations of unprepared operator calls, kept for the next call like them.

An operator called without `prep=` (an optimizer callback calling `gradient(f, x)` each
iteration) would otherwise transform-cache-look-up, allocate every buffer and build its
argument matcher on every call: ~100x a prepared call on the numba backend. Instead the
preparation is kept here, keyed by the operator, the function object and the options a
preparation depends on (mode, chunk, backend, the tangent count of a pushforward) and, for
Constant contexts holding an int (Python or NumPy), bool or str, their values (f's output
shape may depend on them). Among the preparations of one key, the one whose generated
matcher (`plans.matcher`) accepts the call's arguments -- the same types, context kinds,
shapes and dtypes, exactly what `Prep.check` compares -- is used; a new shape gets a new
preparation.

Correctness of a reused preparation is the prepared call's: each call refills the
preparation's value slots with THIS call's arrays (x, Constant, Cache, Output), so results land
in this call's buffers and an f that writes x runs on the preparation's copy refilled from this
x (`engines.InputCopy`); a preparation whose code was built from a global or closure variable
rebound since prepares again in place (`Prep.check`, `Compiled.is_current`).

Bounds: at most MAX_KEYS keys (least recently used dropped first) of MAX_PER_KEY preparations
each. A kept preparation holds references to the arrays of the last call that used it until it
is dropped or `srcad.build.cache.clear()` runs.

Threads: a preparation is taken out of the cache for the duration of a call and given back
after it, under a lock, so two threads never share one preparation's buffers (a second thread
calling concurrently prepares its own; both are kept, up to MAX_PER_KEY). A call that raises
does not give its preparation back.
"""

from __future__ import annotations

import functools
import threading
from collections import OrderedDict

import numpy as np

from srcad.annotations import Constant
from srcad.build import cache
from srcad.build.plans import MISS, WHOLE_CALLS

MAX_KEYS = 64
MAX_PER_KEY = 4

_lock = threading.Lock()
_idle: OrderedDict = OrderedDict()  # key -> idle preparations, the most recently used last


def _value_keys(args) -> tuple:
    """Values of Constant contexts that may shape f's output (ints, NumPy ints, bools,
    strings)."""
    return tuple(a.value for a in args
                 if type(a) is Constant and isinstance(a.value, (int, str, np.integer)))


def take(key, args):
    """An idle preparation kept under `key` that fits `args`, removed from the cache; else
    None."""
    with _lock:
        preps = _idle.get(key)
        if not preps:
            return None
        for i in range(len(preps) - 1, -1, -1):
            if preps[i].match(args) is not None:
                _idle.move_to_end(key)
                return preps.pop(i)
    return None


def give_back(key, prep) -> None:
    with _lock:
        preps = _idle.get(key)
        if preps is None:
            preps = _idle[key] = []
        else:
            _idle.move_to_end(key)
        preps.append(prep)
        if len(preps) > MAX_PER_KEY:
            del preps[0]
        while len(_idle) > MAX_KEYS:
            _idle.popitem(last=False)


@cache.clear_also
def clear() -> None:
    """Forget the kept preparations (also done by `srcad.build.cache.clear`)."""
    with _lock:
        _idle.clear()


def size() -> int:
    """How many preparations are kept."""
    with _lock:
        return sum(len(p) for p in _idle.values())


def reusing_preparations(operator, preparer, extra_key=lambda extra: None):
    """Decorate an operator `op(f, *args, prep=None, out=None, mode=None, chunk=None,
    backend=None, **extra)`: called without prep=, it runs with a kept preparation (`take`),
    or with a new one from `preparer(f, *args, mode=, chunk=, backend=, **extra)`, kept after
    the call (`give_back`). The preparation was made with the options given, so the operator
    runs it without them (its checks of them pass, and a reverse gradient takes its fast
    path). `extra_key(extra)`: what else the preparation depends on."""
    def decorate(op):
        whole = WHOLE_CALLS.get(op.__name__)  # the kept preparation runs the call whole

        @functools.wraps(op)
        def call(f, *args, prep=None, out=None, mode=None, chunk=None, backend=None, **extra):
            if prep is not None:
                if not extra:  # keywords spelled out: no dict per prepared call
                    return op(f, *args, prep=prep, out=out, mode=mode, chunk=chunk,
                              backend=backend)
                return op(f, *args, prep=prep, out=out, mode=mode, chunk=chunk,
                          backend=backend, **extra)
            key = (operator, f, mode, chunk, backend, extra_key(extra), _value_keys(args))
            try:
                prep = take(key, args)
            except TypeError:  # an unhashable option: the operator refuses it
                return op(f, *args, out=out, mode=mode, chunk=chunk, backend=backend, **extra)
            if prep is None:
                prep = preparer(f, *args, mode=mode, chunk=chunk, backend=backend, **extra)
            elif whole is not None and not extra and prep.run is not None \
                    and prep.operator == whole[0]:
                result = prep.run(args, out)
                if result is not MISS:
                    give_back(key, prep)
                    return result if whole[1] else result[1]
            result = op(f, *args, prep=prep, out=out, **extra)
            give_back(key, prep)
            return result
        return call
    return decorate


def tangent_count(extra):
    """A pushforward's preparation also depends on how many tangents it propagates."""
    tangent = extra.get("tangent")
    return len(tangent) if isinstance(tangent, (tuple, list)) else None
