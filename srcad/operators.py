"""Operators with preparation, in the manner of DifferentiationInterface.jl.

`op(f, *args, prep=None, out=None, mode=None, chunk=None)`: exactly one argument is bare, the
input x we differentiate with respect to (a float or a float array); the others are
`Constant(c)`, `Cache(c)` or `Output(y)`. `prepare_op(f, *args, ...)` transforms, compiles,
chooses mode and chunk and allocates every seed, shadow and result buffer once; the prepared
call then refills those buffers in place (with `out=`, it returns `out` itself).

Choices when not forced:
* jacobian: forward vector mode when len(x) <= len(y), else one reverse pass per row;
* chunk: python backend: min(len(x), 16) tangent lanes unrolled into plain floats (no array
  is allocated per call; a forced chunk > 16 keeps lanes in NumPy vectors: faster for wide
  inputs, but it allocates); numba backend: min(len(x), 256) lanes in arrays, looped over;
* hvp and hessian: forward-over-reverse (srcad's forward mode run over its own reverse code).
"""

from __future__ import annotations

import functools
from dataclasses import dataclass

import numpy as np

from srcad.annotations import Cache, Constant, Output
from srcad.api import _target, bind_arguments
from srcad.engines import ForwardEngine, HessianEngine, ReverseEngine, Slot, scalar_as_array
from srcad.errors import ArgumentError
from srcad.pipeline import UNROLL_MAX_WIDTH


def _public(operator):
    """Every operator and preparation: the plain function behind f, its defaults filled in."""
    @functools.wraps(operator)
    def wrapper(f, *args, **options):
        f = _target(f)
        return operator(f, *bind_arguments(f, args), **options)
    return wrapper


def _check_shape(what, array, shape):
    if np.shape(array) != tuple(shape):
        raise ArgumentError(f"{what} has shape {np.shape(array)}, expected {tuple(shape)}")


class PreparationMismatchError(ArgumentError):
    """A preparation used with another function, other argument kinds, shapes or dtypes."""


def _describe(value) -> str:
    if isinstance(value, np.ndarray):
        return f"{value.dtype} array {value.shape}"
    return type(value).__name__


@dataclass
class Prep:
    """What `prepare_<operator>` builds: engines, buffers and the signature they fit."""

    operator: str
    function: object
    roles: tuple
    signature: tuple  # per argument: (type, shape, dtype)
    mode: str
    chunk: int
    engine: object
    state: dict

    def check(self, operator, f, slots):
        same_fn = f is self.function and operator == self.operator
        rows, ok = [], same_fn
        for i, slot in enumerate(slots):
            got = _signature(slot.value)
            expected = self.signature[i] if i < len(self.signature) else None
            match = got == expected and slot.role == self.roles[i] if expected else False
            ok = ok and match
            rows.append(f"  argument {i} ({slot.role}): "
                        + ("matches" if match else f"prepared {self.roles[i] if expected else '-'}"
                           f" {expected}, got {got}"))
        if not ok or len(slots) != len(self.signature):
            head = "preparation does not match this call"
            if not same_fn:
                head += (f" (it was prepared for {self.operator} of "
                         f"{getattr(self.function, '__name__', self.function)})")
            raise PreparationMismatchError(head + ":\n" + "\n".join(rows),
                                           hint=f"call prepare_{operator} again")


def _signature(value):
    if isinstance(value, np.ndarray):
        return ("array", value.shape, value.dtype.str)
    return (type(value).__name__, (), None)


def _slots(args) -> list[Slot]:
    slots = []
    for arg in args:
        if isinstance(arg, Constant):
            slots.append(Slot("constant", arg.value))
        elif isinstance(arg, Cache):
            slots.append(Slot("cache", _float_array(arg.value, "Cache")))
        elif isinstance(arg, Output):
            slots.append(Slot("output", _float_array(arg.value, "Output")))
        else:
            slots.append(Slot("x", arg))
    xs = [s for s in slots if s.role == "x"]
    if len(xs) != 1:
        raise ArgumentError(f"exactly one argument must be bare (the input to differentiate "
                            f"with respect to); got {len(xs)}",
                            hint="wrap the others in Constant(...), Cache(...) or Output(...)")
    x = xs[0].value
    if isinstance(x, np.ndarray):
        _float_array(x, "the input")
    elif not isinstance(x, (float, np.floating)):
        raise ArgumentError(f"the input must be a float or a float array, got "
                            f"{type(x).__name__}", hint="pass 3.0, not 3")
    return slots


