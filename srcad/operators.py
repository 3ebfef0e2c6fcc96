"""Operators with preparation, in the manner of DifferentiationInterface.jl.

`op(f, *args, prep=None, out=None, mode=None, chunk=None)`: exactly one argument is bare, the
input x we differentiate with respect to (a float or a float array); the others are
`Constant(c)`, `Cache(c)` or `Output(y)`. `prepare_op(f, *args, ...)` transforms, compiles,
chooses mode and chunk and allocates every seed, shadow and result buffer once; the prepared
call then refills those buffers in place. x and Constant contexts are never modified (when f
writes x, it runs on a copy the preparation holds).

`out=` aliasing: with `out=`, the result returned IS `out`, and the next call with the same
`out` overwrites it. A caller that keeps the arrays it is given (scipy's BFGS keeps the
previous gradient) must get a fresh array: call without `out=` (examples/scipy_minimize.py).

Choices when not forced:
* jacobian: forward vector mode when len(x) <= len(y), else one reverse pass per row;
* chunk (jacobian, forward gradient): python backend: up to 16 lanes unrolled into plain
  floats (no array allocated per call), more in ONE call of stacked NumPy lanes (measured:
  about the raw BatchDuplicated call; `preparation.default_width`); numba backend: lanes in
  arrays, looped over, equal chunks of at most 256;
* calls without prep= reuse a kept preparation (srcad/prep_cache.py);
* hvp and hessian: forward-over-reverse (srcad's forward mode run over its own reverse code).
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import numpy as np

from srcad.batched_reverse import prepare_batched_reverse_jacobian
from srcad.engines import ForwardEngine, ReverseEngine, primal_value
from srcad.errors import ArgumentError
from srcad.hints import Backend, Function, Memory, OperatorMode, Point
from srcad.operator_options import (
    check_memory,
    check_options,
    check_out,
    memory_option,
    refuse_chunk_in_reverse,
    refuse_float_out,
    refuse_memory,
)
from srcad.parallel_operators import parallel_option
from srcad.plans import MISS
from srcad.prep_cache import reusing_preparations, tangent_count
from srcad.preparation import (
    Prep,
    PreparationMismatchError,
    check_shape,
    forward_engine,
    input_slot,
    lanes_in_arrays,
    make_prep,
    operator_entry,
    output_kind,
    prepared_call,
    read_arguments,
    use_prep,
)
from srcad.sparse_jacobian import prepare_sparse_jacobian, sparse_jacobian_call


def _memory_key(extra):
    """A kept preparation also depends on memory= (compiled into its reverse code)."""
    return extra.get("memory")


# -- gradient ---------------------------------------------------------------------------------
@operator_entry
@parallel_option("prepare_gradient")
def prepare_gradient(f: Function, *args: Any, mode: OperatorMode = None, chunk: int | None = None,
                     backend: Backend | None = "python", memory: Memory = None) -> Prep:
    """Prepare `gradient` and `value_and_gradient` of f at arguments like `args`.

    Transforms and compiles f, chooses the mode (reverse, one pass, unless mode="forward") and
    the chunk, and allocates every shadow and result buffer once. Pass the result as `prep=`:
    it fits every call whose arguments have the same kinds, shapes and dtypes (the values may
    differ), and raises `PreparationMismatchError` otherwise.

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
    kind, _ = output_kind(f, slots)
    if kind != "float":
        raise ArgumentError("gradient needs f to return a float", hint="use jacobian")
    x = input_slot(slots).value
    if mode == "forward":
        n = np.size(x)
        engine = forward_engine(f, slots, n, chunk, backend)
        return make_prep("gradient", f, slots, "forward", engine.width, engine,
                     buffer=np.zeros_like(x) if isinstance(x, np.ndarray) else None)
    engine = ReverseEngine(f, slots, backend, memory=memory)
    return make_prep("gradient", f, slots, "reverse", 1, engine,
                 buffer=np.zeros_like(x) if isinstance(x, np.ndarray) else None)


