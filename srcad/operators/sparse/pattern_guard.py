"""Whether a prepared sparse Jacobian's pattern surely holds at a call's arguments, cheaply.

A pattern is a function of the Constants (loop bounds, index maps read from constant arrays:
both the static and the traced pattern are computed at the preparation's) and, when traced,
of the decisions f's forward code takes on varying values (`decisions.py`). `PatternGuard`
keeps a copy of the preparation's Constants and the decision log of the preparation point;
`holds(slots)` is True only when the call's Constants equal those (by value) and its
decision log equals the preparation's, or that of a call the full check accepted since.
Otherwise the caller checks in full (traces the pattern again at the call's point and
refuses an entry outside the preparation's): False never makes an answer wrong, only slower.
A Constant of a type compared neither by value nor structurally (not an array, number,
string, tuple, list or dict) is compared by identity.
"""

from __future__ import annotations

import numpy as np

_REMEMBERED = 16  # accepted decision logs kept


class PatternGuard:
    """`holds(slots)`: the pattern is that of the preparation (or of an accepted call)."""

    def __init__(self, slots, decisions=None, always_check=False):
        self.constants = {i: _snapshot(s.value) for i, s in enumerate(slots)
                          if s.role == "constant"}
        self.decisions = decisions if decisions is not None and decisions.sites else None
        self.always_check = always_check
        self.logs = []
        if self.decisions is not None:
            log = self.decisions.log(tracing_arguments(slots))
            if log is None:
                self.always_check = True
            else:
                self.logs.append(log)

    def constants_hold(self, slots) -> bool:
        return all(same_value(slots[i].value, kept) for i, kept in self.constants.items())

    def holds(self, slots) -> bool:
        if self.always_check or not self.constants_hold(slots):
            return False
        if self.decisions is None:
            return True
        log = self.decisions.log(tracing_arguments(slots))
        return log is not None and any(same_value(log, known) for known in self.logs)

    def accept(self, slots) -> None:
        """The full check passed at these arguments: remember their decisions."""
        if self.decisions is None or self.always_check or len(self.logs) >= _REMEMBERED \
                or not self.constants_hold(slots):
            return
        log = self.decisions.log(tracing_arguments(slots))
        if log is not None:
            self.logs.append(log)


def tracing_arguments(slots) -> list:
    """The arguments of f's forward code as the tracing passes them, tangents None (arrays
    f may write copied)."""
    flat = []
    for slot in slots:
        value = slot.value
        if slot.role == "constant":
            flat.append(value)
            continue
        flat.append(value.copy() if isinstance(value, np.ndarray) else value)
        flat.append(None)
    return flat


def tracing_positions(slots) -> tuple[list, list, dict]:
    """(positions of the values that are not Constants, positions of the tangents, position
    -> ndim of the numeric arrays) among `tracing_arguments`."""
    varying, tangents, ndims, k = [], [], {}, 0
    for slot in slots:
        if isinstance(slot.value, np.ndarray) and slot.value.dtype.kind in "biuf":
            ndims[k] = slot.value.ndim
        if slot.role == "constant":
            k += 1
            continue
        varying.append(k)
        tangents.append(k + 1)
        k += 2
    return varying, tangents, ndims


class _Array:
    """A Constant array's copy; a small one also as bytes (comparing them costs a fraction
    of a microsecond, an elementwise comparison a few; equal bytes are equal values)."""

    __slots__ = ("array", "raw")

    def __init__(self, value):
        self.array = value.copy()
        self.raw = self.array.tobytes() if self.array.nbytes <= _SMALL else None


_SMALL = 1 << 15


class _Opaque:
    """A Constant compared by identity."""

    __slots__ = ("value",)

    def __init__(self, value):
        self.value = value


_SCALARS = (bool, int, float, complex, str, bytes, type(None), np.generic)


def _snapshot(value):
    if isinstance(value, np.ndarray):
        return _Array(value)
    if isinstance(value, (tuple, list)):
        return type(value)(_snapshot(v) for v in value) if type(value) in (tuple, list) \
            else _Opaque(value)
    if isinstance(value, dict):
        return {k: _snapshot(v) for k, v in value.items()}
    if isinstance(value, _SCALARS):
        return value
    return _Opaque(value)


def same_value(value, kept) -> bool:
    """`value` equals the snapshot `kept` (NaN never equals: the caller checks in full)."""
    if isinstance(kept, _Array):
        array = kept.array
        if not (isinstance(value, np.ndarray) and value.shape == array.shape
                and value.dtype == array.dtype):
            return False
        if kept.raw is not None:
            return value.tobytes() == kept.raw
        return bool(np.all(value == array))
    if isinstance(kept, np.ndarray):
        return (isinstance(value, np.ndarray) and value.shape == kept.shape
                and value.dtype == kept.dtype and bool(np.all(value == kept)))
    if isinstance(kept, _Opaque):
        return value is kept.value
    if type(value) is not type(kept):
        return False
    if isinstance(kept, (tuple, list)):
        return len(value) == len(kept) and all(same_value(v, k) for v, k in zip(value, kept))
    if isinstance(kept, dict):
        return value.keys() == kept.keys() and all(same_value(value[k], kept[k]) for k in kept)
    return bool(value == kept)
