"""The gradient operators: `gradient`, `value_and_gradient` and `prepare_gradient` (reverse mode,
one pass, unless mode="forward"; srcad/operators/first_order.py describes what all operators share).
"""

from __future__ import annotations

from typing import Any

import numpy as np

from srcad.build.engines import ReverseEngine, primal_value
from srcad.build.plans import MISS
from srcad.hints import Backend, Function, Memory, OperatorMode, Point
from srcad.operators.operator_options import (
    check_memory,
    check_options,
    check_out,
    memory_key,
    memory_option,
    refuse_float_out,
)
from srcad.operators.output_kinds import float_engine
from srcad.operators.parallel_operators import parallel_option
from srcad.operators.prep_cache import reusing_preparations
from srcad.operators.preparation import (
    Prep,
    forward_engine,
    input_slot,
    make_prep,
    operator_entry,
    prepared_call,
    read_arguments,
    use_prep,
)


def _code_of_f(engine):
    return engine.compiled


@operator_entry
@parallel_option("prepare_gradient")
def prepare_gradient(f: Function, *args: Any, mode: OperatorMode = None, chunk: int | None = None,
                     backend: Backend | None = "python", memory: Memory = None) -> Prep:
    """Prepare `gradient` and `value_and_gradient` of f at arguments like `args`.

    Transforms and compiles f, chooses the mode (reverse, one pass, unless mode="forward") and
    the chunk, and allocates every shadow and result buffer once. Pass the result as `prep=`:
    it fits every call whose arguments have the same kinds, shapes and dtypes (the values may
    differ), and raises `PreparationMismatchError` otherwise.


    Args:
        f: the function; it returns a float.
        *args: f's arguments: exactly one bare, x (a float or a float array), the others
            `Constant`, `Cache` or `Output` contexts.
        mode: "forward" or "reverse" (chosen when not given).
        chunk: the number of tangent lanes per forward call.
        backend: "python" or "numba".
        memory: reverse mode: a checkpointing budget (bytes or "50MB").

    Returns:
        The preparation, to pass as `prep=` to `gradient` or `value_and_gradient`.

    >>> def f(x):
    ...     return x[0] * x[1]
    >>> prep = prepare_gradient(f, np.zeros(2))
    >>> gradient(f, np.array([2.0, 3.0]), prep=prep)
    array([3., 2.])
    """
    check_options("gradient", mode, chunk, backend)
    memory = memory_option("gradient", mode, memory)
    backend = backend or "python"
    slots = read_arguments(args)
    x = input_slot(slots).value
    if mode == "forward":
        engine = float_engine("gradient", f, slots, lambda: forward_engine(
            f, slots, np.size(x), chunk, backend), _code_of_f, hint="use jacobian")
        return make_prep("gradient", f, slots, "forward", engine.width, engine,
                     buffer=np.zeros_like(x) if isinstance(x, np.ndarray) else None)
    engine = float_engine("gradient", f, slots, lambda: ReverseEngine(
        f, slots, backend, memory=memory), _code_of_f, hint="use jacobian")
    return make_prep("gradient", f, slots, "reverse", 1, engine,
                 buffer=np.zeros_like(x) if isinstance(x, np.ndarray) else None)


@operator_entry
@parallel_option("value_and_gradient")
@reusing_preparations("gradient", prepare_gradient, memory_key)
def value_and_gradient(f: Function, *args: Any, prep: Prep | None = None,
                       out: np.ndarray | None = None, mode: OperatorMode = None,
                       chunk: int | None = None, backend: Backend | None = None,
                       memory: Memory = None) -> tuple[float, Point]:
    """(f(x), gradient of f at x). With out=g the gradient is g itself, refilled by each call
    (a caller that keeps it, like scipy's BFGS, must not pass out=).


    Args:
        f: the function; it returns a float.
        *args: f's arguments: exactly one bare, x (a float or a float array), the others
            `Constant`, `Cache` or `Output` contexts.
        prep: a preparation of `prepare_gradient` for arguments like these (made here and
            kept when not given).
        out: an array shaped like x to write the gradient into.
        mode: "forward" or "reverse" (chosen when not given).
        chunk: the number of tangent lanes per forward call.
        backend: "python" or "numba".
        memory: reverse mode: a checkpointing budget (bytes or "50MB").

    Returns:
        `(value, gradient)`: f's value (a float) and the gradient, shaped like x.

    >>> def f(x):
    ...     return x[0] * x[1]
    >>> value, grad = value_and_gradient(f, np.array([2.0, 3.0]))
    >>> print(value, grad)
    6.0 [3. 2.]
    """
    return _value_and_gradient(f, args, prep, out, mode, chunk, backend, memory)


