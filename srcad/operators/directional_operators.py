"""The directional operators: `pushforward` (J v), `pullback` (u^T J) and `derivative`.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import numpy as np

from srcad.build.engines import ReverseEngine
from srcad.errors import ArgumentError
from srcad.hints import Backend, Function, Memory, OperatorMode, Point
from srcad.operators.operator_options import (
    check_memory,
    check_options,
    check_out,
    check_shape,
    memory_key,
    memory_option,
    refuse_float_out,
    refuse_memory,
)
from srcad.operators.output_kinds import output_kind
from srcad.operators.parallel_operators import parallel_option
from srcad.operators.prep_cache import reusing_preparations, tangent_count
from srcad.operators.preparation import (
    Prep,
    PreparationMismatchError,
    input_slot,
    lanes_engine,
    make_prep,
    operator_entry,
    read_arguments,
    use_prep,
)


@operator_entry
@parallel_option("prepare_pushforward")
def prepare_pushforward(f: Function, *args: Any, tangent: Point | Sequence[Point] | None = None,
                        mode: OperatorMode = None, chunk: int | None = None,
                        backend: Backend | None = "python",
                        memory: Memory = None) -> Prep:
    """Prepare `pushforward` of f at arguments like `args`, for one tangent (shaped like x) or
    a tuple of W tangents propagated together in one vector-mode call.

    Args:
        f: the function; it returns a float or a float array, or writes an array passed
            as `Output(y)`.
        *args: f's arguments: exactly one bare, x (a float or a float array), the others
            `Constant`, `Cache` or `Output` contexts.
        tangent: a tangent shaped like x, or a tuple of them.
        mode: "forward" (the only mode of a pushforward) or None.
        chunk: refused: the lanes are the tangents.
        backend: "python" or "numba".
        memory: refused: forward mode keeps no tape.

    Returns:
        The preparation, to pass as `prep=` to `pushforward`.

    >>> def f(x):
    ...     return x[0] * x[1]
    >>> prep = prepare_pushforward(f, np.zeros(2), tangent=np.zeros(2))
    >>> pushforward(f, np.array([2.0, 3.0]), tangent=np.array([1.0, 1.0]), prep=prep)
    5.0
    """
    refuse_memory("pushforward", memory)
    check_options("pushforward", mode, chunk, backend)
    backend = backend or "python"
    slots = read_arguments(args)
    batch = tangent is not None and isinstance(tangent, (tuple, list))
    width = len(tangent) if batch else 1
    engine = lanes_engine(f, slots, width, backend)
    kind, template = output_kind(f, slots, engine.compiled)
    return make_prep("pushforward", f, slots, "forward", width, engine, kind=kind, batch=batch,
                     shape=() if kind == "float" else np.shape(template))


@operator_entry
@parallel_option("pushforward")
@reusing_preparations("pushforward", prepare_pushforward, tangent_count)
def pushforward(f: Function, *args: Any, tangent: Point | Sequence[Point], prep: Prep | None = None,
                out: np.ndarray | Sequence[np.ndarray] | None = None, mode: OperatorMode = None,
                chunk: int | None = None,
                backend: Backend | None = None,
                memory: Memory = None) -> Point | tuple[Point, ...]:
    """J v (jvp) for a tangent v shaped like x; a tuple of tangents gives a tuple of results.
    Forward mode only (mode=None or "forward"); the lanes are the tangents (no chunk=).
    With out= (a tuple of arrays for a tuple of tangents) the results are those arrays.


    Args:
        f: the function; it returns a float or a float array, or writes an array passed
            as `Output(y)`.
        *args: f's arguments: exactly one bare, x (a float or a float array), the others
            `Constant`, `Cache` or `Output` contexts.
        tangent: v, shaped like x, or a tuple of tangents.
        prep: a preparation of `prepare_pushforward` for arguments like these.
        out: an array shaped like f's output (a tuple of them for a tuple of tangents).
        mode: "forward" or None.
        chunk: refused: the lanes are the tangents.
        backend: "python" or "numba".
        memory: refused: forward mode keeps no tape.

    Returns:
        J v, shaped like f's output (a tuple for a tuple of tangents); `out` when given.

    >>> def f(x):
    ...     return x[0] * x[1]
    >>> pushforward(f, np.array([2.0, 3.0]), tangent=np.array([1.0, 1.0]))
    5.0
    """
    refuse_memory("pushforward", memory)
    prep, _ = use_prep("pushforward", f, args, prep, prepare_pushforward, tangent=tangent,
                       mode=mode, chunk=chunk, backend=backend)
    tangents_in = tangent if prep.state["batch"] else (tangent,)
    if len(tangents_in) != prep.chunk:
        raise PreparationMismatchError(f"prepared for {prep.chunk} tangents, got "
                                       f"{len(tangents_in)}")
    x = input_slot(read_arguments(args)).value
    for t in tangents_in:
        check_shape("tangent", t, np.shape(x))
    engine = prep.engine
    if out is not None:
        _check_pushforward_out(prep, out)
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


def _check_pushforward_out(prep, out):
    """out= of a pushforward: an array (a tuple of W arrays for W tangents) shaped like the
    output; refused for a float output."""
    if prep.state["kind"] == "float":
        refuse_float_out(prep.operator)
    shape = prep.state["shape"]
    if not prep.state["batch"]:
        check_out(out, shape)
        return
    if not isinstance(out, tuple) or len(out) != prep.chunk:
        raise ArgumentError(f"out= of a pushforward of {prep.chunk} tangents is a tuple of "
                            f"{prep.chunk} arrays", construct="out")
    for buffer in out:
        check_out(buffer, shape)


@operator_entry
@parallel_option("prepare_derivative")
def prepare_derivative(f: Function, *args: Any, mode: OperatorMode = None, chunk: int | None = None,
                       backend: Backend | None = "python",
                       memory: Memory = None) -> Prep:
    """Prepare `derivative` of f (a float input x) at arguments like `args`: one forward-mode
    lane.

    Args:
        f: the function; it returns a float or a float array, or writes an array passed
            as `Output(y)`.
        *args: f's arguments: exactly one bare, x (a float or a float array), the others
            `Constant`, `Cache` or `Output` contexts.
        mode: "forward" or None.
        chunk: refused: one lane.
        backend: "python" or "numba".
        memory: refused: forward mode keeps no tape.

    Returns:
        The preparation, to pass as `prep=` to `derivative`.

    >>> def f(x):
    ...     return x * x * x
    >>> prep = prepare_derivative(f, 1.0)
    >>> derivative(f, 2.0, prep=prep)
    12.0
    """
    refuse_memory("derivative", memory)
    check_options("derivative", mode, chunk, backend)
    prep = prepare_pushforward(f, *args, tangent=1.0, backend=backend)
    prep.operator = "derivative"
    return prep


@operator_entry
@parallel_option("derivative")
@reusing_preparations("derivative", prepare_derivative)
def derivative(f: Function, *args: Any, prep: Prep | None = None, out: np.ndarray | None = None,
               mode: OperatorMode = None, chunk: int | None = None,
               backend: Backend | None = None,
               memory: Memory = None) -> Point:
    """d f / d x for a float input x (the output may be a float or an array); forward mode.


    Args:
        f: the function; it returns a float or a float array, or writes an array passed
            as `Output(y)`.
        *args: f's arguments: exactly one bare, x (a float or a float array), the others
            `Constant`, `Cache` or `Output` contexts.
        prep: a preparation of `prepare_derivative` for arguments like these.
        out: an array shaped like f's output, for an array output.
        mode: "forward" or None.
        chunk: refused: one lane.
        backend: "python" or "numba".
        memory: refused: forward mode keeps no tape.

    Returns:
        d f / d x, shaped like f's output (a float for a float output).

    >>> def f(x):
    ...     return x * x * x
    >>> derivative(f, 2.0)
    12.0
    """
    refuse_memory("derivative", memory)
    if not isinstance(input_slot(read_arguments(args)).value, (float, np.floating)):
        raise ArgumentError("derivative needs a float input", hint="use jacobian or gradient")
    if prep is None:
        prep = prepare_derivative(f, *args, mode=mode, chunk=chunk, backend=backend)
    else:
        prep.check_options(mode, chunk, backend)
    prep.check("derivative", f, read_arguments(args))
    prep.operator = "pushforward"
    try:
        return pushforward(f, *args, tangent=1.0, prep=prep, out=out)
    finally:
        prep.operator = "derivative"


@operator_entry
@parallel_option("prepare_pullback")
def prepare_pullback(f: Function, *args: Any, cotangent: Point | None = None,
                     mode: OperatorMode = None, chunk: int | None = None,
                     backend: Backend | None = "python", memory: Memory = None) -> Prep:
    """Prepare `pullback` of f at arguments like `args`: one reverse pass per call, with the
    cotangent (shaped like f's output) given at each call.

    Args:
        f: the function; it returns a float or a float array, or writes an array passed
            as `Output(y)`.
        *args: f's arguments: exactly one bare, x (a float or a float array), the others
            `Constant`, `Cache` or `Output` contexts.
        cotangent: a cotangent shaped like f's output (optional: given at each call).
        mode: "reverse" (the only mode of a pullback) or None.
        chunk: refused: one reverse pass.
        backend: "python" or "numba".
        memory: a checkpointing budget (bytes or "50MB").

    Returns:
        The preparation, to pass as `prep=` to `pullback`.

    >>> def f(x):
    ...     return x * x
    >>> prep = prepare_pullback(f, np.zeros(2))
    >>> pullback(f, np.array([2.0, 3.0]), cotangent=np.array([1.0, 1.0]), prep=prep)
    array([4., 6.])
    """
    check_options("pullback", mode, chunk, backend)
    backend = backend or "python"
    slots = read_arguments(args)
    engine = ReverseEngine(f, slots, backend, memory=memory_option("pullback", mode, memory))
    kind, template = output_kind(f, slots, engine.compiled)
    if kind == "array":
        engine.flat[engine.seed_index] = np.zeros_like(template)
    x = input_slot(slots).value
    return make_prep("pullback", f, slots, "reverse", 1, engine, kind=kind,
                 buffer=np.zeros_like(x) if isinstance(x, np.ndarray) else None)


@operator_entry
@parallel_option("pullback")
@reusing_preparations("pullback", prepare_pullback, memory_key)
def pullback(f: Function, *args: Any, cotangent: Point, prep: Prep | None = None,
             out: np.ndarray | None = None, mode: OperatorMode = None, chunk: int | None = None,
             backend: Backend | None = None, memory: Memory = None) -> Point:
    """u^T J (vjp) for a cotangent u shaped like the output; the result is shaped like x.
    Reverse mode only (mode=None or "reverse"), one pass (no chunk=). With out= the result
    is `out` itself, refilled by the next call with it.


    Args:
        f: the function; it returns a float or a float array, or writes an array passed
            as `Output(y)`.
        *args: f's arguments: exactly one bare, x (a float or a float array), the others
            `Constant`, `Cache` or `Output` contexts.
        cotangent: u, shaped like f's output.
        prep: a preparation of `prepare_pullback` for arguments like these.
        out: an array shaped like x to write the result into.
        mode: "reverse" or None.
        chunk: refused: one reverse pass.
        backend: "python" or "numba".
        memory: a checkpointing budget (bytes or "50MB").

    Returns:
        u^T J, shaped like x; `out` itself when given.

    >>> def f(x):
    ...     y = np.zeros(2)
    ...     y[0] = x[0] * x[1]
    ...     y[1] = 3.0 * x[1]
    ...     return y
    >>> pullback(f, np.array([2.0, 5.0]), cotangent=np.array([1.0, 1.0]))
    array([5., 5.])
    """
    if prep is not None:
        check_memory(prep, memory)
    prep, _ = use_prep("pullback", f, args, prep, prepare_pullback, cotangent=cotangent,
                       mode=mode, chunk=chunk, backend=backend, memory=memory)
    buffer = out if out is not None else prep.state["buffer"]
    engine = prep.engine
    x = input_slot(read_arguments(args)).value
    if out is not None:
        if not isinstance(x, np.ndarray):
            refuse_float_out("pullback to a float x")
        check_out(out, np.shape(x))
    if prep.state["kind"] == "array":
        check_shape("cotangent", cotangent, np.shape(engine.flat[engine.seed_index]))
    elif prep.state["kind"] == "output":
        check_shape("cotangent", cotangent, np.shape(engine.output_shadow))
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