@operator_entry
@parallel_option("value_and_gradient")
@reusing_preparations("gradient", prepare_gradient, _memory_key)
def value_and_gradient(f: Function, *args: Any, prep: Prep | None = None,
                       out: np.ndarray | None = None, mode: OperatorMode = None,
                       chunk: int | None = None, backend: Backend | None = None,
                       memory: Memory = None) -> tuple[float, Point]:
    """(f(x), gradient of f at x). With out=g the gradient is g itself, refilled by each call
    (a caller that keeps it, like scipy's BFGS, must not pass out=).

    >>> def f(x):
    ...     return x[0] * x[1]
    >>> value, grad = value_and_gradient(f, np.array([2.0, 3.0]))
    >>> print(value, grad)
    6.0 [3. 2.]
    """
    return _value_and_gradient(f, args, prep, out, mode, chunk, backend, memory)


def _value_and_gradient(f, args, prep, out, mode, chunk, backend, memory=None):
    if prep is not None and prep.run is not None and prep.function is f and mode is None \
            and chunk is None and backend is None and memory is None:
        result = prep.run(args, out)  # a reverse gradient's whole call (srcad/plans.py)
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
@reusing_preparations("gradient", prepare_gradient, _memory_key)
def gradient(f: Function, *args: Any, prep: Prep | None = None, out: np.ndarray | None = None,
             mode: OperatorMode = None, chunk: int | None = None,
             backend: Backend | None = None, memory: Memory = None) -> Point:
    """Gradient of a float-valued f at x (reverse mode unless mode="forward"; chunk= only
    with mode="forward").

    The one bare argument is x, a float or a float array; the others are `Constant`, `Cache`
    or `Output` contexts. The gradient is shaped like x (a float for a float x). With out=g
    it is written into g, which is returned and refilled by the next call with it: a caller
    that keeps the returned array (scipy's BFGS) must not pass out=.

    >>> from srcad import Constant
    >>> def f(x, a):
    ...     return a * x[0] * x[1]
    >>> gradient(f, np.array([2.0, 3.0]), Constant(10.0))
    array([30., 20.])
    """
    return _value_and_gradient(f, args, prep, out, mode, chunk, backend, memory)[1]


# -- jacobian ---------------------------------------------------------------------------------
def _jacobian_key(extra):
    """A kept jacobian preparation also depends on sparse= and memory=."""
    return bool(extra.get("sparse")), extra.get("memory")