def _value_and_gradient(f, args, prep, out, mode, chunk, backend, memory=None):
    if prep is not None and prep.run is not None and prep.function is f \
            and prep.operator == "gradient" and mode is None and chunk is None \
            and backend is None and memory is None:
        result = prep.run(args, out)  # a reverse gradient's whole call (srcad/build/plans.py)
        if result is not MISS:
            return result
    slots = None
    if prep is not None:
        prep.check_options(mode, chunk, backend)
        check_memory(prep, memory)
        slots = prepared_call("gradient", f, args, prep)
    if slots is None:
        prep, slots = use_prep("gradient", f, args, prep, prepare_gradient, mode=mode,
                               chunk=chunk, backend=backend, memory=memory)
    x = slots[prep.x].value
    if out is not None and (type(out) is not np.ndarray or type(x) is not np.ndarray
                            or out.shape != x.shape or out.dtype.kind != "f"):
        if not isinstance(x, np.ndarray):
            refuse_float_out("gradient of a float x")
        check_out(out, np.shape(x))
    buffer = out if out is not None else prep.state["buffer"]
    if prep.mode == "reverse":
        value, adjoints = prep.engine.run(x_bar=buffer)
        if buffer is None:
            return value, float(adjoints[0])
        return value, buffer if out is not None else buffer.copy()
    engine, n = prep.engine, np.size(x)
    grad = buffer if buffer is not None else np.zeros(1)
    if not grad.flags.c_contiguous:  # a strided `out`: work in the preparation's buffer
        grad = prep.state["buffer"]
    row = grad.reshape(1, -1)  # the gradient is the jacobian's one row (a view)
    value = primal_value(engine, f) if n == 0 else None  # no lane to run: just the value
    for start in range(0, n, engine.width):
        engine.seed_basis(start, n)
        value, tangents = engine.run()
        engine.write_columns(row, start, min(engine.width, n - start), tangents)
    if buffer is None:
        return value, float(row[0, 0])
    if out is not None:
        if grad is not out:
            out[...] = grad
        return value, out
    return value, grad.copy()


prepare_value_and_gradient = prepare_gradient


@operator_entry
@parallel_option("gradient")
@reusing_preparations("gradient", prepare_gradient, memory_key)
def gradient(f: Function, *args: Any, prep: Prep | None = None, out: np.ndarray | None = None,
             mode: OperatorMode = None, chunk: int | None = None,
             backend: Backend | None = None, memory: Memory = None) -> Point:
    """Gradient of a float-valued f at x (reverse mode unless mode="forward"; chunk= only
    with mode="forward").

    The one bare argument is x, a float or a float array; the others are `Constant`, `Cache`
    or `Output` contexts. The gradient is shaped like x (a float for a float x). With out=g
    it is written into g, which is returned and refilled by the next call with it: a caller
    that keeps the returned array (scipy's BFGS) must not pass out=.


    Args:
        f: the function; it returns a float.
        *args: f's arguments: exactly one bare, x (a float or a float array), the others
            `Constant`, `Cache` or `Output` contexts.
        prep: a preparation of `prepare_gradient` for arguments like these (made here and
            kept when not given).
        out: an array shaped like x to write the gradient into.
        mode: "forward" or "reverse" (chosen when not given).
        chunk: the number of tangent lanes per forward call.
        backend: "python" or "numba".
        memory: reverse mode: a checkpointing budget (bytes or "50MB").

    Returns:
        The gradient, shaped like x (a float for a float x); `out` itself when given.

    >>> from srcad import Constant
    >>> def f(x, a):
    ...     return a * x[0] * x[1]
    >>> gradient(f, np.array([2.0, 3.0]), Constant(10.0))
    array([30., 20.])
    """
    return _value_and_gradient(f, args, prep, out, mode, chunk, backend, memory)[1]