def _float_array(value, what):
    if not isinstance(value, np.ndarray) or value.dtype.kind != "f":
        raise ArgumentError(f"{what} must be a float NumPy array, got {_describe(value)}")
    return value


def _x(slots) -> Slot:
    return next(s for s in slots if s.role == "x")


def _values(slots):
    return [s.value for s in slots]


def _out_kind(f, slots):
    """("output", array) | ("array", shape) | ("float", None): what f produces."""
    outputs = [s for s in slots if s.role == "output"]
    if outputs:
        return "output", outputs[0].value
    copies = [s.value.copy() if isinstance(s.value, np.ndarray) else s.value for s in slots]
    result = f(*copies)
    if isinstance(result, np.ndarray):
        return "array", np.zeros_like(result, dtype=float)
    if isinstance(result, (float, np.floating, int)):
        return "float", None
    raise ArgumentError(f"f returned {type(result).__name__}; operators need a float, a float "
                        "array, or an Output(y) argument")


def _prep(operator, f, slots, mode, chunk, engine, **state) -> Prep:
    return Prep(operator, f, tuple(s.role for s in slots),
                tuple(_signature(s.value) for s in slots), mode, chunk, engine, state)


def _use(operator, f, args, prep, preparer, **options):
    slots = _slots(args)
    if prep is None:
        prep = preparer(f, *args, **options)
    else:
        prep.check(operator, f, slots)
    prep.engine.set_values(_values(slots))
    return prep, slots


def _stacked(width, backend) -> bool:
    """Lanes in arrays (numba, or wide batches) rather than unrolled into floats."""
    return backend == "numba" or width > UNROLL_MAX_WIDTH


NUMBA_MAX_CHUNK = 256


def _chunk(n, chunk, backend="python"):
    """Lanes per call. python: min(n, 16) lanes unrolled into floats, so a prepared call
    allocates no arrays (chunk > 16 keeps lanes in NumPy vectors: on seed 002, n = 100, one
    call of 100 lanes is ~9x faster than 7 calls of 16, but every operation allocates).
    numba: min(n, 256) lanes in arrays, looped over; no temporaries either way."""
    if chunk is not None:
        return max(1, int(chunk))
    return max(1, min(n, NUMBA_MAX_CHUNK if backend == "numba" else UNROLL_MAX_WIDTH))


# -- gradient ---------------------------------------------------------------------------------
@_public
def prepare_gradient(f, *args, mode=None, chunk=None, backend="python") -> Prep:
    slots = _slots(args)
    kind, _ = _out_kind(f, slots)
    if kind != "float":
        raise ArgumentError("gradient needs f to return a float", hint="use jacobian")
    x = _x(slots).value
    if mode == "forward":
        n = np.size(x)
        width = _chunk(n, chunk, backend)
        engine = ForwardEngine(f, slots, width, _stacked(width, backend), backend)
        return _prep("gradient", f, slots, "forward", width, engine,
                     buffer=np.zeros_like(x) if isinstance(x, np.ndarray) else None)
    engine = ReverseEngine(f, slots, backend)
    return _prep("gradient", f, slots, "reverse", 1, engine,
                 buffer=np.zeros_like(x) if isinstance(x, np.ndarray) else None)