@operator_entry
@parallel_option("prepare_jacobian")
def prepare_jacobian(f: Function, *args: Any, mode: OperatorMode = None, chunk: int | None = None,
                     backend: Backend | None = "python", sparse: bool = False,
                     memory: Memory = None) -> Prep:
    """Prepare `jacobian` and `value_and_jacobian` of f at arguments like `args`.

    Chooses forward vector mode when x has no more elements than the output, else one reverse
    pass per output element (`mode=` forces either), and the number of tangent lanes per call
    (`chunk`); allocates every seed, shadow and buffer once. Pass the result as `prep=`.
    sparse=True: detect J's sparsity pattern and color its columns once, here; calls return
    a scipy.sparse.csr_matrix computed by forward mode with one lane per color
    (srcad/sparse_jacobian.py).

    >>> from srcad import Output
    >>> def f(y, x):
    ...     for i in range(len(x)):
    ...         y[i] = x[i] * x[i]
    >>> y, J = np.zeros(2), np.zeros((2, 2))
    >>> prep = prepare_jacobian(f, Output(y), np.zeros(2))
    >>> jacobian(f, Output(y), np.array([1.0, 3.0]), prep=prep, out=J)
    array([[2., 0.],
           [0., 6.]])
    """
    check_options("jacobian", mode, chunk, backend)
    backend = backend or "python"
    slots = read_arguments(args)
    kind, template = output_kind(f, slots)
    if kind == "float":
        raise ArgumentError("jacobian needs an array output (returned, or Output(y))",
                            hint="use gradient for float-valued functions")
    if sparse:
        if mode not in (None, "forward"):
            raise ArgumentError("sparse=True computes the jacobian in forward mode (one lane "
                                "per color of columns)", construct=f"mode={mode!r}",
                                hint="leave mode out")
        memory_option("sparse jacobian", "forward", memory)  # refused: no tape to bound
        return prepare_sparse_jacobian(f, slots, template, chunk, backend)
    n, m = np.size(input_slot(slots).value), template.size
    explicit_mode = mode
    mode = mode or ("forward" if n <= m and memory is None else "reverse")
    memory = memory_option("jacobian", mode, memory)
    if mode == "reverse" and chunk is not None:
        if explicit_mode != "reverse":
            refuse_chunk_in_reverse("jacobian (x.size > output size picks reverse mode)")
        if memory is not None:
            raise ArgumentError("memory= checkpoints one-row reverse passes; chunked reverse "
                                "passes keep whole tapes", construct="memory",
                                hint="leave chunk= out, or leave memory= out")
        return prepare_batched_reverse_jacobian(f, slots, template, chunk, backend, n, m)
    if mode == "forward":
        engine = forward_engine(f, slots, n, chunk, backend)
        return make_prep("jacobian", f, slots, "forward", engine.width, engine, n=n, m=m)
    engine = ReverseEngine(f, slots, backend, array_tapes=True,  # no tape list per row
                           memory=memory)
    if kind == "array":
        engine.flat[engine.seed_index] = np.zeros_like(template)
    x = input_slot(slots).value
    row = np.zeros_like(x) if isinstance(x, np.ndarray) else None
    return make_prep("jacobian", f, slots, "reverse", 1, engine, n=n, m=m, row=row,
                     flat_row=None if row is None else row.reshape(-1))  # a view, made once


@operator_entry
@parallel_option("value_and_jacobian")
@reusing_preparations("jacobian", prepare_jacobian, _jacobian_key)
def value_and_jacobian(f: Function, *args: Any, prep: Prep | None = None,
                       out: np.ndarray | None = None, mode: OperatorMode = None,
                       chunk: int | None = None, backend: Backend | None = None,
                       sparse: bool | None = None,
                       memory: Memory = None) -> tuple[Point, np.ndarray]:
    """(f's output, jacobian d output / d x) as a (output size, input size) array; with
    out=J the jacobian is J itself (refilled by the next call with it). sparse=True: J is a
    scipy.sparse.csr_matrix (see jacobian)."""
    return _value_and_jacobian(f, args, prep, out, mode, chunk, backend, sparse, memory)


def _value_and_jacobian(f, args, prep, out, mode, chunk, backend, sparse=None, memory=None):
    if prep is not None:
        check_memory(prep, memory)
    options = {} if sparse is None else {"sparse": sparse}
    prep, slots = use_prep("jacobian", f, args, prep, prepare_jacobian, mode=mode, chunk=chunk,
                           backend=backend, memory=memory, **options)
    if sparse is not None and bool(sparse) != bool(prep.state.get("sparse")):
        raise PreparationMismatchError(f"the preparation computes a "
                                       f"{'sparse' if prep.state.get('sparse') else 'dense'} "
                                       f"jacobian; this call asks for sparse={sparse!r}",
                                       hint="call prepare_jacobian again with this sparse=")
    if prep.state.get("sparse"):
        value, J = sparse_jacobian_call(prep, out)
        outputs = [s.value for s in slots if s.role == "output"]
        return (outputs[0] if outputs else value), J
    n, m = prep.state["n"], prep.state["m"]
    J = out if out is not None else np.empty((m, n))
    if out is not None:
        check_out(J, (m, n))
    engine = prep.engine
    value = None
    if (n == 0 or m == 0) and [s for s in slots if s.role == "output"]:
        primal_value(engine, f)
    if prep.mode == "forward":
        for start in range(0, n, engine.width):
            engine.seed_basis(start, n)
            value, tangents = engine.run()
            engine.write_columns(J, start, min(engine.width, n - start), tangents)
    elif prep.state.get("batched"):
        for start in range(0, m, engine.width):
            value = engine.rows(J, start, m)
    else:
        row, flat_row = prep.state["row"], prep.state["flat_row"]
        for i in range(m):
            value, adjoints = engine.run(x_bar=row, basis=i)
            J[i] = flat_row if row is not None else adjoints[0]
    outputs = [s.value for s in slots if s.role == "output"]
    if outputs:
        return outputs[0], J
    if value is None:  # nothing to differentiate (an empty input or output): just the value
        value = primal_value(engine, f)
    return value, J


