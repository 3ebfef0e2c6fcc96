"""Argument checking for `autodiff`: annotations read, values and shadows checked, defaults
bound, and the checked call turned into a `Request` for the pipeline.
"""

from __future__ import annotations

import inspect
from typing import Literal

import numpy as np

from srcad.analysis.types import FLOAT, INT, Array, type_of_value
from srcad.analysis.value_types import argument_type
from srcad.annotations import (
    Active,
    Annotation,
    BatchDuplicated,
    Cache,
    Const,
    Constant,
    Mode,
    Output,
)
from srcad.build.length_specialization import small_length
from srcad.build.pipeline import UNROLL_MAX_WIDTH, ArgSpec, Request
from srcad.errors import ArgumentError
from srcad.frontend.constant_sequences import arguments_as_arrays

Batch = Literal["unrolled", "stacked"] | None  # how vector mode stores lanes (None: srcad picks)


def _float_type(position, value, what):
    typ = type_of_value(value)
    if typ == INT:
        raise ArgumentError(f"argument {position}: {what}({value!r}) is an integer; integers "
                            "have no derivative", hint=f"pass a float, e.g. {what}(3.0)")
    if isinstance(typ, Array) and not typ.is_float:
        raise ArgumentError(f"argument {position}: {what} array has dtype {value.dtype}; "
                            "derivatives need a float array", hint="convert with "
                            "x.astype(float)")
    if typ != FLOAT and not isinstance(typ, Array):
        raise ArgumentError(f"argument {position}: {what} takes a float or a float array, got "
                            f"{type(value).__name__}")
    return typ


def _check_shadow(position, value, shadow):
    if isinstance(value, np.ndarray):
        if not isinstance(shadow, np.ndarray) or shadow.shape != value.shape \
                or shadow.dtype != value.dtype:
            got = f"{getattr(shadow, 'shape', None)} {getattr(shadow, 'dtype', type(shadow))}"
            raise ArgumentError(f"argument {position}: shadow is not congruent with its array "
                                f"(array {value.shape} {value.dtype}, shadow {got})",
                                hint="use np.zeros_like(x)")
        return shadow
    if isinstance(shadow, np.ndarray) or type_of_value(shadow) not in (FLOAT, INT):
        raise ArgumentError(f"argument {position}: the shadow of a float is a float, got "
                            f"{type(shadow).__name__}")
    return float(shadow)


