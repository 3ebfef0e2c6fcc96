"""The public entry points: `autodiff`, the `reverse` decorator and `source`.

No AST code lives here: arguments are checked, turned into a signature, and handed to the
pipeline through the cache.
"""

from __future__ import annotations

import functools

import numpy as np

from srcad import cache
from srcad.analysis.types import FLOAT, INT, Array, type_of_value
from srcad.annotations import Active, Annotation, Const, Duplicated, Mode, Reverse
from srcad.errors import ArgumentError, SrcadError
from srcad.pipeline import ArgSpec, build_reverse


def _spec(position: int, arg) -> tuple[ArgSpec, object, object]:
    """(spec, value, shadow) for one argument, after checking the annotation fits."""
    if not isinstance(arg, Annotation):
        arg = Const(arg)
    value = arg.value
    typ = type_of_value(value)
    where = f"argument {position}"
    if isinstance(arg, Active):
        if typ == INT:
            raise ArgumentError(f"{where}: Active({value!r}) is an integer; integers have no "
                                "derivative", hint="pass a float, e.g. Active(3.0)")
        if isinstance(typ, Array):
            raise ArgumentError(f"{where}: Active takes a float scalar, got an array",
                                hint="use Duplicated(x, dx) for arrays")
        if typ != FLOAT:
            raise ArgumentError(f"{where}: Active takes a float, got {type(value).__name__}")
        return ArgSpec("active", FLOAT), float(value), None
    if isinstance(arg, Duplicated):
        shadow = arg.shadow
        if not isinstance(value, np.ndarray):
            raise ArgumentError(f"{where}: reverse-mode Duplicated takes a float array",
                                hint="use Active(x) for a float scalar")
        if value.dtype.kind != "f":
            raise ArgumentError(f"{where}: Duplicated array has dtype {value.dtype}; "
                                "derivatives need a float array", hint="convert with "
                                "x.astype(float)")
        if not isinstance(shadow, np.ndarray) or shadow.shape != value.shape \
                or shadow.dtype != value.dtype:
            got = (f"{getattr(shadow, 'shape', None)} {getattr(shadow, 'dtype', type(shadow))}")
            raise ArgumentError(f"{where}: shadow is not congruent with its array (array "
                                f"{value.shape} {value.dtype}, shadow {got})",
                                hint="use np.zeros_like(x)")
        return ArgSpec("duplicated", typ), value, shadow
    if typ == "other" and value is not None:
        raise ArgumentError(f"{where}: srcad handles floats, ints, bools and NumPy arrays, "
                            f"got {type(value).__name__}")
    return ArgSpec("const", typ), value, None


def _prepare(f, args):
    specs, flat, active_positions = [], [], []
    for position, arg in enumerate(args):
        spec, value, shadow = _spec(position, arg)
        specs.append(spec)
        flat.append(value)
        if spec.kind == "duplicated":
            flat.append(shadow)
        elif spec.kind == "active":
            active_positions.append(position)
    return tuple(specs), flat, active_positions


def _compiled(f, mode_name: str, specs):
    key = (f, getattr(f, "__code__", None), mode_name, specs)
    return cache.lookup_or_build(key, lambda: build_reverse(f, specs))


def autodiff(mode: Mode, f, *args, seed=None):
    """Differentiate `f` at `args` (annotated with Const/Active/Duplicated).

    Reverse returns one entry per argument (the derivative for Active ones, None otherwise);
    ReverseWithPrimal returns (derivatives, value).

    >>> def sq(x):
    ...     return x * x
    >>> autodiff(Reverse, sq, Active(3.0))
    (6.0,)
    """
    f = getattr(f, "__srcad_wrapped__", f)
    if not isinstance(mode, Mode):
        raise ArgumentError(f"unknown mode {mode!r}", hint="use srcad.Reverse or "
                            "srcad.ReverseWithPrimal")
    if not mode.reverse:
        raise SrcadError("forward mode is not implemented yet", construct=repr(mode))
    specs, flat, active_positions = _prepare(f, args)
    compiled = _compiled(f, "reverse", specs)
    value, adjoints = compiled.function(*flat, 1.0 if seed is None else seed)
    derivs = [None] * len(args)
    for position, adjoint in zip(active_positions, adjoints):
        derivs[position] = float(adjoint)
    derivs = tuple(derivs)
    return (derivs, value) if mode.with_primal else derivs


def source(f, mode: Mode, *args) -> str:
    """The generated source for `f` in `mode` with this activity signature."""
    f = getattr(f, "__srcad_wrapped__", f)
    specs, _, _ = _prepare(f, args)
    return _compiled(f, "reverse", specs).source


def reverse(f=None, **options):
    """Decorator: plain calls run `f` unchanged; calls with any annotation run reverse mode
    exactly as `autodiff(Reverse, f, ...)`. `wrapper.source(*args)` shows the adjoint."""
    if f is None:
        return functools.partial(reverse, **options)

    @functools.wraps(f)
    def wrapper(*args, **kwargs):
        if any(isinstance(a, Annotation) for a in args):
            return autodiff(Reverse, f, *args, **kwargs)
        return f(*args, **kwargs)

    wrapper.__srcad_wrapped__ = f
    wrapper.source = lambda *args: source(f, Reverse, *args)
    return wrapper