@_public
def value_and_gradient(f, *args, prep=None, out=None, mode=None, chunk=None, backend="python"):
    """(f(x), gradient of f at x).

    >>> def f(x):
    ...     return x[0] * x[1]
    >>> value_and_gradient(f, np.array([2.0, 3.0]))
    (6.0, array([3., 2.]))
    """
    prep, slots = _use("gradient", f, args, prep, prepare_gradient, mode=mode, chunk=chunk,
                       backend=backend)
    x = _x(slots).value
    if out is not None:
        _check_shape("out", out, np.shape(x))
    buffer = out if out is not None else prep.state["buffer"]
    if prep.mode == "reverse":
        value, adjoints = prep.engine.run(x_bar=buffer)
        if buffer is None:
            return value, float(adjoints[0])
        return value, buffer if out is not None else buffer.copy()
    engine, n = prep.engine, np.size(x)
    grad = buffer if buffer is not None else np.zeros(1)
    flat = grad.reshape(-1)
    value = f(*_values(slots)) if n == 0 else None  # no lane to run: just the value
    for start in range(0, n, engine.width):
        engine.seed_basis(start, n)
        value, tangents = engine.run()
        for k in range(min(engine.width, n - start)):
            flat[start + k] = engine.output_tangent(k, tangents)
    if buffer is None:
        return value, float(flat[0])
    return value, grad if out is not None else grad.copy()


prepare_value_and_gradient = prepare_gradient


@_public
def gradient(f, *args, prep=None, out=None, mode=None, chunk=None, backend="python"):
    """Gradient of a float-valued f at x (reverse mode unless mode="forward")."""
    return value_and_gradient(f, *args, prep=prep, out=out, mode=mode, chunk=chunk,
                              backend=backend)[1]


# -- jacobian ---------------------------------------------------------------------------------
@_public
def prepare_jacobian(f, *args, mode=None, chunk=None, backend="python") -> Prep:
    slots = _slots(args)
    kind, template = _out_kind(f, slots)
    if kind == "float":
        raise ArgumentError("jacobian needs an array output (returned, or Output(y))",
                            hint="use gradient for float-valued functions")
    n, m = np.size(_x(slots).value), template.size
    mode = mode or ("forward" if n <= m else "reverse")
    if mode == "forward":
        width = _chunk(n, chunk, backend)
        engine = ForwardEngine(f, slots, width, _stacked(width, backend), backend)
        return _prep("jacobian", f, slots, "forward", width, engine, n=n, m=m)
    engine = ReverseEngine(f, slots, backend)
    if kind == "array":
        engine.flat[engine.seed_index] = np.zeros_like(template)
    x = _x(slots).value
    return _prep("jacobian", f, slots, "reverse", 1, engine, n=n, m=m,
                 row=np.zeros_like(x) if isinstance(x, np.ndarray) else None)


@_public
def value_and_jacobian(f, *args, prep=None, out=None, mode=None, chunk=None, backend="python"):
    """(f's output, jacobian d output / d x) as a (output size, input size) array."""
    prep, slots = _use("jacobian", f, args, prep, prepare_jacobian, mode=mode, chunk=chunk,
                       backend=backend)
    n, m = prep.state["n"], prep.state["m"]
    J = out if out is not None else np.empty((m, n))
    _check_shape("out", J, (m, n))
    engine = prep.engine
    value = None
    if (n == 0 or m == 0) and [s for s in slots if s.role == "output"]:
        f(*_values(slots))
    if prep.mode == "forward":
        for start in range(0, n, engine.width):
            engine.seed_basis(start, n)
            value, tangents = engine.run()
            engine.write_columns(J, start, min(engine.width, n - start), tangents)
    else:
        row = prep.state["row"]
        for i in range(m):
            value, adjoints = engine.run(x_bar=row, basis=i)
            J[i, :] = row.reshape(-1) if row is not None else adjoints[0]
    outputs = [s.value for s in slots if s.role == "output"]
    if outputs:
        return outputs[0], J
    if value is None:  # nothing to differentiate (an empty input or output): just the value
        value = f(*_values(slots))
    return value, J


prepare_value_and_jacobian = prepare_jacobian


@_public
def jacobian(f, *args, prep=None, out=None, mode=None, chunk=None, backend="python"):
    """Jacobian of f at x; with out=J fills J in place and returns it."""
    return value_and_jacobian(f, *args, prep=prep, out=out, mode=mode, chunk=chunk,
                              backend=backend)[1]