class _Call:
    """Arguments of one autodiff call, flattened for the generated function."""

    def __init__(self, mode: Mode, args, batch=None, backend="python"):
        self.specs, self.flat, self.active_positions = [], [], []
        self.values = [a.value if isinstance(a, Annotation) else a for a in args]
        self.width = None
        self.copy_back = []  # (stacked array, list of user shadows) for stacked batches
        self.stacked = False
        self.backend = backend
        if batch not in (None, "unrolled", "stacked"):
            raise ArgumentError(f"unknown batch layout {batch!r}",
                                hint="use batch='unrolled' or batch='stacked'")
        if batch is not None and not any(isinstance(a, BatchDuplicated) for a in args):
            raise ArgumentError(f"batch={batch!r} lays out the lanes of BatchDuplicated "
                                "arguments (forward mode), and this call has none",
                                construct="batch", hint="leave batch out, or pass "
                                "BatchDuplicated(x, shadows) in forward mode")
        for a in args:
            if isinstance(a, BatchDuplicated) and not hasattr(a.shadows, "__len__"):
                raise ArgumentError("BatchDuplicated takes a sequence of W shadows (or one "
                                    f"array with leading axis W), got {type(a.shadows).__name__}")
        widths = {len(a.shadows) for a in args if isinstance(a, BatchDuplicated)}
        if widths:
            if len(widths) > 1:
                raise ArgumentError(f"BatchDuplicated arguments have different widths {widths}")
            self.width = widths.pop()
            if self.width < 1:
                raise ArgumentError("BatchDuplicated needs at least one shadow")
            # numba: lanes in arrays, looped (few arguments, tight loops); python: unrolled
            # lanes while narrow, NumPy vectors when wide
            self.stacked = (batch == "stacked") or (batch is None and (
                self.width > UNROLL_MAX_WIDTH or backend == "numba"))
        for position, arg in enumerate(args):
            self._add(mode, position, arg)
        self.specs = tuple(self.specs)

    def _add(self, mode, position, arg):
        if not isinstance(arg, Annotation):
            arg = Const(arg)
        value = arg.value
        if isinstance(arg, Const):
            typ = argument_type(value)
            if typ == "other" and value is not None:
                contexts = (Constant, Cache, Output)  # the operators' argument kinds
                hint = ("Constant, Cache and Output are for the operators (srcad.gradient, "
                        "...); autodiff takes the value bare or as Const(...)"
                        if isinstance(value, contexts) else None)
                raise ArgumentError(f"argument {position}: srcad handles floats, ints, bools, "
                                    f"strings, None and NumPy arrays, got "
                                    f"{type(value).__name__}", hint=hint)
            self.specs.append(ArgSpec("const", typ, small_length(value, self.backend)))
            self.flat.append(value)
            return
        if isinstance(arg, Active):
            if not mode.reverse:
                raise ArgumentError(f"argument {position}: Active is for reverse mode",
                                    hint="in forward mode pass Duplicated(x, 1.0)")
            typ = _float_type(position, value, "Active")
            if isinstance(typ, Array):
                raise ArgumentError(f"argument {position}: Active takes a float scalar, got an "
                                    "array", hint="use Duplicated(x, dx) for arrays")
            self.specs.append(ArgSpec("active", FLOAT))
            self.flat.append(as_given(value))
            self.active_positions.append(position)
            return
        if self.width is not None and not isinstance(arg, BatchDuplicated):
            raise ArgumentError(f"argument {position}: mixing Duplicated and BatchDuplicated "
                                "in one call", hint="give every differentiated argument W "
                                "shadows")
        typ = _float_type(position, value, type(arg).__name__)
        if mode.reverse and not isinstance(typ, Array):
            raise ArgumentError(f"argument {position}: reverse-mode Duplicated takes a float "
                                "array", hint="use Active(x) for a float scalar")
        if mode.reverse and isinstance(arg, BatchDuplicated):
            raise ArgumentError(f"argument {position}: BatchDuplicated in reverse mode runs "
                                "on the python and numba backends, without batch=",
                                hint="leave batch out, or one call per cotangent with "
                                "Duplicated")
        # unrolled lanes are arrays like the value (`x_dot_0`, ...): code for its length too
        stacked = isinstance(arg, BatchDuplicated) and self.stacked
        self.specs.append(ArgSpec("duplicated", typ, None if stacked
                                  else small_length(value, self.backend)))
        if isinstance(value, np.ndarray) or not mode.reverse:
            self.flat.append(value if isinstance(value, np.ndarray) else as_given(value))
        if isinstance(arg, BatchDuplicated):
            self._add_batch(position, value, arg.shadows)
        else:
            self.flat.append(_check_shadow(position, value, arg.shadow))

    def _add_batch(self, position, value, shadows):
        lanes = [_check_shadow(position, value, s) for s in shadows]
        if not self.stacked:
            self.flat.extend(lanes)
            return
        if isinstance(shadows, np.ndarray):
            self.flat.append(shadows if isinstance(value, np.ndarray)
                             else shadows.astype(float))
            return
        stacked = np.array(lanes, dtype=float)
        self.flat.append(stacked)
        if isinstance(value, np.ndarray):
            self.copy_back.append((stacked, list(shadows)))

    def request(self, mode: Mode, backend: str = "python", memory=None) -> Request:
        if mode.reverse:
            return Request("reverse", self.specs, backend=backend, memory=memory)
        return Request("forward", self.specs, self.width or 1, self.stacked, backend)

    def finish(self):
        for stacked, shadows in self.copy_back:
            for k, shadow in enumerate(shadows):
                shadow[...] = stacked[k]


def bind_arguments(f, args) -> tuple:
    """`args` completed with f's default values; a wrong count is refused here."""
    code = f.__code__
    if code.co_kwonlyargcount or code.co_flags & (inspect.CO_VARARGS | inspect.CO_VARKEYWORDS):
        return tuple(args)  # refused with file and line by the syntax fence
    defaults = f.__defaults__ or ()
    required = code.co_argcount - len(defaults)
    if not required <= len(args) <= code.co_argcount:
        expected = (f"{code.co_argcount}" if not defaults
                    else f"{required} to {code.co_argcount}")
        raise ArgumentError(f"{f.__name__} takes {expected} arguments, {len(args)} given",
                            filename=code.co_filename, line=code.co_firstlineno)
    missing = code.co_argcount - len(args)
    given = arguments_as_arrays(f, tuple(args), (Const, Constant), bare=False)
    return arguments_as_arrays(f, given + tuple(defaults[len(defaults) - missing:]),
                               first=len(given)) if missing else given


def _arguments(f, mode, args, batch, backend="python") -> _Call:
    args = bind_arguments(f, args)
    try:
        return _Call(mode, args, batch, backend)
    except ArgumentError as err:
        code = getattr(f, "__code__", None)
        if code is None:
            raise
        raise err.at(code.co_filename, code.co_firstlineno) from None


def _check_mode(mode):
    if not isinstance(mode, Mode):
        raise ArgumentError(f"unknown mode {mode!r}", hint="use srcad.Reverse, "
                            "srcad.ReverseWithPrimal, srcad.Forward or srcad.ForwardWithPrimal")


def as_given(value):
    """A scalar input as f receives it: a NumPy float (np.float64, np.float32) as it is
    (`x.shape`, `x.dtype` work on it), any other number as a Python float."""
    return value if isinstance(value, np.floating) else float(value)
