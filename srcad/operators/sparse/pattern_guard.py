"""Whether a prepared sparse Jacobian's pattern surely holds at a call's arguments, cheaply.

A pattern is a function of the Constants (loop bounds, index maps read from constant arrays:
both the static and the traced pattern are computed at the preparation's) and, when traced,
of the decisions f's forward code takes on varying values (`decisions.py`). `PatternGuard`
keeps a copy of the preparation's Constants and the decision log of the preparation point;
`holds(slots)` is True only when the call's Constants equal those (by value) and its
decision log equals the preparation's, or that of a call the full check accepted since.
Otherwise the caller checks in full (traces the pattern again at the call's point and
refuses an entry outside the preparation's): False never makes an answer wrong, only slower.
An object Constant (a dataclass, a namedtuple, any instance with a `__dict__`) is compared
by its type and its attributes, as the containers are (an index array in `h.idx` changed in
place was once not seen); functions, classes and modules by identity; any other object, or
one whose attributes reach itself, is never taken as equal (every call checks in full).
"""

from __future__ import annotations

import types

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


class _Record:
    """An object's type and the snapshots of its attributes (or a namedtuple's items)."""

    __slots__ = ("kind", "fields")

    def __init__(self, kind, fields):
        self.kind, self.fields = kind, fields


class _Unknown:
    """A Constant whose value cannot be compared: never equal."""

    __slots__ = ()


_SCALARS = (bool, int, float, complex, str, bytes, type(None), np.generic)
_CODE = (types.FunctionType, types.BuiltinFunctionType, types.MethodType, types.ModuleType,
         type, np.ufunc)
_CLASS_STATEMENT = 1 << 9  # Py_TPFLAGS_HEAPTYPE: a class written in Python


def _snapshot(value, within=()):
    if isinstance(value, np.ndarray):
        return _Array(value) if value.dtype != object else _Unknown()
    if isinstance(value, _SCALARS):
        return value
    if isinstance(value, _CODE):
        return _Opaque(value)
    if any(value is outer for outer in within) or len(within) > 32:
        return _Unknown()  # reaches itself
    within = within + (value,)
    if type(value) in (tuple, list):
        return type(value)(_snapshot(v, within) for v in value)
    if isinstance(value, tuple):  # a namedtuple
        return _Record(type(value), tuple(_snapshot(v, within) for v in value))
    if type(value) is dict:
        return {k: _snapshot(v, within) for k, v in value.items()}
    if isinstance(value, (list, dict)) or not hasattr(value, "__dict__") or not all(
            _python_class(k) for k in type(value).__mro__[:-1]):
        return _Unknown()  # (state outside `__dict__`: slots, a C type's fields)
    return _Record(type(value), {k: _snapshot(v, within) for k, v in vars(value).items()})


def _python_class(kind) -> bool:
    """A class written in Python keeping its state in `__dict__`: no slots, no `__new__` or
    `__init__` of C (functools.partial, a heap type of C, keeps its function outside)."""
    if not kind.__flags__ & _CLASS_STATEMENT or vars(kind).get("__slots__"):
        return False
    return all(isinstance(vars(kind).get(name, staticmethod(None)),
                          (types.FunctionType, staticmethod, classmethod))
               for name in ("__new__", "__init__"))


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
    if isinstance(kept, _Unknown):
        return False
    if isinstance(kept, _Record):
        if type(value) is not kept.kind:
            return False
        if isinstance(kept.fields, tuple):
            return len(value) == len(kept.fields) and all(
                same_value(v, k) for v, k in zip(value, kept.fields))
        fields = vars(value)
        return fields.keys() == kept.fields.keys() and all(
            same_value(fields[k], kept.fields[k]) for k in kept.fields)
    if type(value) is not type(kept):
        return False
    if isinstance(kept, (tuple, list)):
        return len(value) == len(kept) and all(same_value(v, k) for v, k in zip(value, kept))
    if isinstance(kept, dict):
        return value.keys() == kept.keys() and all(same_value(value[k], kept[k]) for k in kept)
    return bool(value == kept)