prepare_value_and_jacobian = prepare_jacobian


@operator_entry
@parallel_option("jacobian")
@reusing_preparations("jacobian", prepare_jacobian, _jacobian_key)
def jacobian(f: Function, *args: Any, prep: Prep | None = None, out: np.ndarray | None = None,
             mode: OperatorMode = None, chunk: int | None = None,
             backend: Backend | None = None, sparse: bool | None = None,
             memory: Memory = None) -> np.ndarray:
    """Jacobian of f at x, an (output size, input size) array over C-ordered flattenings;
    with out=J fills J in place and returns it (the next call with out=J overwrites it: copy
    J to keep it).

    sparse=True: a scipy.sparse.csr_matrix, from J's sparsity pattern (found at the
    preparation point) and one forward lane per color of columns; out= is then a CSR of the
    preparation's pattern, refilled in place (srcad/sparse_jacobian.py).

    f returns an array or writes one passed as `Output(y)`.

    >>> def f(x):
    ...     y = np.zeros(2)
    ...     y[0] = x[0] * x[1]
    ...     y[1] = 3.0 * x[1]
    ...     return y
    >>> jacobian(f, np.array([2.0, 5.0]))
    array([[5., 2.],
           [0., 3.]])
    """
    return _value_and_jacobian(f, args, prep, out, mode, chunk, backend, sparse, memory)[1]


# -- derivative, pushforward, pullback ----------------------------------------------------------
@operator_entry
@parallel_option("prepare_pushforward")
def prepare_pushforward(f: Function, *args: Any, tangent: Point | Sequence[Point] | None = None,
                        mode: OperatorMode = None, chunk: int | None = None,
                        backend: Backend | None = "python",
                        memory: Memory = None) -> Prep:
    """Prepare `pushforward` of f at arguments like `args`, for one tangent (shaped like x) or
    a tuple of W tangents propagated together in one vector-mode call."""
    refuse_memory("pushforward", memory)
    check_options("pushforward", mode, chunk, backend)
    backend = backend or "python"
    slots = read_arguments(args)
    kind, template = output_kind(f, slots)
    batch = tangent is not None and isinstance(tangent, (tuple, list))
    width = len(tangent) if batch else 1
    engine = ForwardEngine(f, slots, width, lanes_in_arrays(width, backend), backend)
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
    lane."""
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
    cotangent (shaped like f's output) given at each call."""
    check_options("pullback", mode, chunk, backend)
    backend = backend or "python"
    slots = read_arguments(args)
    kind, template = output_kind(f, slots)
    engine = ReverseEngine(f, slots, backend, memory=memory_option("pullback", mode, memory))
    if kind == "array":
        engine.flat[engine.seed_index] = np.zeros_like(template)
    x = input_slot(slots).value
    return make_prep("pullback", f, slots, "reverse", 1, engine, kind=kind,
                 buffer=np.zeros_like(x) if isinstance(x, np.ndarray) else None)


@operator_entry
@parallel_option("pullback")
@reusing_preparations("pullback", prepare_pullback, _memory_key)
def pullback(f: Function, *args: Any, cotangent: Point, prep: Prep | None = None,
             out: np.ndarray | None = None, mode: OperatorMode = None, chunk: int | None = None,
             backend: Backend | None = None, memory: Memory = None) -> Point:
    """u^T J (vjp) for a cotangent u shaped like the output; the result is shaped like x.
    Reverse mode only (mode=None or "reverse"), one pass (no chunk=). With out= the result
    is `out` itself, refilled by the next call with it.

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