# -- derivative, pushforward, pullback ----------------------------------------------------------
@_public
def prepare_pushforward(f, *args, tangent=None, mode=None, chunk=None,
                        backend="python") -> Prep:
    slots = _slots(args)
    kind, template = _out_kind(f, slots)
    batch = tangent is not None and isinstance(tangent, (tuple, list))
    width = len(tangent) if batch else 1
    engine = ForwardEngine(f, slots, width, _stacked(width, backend), backend)
    return _prep("pushforward", f, slots, "forward", width, engine, kind=kind, batch=batch)


@_public
def pushforward(f, *args, tangent, prep=None, out=None, mode=None, chunk=None,
                backend="python"):
    """J v (jvp) for a tangent v shaped like x; a tuple of tangents gives a tuple of results."""
    prep, _ = _use("pushforward", f, args, prep, prepare_pushforward, tangent=tangent,
                   backend=backend)
    tangents_in = tangent if prep.state["batch"] else (tangent,)
    if len(tangents_in) != prep.chunk:
        raise PreparationMismatchError(f"prepared for {prep.chunk} tangents, got "
                                       f"{len(tangents_in)}")
    x = _x(_slots(args)).value
    for t in tangents_in:
        _check_shape("tangent", t, np.shape(x))
    engine = prep.engine
    engine.seed(tangents_in)
    _, tangents = engine.run()
    results = []
    for k in range(prep.chunk):
        t = engine.output_tangent(k, tangents)
        if isinstance(t, np.ndarray):
            target = out[k] if (out is not None and prep.state["batch"]) else out
            if target is not None:
                target[...] = t
                t = target
            else:
                t = t.copy()
        else:
            t = float(t)
        results.append(t)
    return tuple(results) if prep.state["batch"] else results[0]


@_public
def prepare_derivative(f, *args, mode=None, chunk=None, backend="python") -> Prep:
    prep = prepare_pushforward(f, *args, tangent=1.0, backend=backend)
    prep.operator = "derivative"
    return prep


@_public
def derivative(f, *args, prep=None, out=None, mode=None, chunk=None, backend="python"):
    """d f / d x for a float input x (the output may be a float or an array)."""
    if not isinstance(_x(_slots(args)).value, (float, np.floating)):
        raise ArgumentError("derivative needs a float input", hint="use jacobian or gradient")
    prep = prep or prepare_derivative(f, *args, backend=backend)
    prep.check("derivative", f, _slots(args))
    prep.operator = "pushforward"
    try:
        return pushforward(f, *args, tangent=1.0, prep=prep, out=out)
    finally:
        prep.operator = "derivative"


@_public
def prepare_pullback(f, *args, cotangent=None, mode=None, chunk=None,
                     backend="python") -> Prep:
    slots = _slots(args)
    kind, template = _out_kind(f, slots)
    engine = ReverseEngine(f, slots, backend)
    if kind == "array":
        engine.flat[engine.seed_index] = np.zeros_like(template)
    x = _x(slots).value
    return _prep("pullback", f, slots, "reverse", 1, engine, kind=kind,
                 buffer=np.zeros_like(x) if isinstance(x, np.ndarray) else None)


@_public
def pullback(f, *args, cotangent, prep=None, out=None, mode=None, chunk=None,
             backend="python"):
    """u^T J (vjp) for a cotangent u shaped like the output; the result is shaped like x."""
    prep, _ = _use("pullback", f, args, prep, prepare_pullback, cotangent=cotangent,
                   backend=backend)
    buffer = out if out is not None else prep.state["buffer"]
    engine = prep.engine
    x = _x(_slots(args)).value
    if out is not None:
        _check_shape("out", out, np.shape(x))
    if prep.state["kind"] == "array":
        _check_shape("cotangent", cotangent, np.shape(engine.flat[engine.seed_index]))
    elif prep.state["kind"] == "output":
        _check_shape("cotangent", cotangent, np.shape(engine.output_shadow))
    elif np.ndim(cotangent):
        raise ArgumentError("f returns a float: the cotangent is a float")
    if prep.state["kind"] == "array":
        engine.flat[engine.seed_index][...] = cotangent
        _, adjoints = engine.run(x_bar=buffer, cotangent=engine.flat[engine.seed_index])
    else:
        _, adjoints = engine.run(x_bar=buffer, cotangent=cotangent)
    if buffer is None:
        return float(adjoints[0])
    return buffer if out is not None else buffer.copy()


# -- second order: forward over reverse ---------------------------------------------------------
@_public
def prepare_hvp(f, *args, tangent=None, mode=None, chunk=None, backend="python") -> Prep:
    return _prepare_second("hvp", f, args, 1, backend)


def _prepare_second(operator, f, args, width, backend="python") -> Prep:
    slots = _slots(args)
    if any(s.role == "output" for s in slots):
        raise ArgumentError(f"{operator} needs a float-valued f (no Output argument)")
    x = _x(slots)
    target = f
    if not x.is_array:
        position = [s.role for s in slots].index("x")
        target = scalar_as_array(f, len(slots), position)
        slots = list(slots)
        slots[position] = Slot("x", np.array([float(x.value)]))
    engine = HessianEngine(target, slots, width, backend)
    prep = _prep(operator, f, _slots(args), "forward-over-reverse", width, engine,
                 scalar=not x.is_array, n=np.size(x.value))
    return prep


def _second_values(prep, slots):
    values = _values(slots)
    if prep.state["scalar"]:
        position = [s.role for s in slots].index("x")
        box = prep.state.setdefault("box", np.zeros(1))
        box[0] = values[position]
        values[position] = box
    prep.engine.set_values(values)


@_public
def hvp(f, *args, tangent, prep=None, out=None, mode=None, chunk=None, backend="python"):
    """H v, the Hessian of a float-valued f at x times v (forward over reverse)."""
    slots = _slots(args)
    prep = prep or prepare_hvp(f, *args, backend=backend)
    prep.check("hvp", f, slots)
    _second_values(prep, slots)
    engine = prep.engine.engine
    expected = () if prep.state["scalar"] else engine.x_lanes[0].shape
    _check_shape("tangent", tangent, expected)
    if out is not None:
        _check_shape("out", out, expected)
    engine.seed([np.reshape(np.asarray(tangent, dtype=float), engine.x_lanes[0].shape)])
    engine.run()
    result = engine.output_lanes[0]
    if prep.state["scalar"]:
        return float(result[0])
    if out is not None:
        out[...] = result
        return out
    return result.copy()


@_public
def prepare_hessian(f, *args, mode=None, chunk=None, backend="python") -> Prep:
    x = _x(_slots(args)).value
    return _prepare_second("hessian", f, args, _chunk(np.size(x), chunk), backend)


@_public
def hessian(f, *args, prep=None, out=None, mode=None, chunk=None, backend="python"):
    """The Hessian of a float-valued f at x, an (n, n) array (chunks of forward-over-reverse
    lanes)."""
    slots = _slots(args)
    prep = prep or prepare_hessian(f, *args, chunk=chunk, backend=backend)
    prep.check("hessian", f, slots)
    _second_values(prep, slots)
    n = prep.state["n"]
    H = out if out is not None else np.empty((n, n))
    _check_shape("out", H, (n, n))
    engine = prep.engine.engine
    for start in range(0, n, engine.width):
        engine.seed_basis(start, n)
        engine.run()
        for k in range(min(engine.width, n - start)):
            H[:, start + k] = engine.output_lanes[k].reshape(-1)
    return H


@_public
def prepare_second_derivative(f, *args, mode=None, chunk=None, backend="python") -> Prep:
    prep = _prepare_second("second_derivative", f, args, 1, backend)
    if not prep.state["scalar"]:
        raise ArgumentError("second_derivative needs a float input", hint="use hessian")
    return prep


@_public
def second_derivative(f, *args, prep=None, out=None, mode=None, chunk=None, backend="python"):
    """d^2 f / d x^2 for a float input and a float-valued f."""
    slots = _slots(args)
    prep = prep or prepare_second_derivative(f, *args, backend=backend)
    prep.check("second_derivative", f, slots)
    _second_values(prep, slots)
    engine = prep.engine.engine
    engine.seed([np.ones(1)])
    engine.run()
    return float(engine.output_lanes[0][0])
