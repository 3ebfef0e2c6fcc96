"""`autodiff`: one differentiation call, from checked arguments to derivatives: its fast path
(a plan of an earlier call), the compiled code looked up in the cache, and the forward results.

No AST code lives here: arguments are checked (srcad/build/arguments.py), turned into a `Request`,
and handed to the pipeline through the cache.

Three calls are run by the layers above, which register how when imported (srcad's `__init__`
imports them all): `parallel=True` (srcad/scale/parallel.py), a dict, list or tuple of
parameters (srcad/operators/containers/container_calls.py) and reverse mode with
`BatchDuplicated` arguments (srcad/operators/batched_reverse.py). See `register_mode`.
"""

from __future__ import annotations

import functools
import types
from typing import Any

import numpy as np

from srcad.analysis.types import Array
from srcad.annotations import (
    Annotation,
    BatchDuplicated,
    Const,
    Mode,
)
from srcad.build import cache, plans
from srcad.build.aliasing import refuse_aliased_writes
from srcad.build.arguments import Batch, _arguments, _Call, _check_mode, bind_arguments
from srcad.build.background import backend_now, check_compile, count_answer
from srcad.build.checkpoint_fallback import COMPILER
from srcad.build.numba_fastmath import fastmath_flags
from srcad.build.pipeline import UNROLL_MAX_WIDTH, Request, build
from srcad.build.plans import MISS
from srcad.build.running import kept_tapes, refuse_forward_seed, run_generated, take_buffers
from srcad.build.transform_outputs import in_input_dtype
from srcad.errors import ArgumentError, LaneLayoutError, SrcadError, surfaced
from srcad.frontend.constant_sequences import arguments_as_arrays
from srcad.frontend.methods import is_method
from srcad.frontend.parse import parse_function
from srcad.frontend.partials import method_function, plain_function
from srcad.hints import Backend, Compile, Function, Memory
from srcad.runtime.checkpointing import memory_bytes, reverse_memory


def _compiled(f, request: Request):
    f = _target(f)
    try:  # numba: the fast-math licences are part of the code (SRCAD_NUMBA_REASSOCIATE)
        key = (f, f.__code__, request, fastmath_flags() if request.backend == "numba" else None)
        return cache.lookup_or_build(key, lambda: build(f, request))
    except SrcadError as err:
        raise surfaced(err) from None


COMPILER["compiled"] = _compiled  # what a fallback variant compiles with (checkpoint_fallback.py)


def _target(f):
    """The plain function behind `f` (a decorated wrapper's original); anything else is
    refused here, before it is used as a cache key."""
    f = getattr(f, "__srcad_wrapped__", f)
    if isinstance(f, functools.partial):
        f = plain_function(f) or f  # a plain function with source that calls the partial
    elif is_method(f):
        f = method_function(f)  # a plain function calling model.loss, self a constant
    if not isinstance(f, types.FunctionType):
        parse_function(f)  # raises the SrcadError that explains what srcad needs
    if f.__code__.co_name == "<lambda>":
        return cache.same_lambda(f)  # a lambda made anew per call: the first one like it
    return f


# -- the fast path of repeated calls (srcad/build/plans.py)
# ------------------------------------------
_ROLES = {("const", False): plans.CONST, ("const", True): plans.CONST,
          ("active", False): plans.ACTIVE, ("duplicated", True): plans.DUPLICATED_ARRAY,
          ("duplicated", False): plans.DUPLICATED_FLOAT}


def _checked_call(f, mode, args, batch, backend, memory=None):
    """(the checked _Call, compiled code, its new Plan or None): the slow path, which also
    records a plan for the next call with arguments like these."""
    call = _arguments(f, mode, args, batch, backend)
    compiled = _compiled(f, call.request(mode, backend, memory_bytes(memory)))
    refuse_aliased_writes([a.value if isinstance(a, Annotation) else a for a in args],
                          compiled.written, f)
    roles = _plan_roles(call, args)
    plan = None
    if roles is not None:
        code = f.__code__
        plan = plans.Plan(f, mode, batch, backend, args, roles, compiled, call.active_positions)
        kept = [p for p in cache.plans.get(f, ()) if p.code is code and p.compiled.is_current()]
        cache.plans[f] = kept[-7:] + [plan]
    return call, compiled, plan


def _plan_roles(call: _Call, args):
    """The plan roles of a checked call's arguments, or None when its flattening is not one
    a plan repeats (batches of separate shadows, unrolled lanes, scalar batches)."""
    if call.width is None:
        return [_ROLES[spec.kind, isinstance(spec.type, Array)] for spec in call.specs]
    batches = [a for a in args if isinstance(a, BatchDuplicated)]
    if not call.stacked or call.copy_back or not all(
            isinstance(a.value, np.ndarray) and isinstance(a.shadows, np.ndarray)
            for a in batches):
        return None
    return [plans.BATCH_STACKED if isinstance(a, BatchDuplicated)
            else _ROLES[spec.kind, isinstance(spec.type, Array)]
            for a, spec in zip(args, call.specs)]


# the operator-level modes, registered by the layers above (see the module docstring)
_MODES: dict = {}


def register_mode(name: str, run) -> None:
    """Register how `autodiff` runs one of the calls handled above this layer: "parallel"
    (`run(autodiff, mode, f, args, seed, batch, backend, memory)`), "containers"
    (`run(mode, f, args, seed, batch, backend)`, with "has_container" its test of the
    arguments) and "batched_reverse" (`run(mode, f, args, seed, backend)`)."""
    _MODES[name] = run


def autodiff(mode: Mode, f: Function, *args: Any, seed: float | np.ndarray | None = None,
             batch: Batch = None, backend: Backend = "python", parallel: bool = False,
             memory: Memory = None, compile: Compile = "wait") -> Any:
    """Differentiate `f` at `args` annotated Const/Active/Duplicated/BatchDuplicated.

    Reverse returns one entry per argument (the derivative for Active ones, None otherwise);
    ReverseWithPrimal returns (derivatives, value). `seed` (reverse mode only) is the adjoint
    of the return value, 1.0 by default. Forward returns the tangent of the return value (a
    float; with BatchDuplicated an array of W tangents; None when f returns None);
    ForwardWithPrimal returns (tangent, value); forward mode has no seed (the shadows of the
    inputs are the direction). `batch` forces "unrolled" or "stacked" lanes of BatchDuplicated
    arguments; `backend="numba"` compiles the generated code with numba.njit.
    `parallel=True` (numba backend) splits the rows of the data argument of a function that
    sums over them across numba's threads (srcad/scale/parallel.py). `memory`
    (reverse mode: bytes, or a string such as "50MB") checkpoints the loops at the top of
    `f`'s body: their tape is replaced by at most that much of snapshots (docs/checkpointing.md).

    Args:
        mode: `srcad.Reverse`, `srcad.ReverseWithPrimal`, `srcad.Forward` or
            `srcad.ForwardWithPrimal`.
        f: a plain Python function (or one decorated with `srcad.reverse`/`srcad.forward`).
        *args: `f`'s arguments, each bare (constant) or annotated: `Const`, `Active`,
            `Duplicated`, `DuplicatedNoNeed`, `BatchDuplicated`, `BatchDuplicatedNoNeed`.
        seed: reverse mode: the adjoint of the return value (1.0 by default).
        batch: "unrolled" or "stacked" lanes of `BatchDuplicated` arguments.
        backend: "python" (the generated code runs as Python) or "numba".
        parallel: numba backend: split a sum over the rows of the data across threads.
        memory: reverse mode: a memory budget for checkpointing (bytes or "50MB").
        compile: numba backend: "wait" (compile before answering) or "background" (the
            python backend answers while numba compiles on a thread; srcad/build/background.py).

    Returns:
        Reverse: a tuple with one entry per argument (the derivative of an `Active` one,
        None otherwise); ReverseWithPrimal: `(derivatives, value)`. Forward: the tangent of
        the return value; ForwardWithPrimal: `(tangent, value)`.

    >>> from srcad import Active, Duplicated, Forward, Reverse
    >>> def sq(x):
    ...     return x * x
    >>> autodiff(Reverse, sq, Active(3.0))
    (6.0,)
    >>> autodiff(Forward, sq, Duplicated(3.0, 1.0))
    6.0
    """
    f = getattr(f, "__srcad_wrapped__", f)
    if type(f) is not types.FunctionType or f.__code__.co_name == "<lambda>":
        f = _target(f)  # refuses what is not a plain function
    if compile != "wait":
        try:
            check_compile(compile, backend)
        except SrcadError as err:
            raise surfaced(err) from None
    if parallel:
        try:
            return _MODES["parallel"](autodiff, mode, f, args, seed, batch, backend, memory)
        except SrcadError as err:
            raise surfaced(err) from None
    code = f.__code__
    given = len(args)
    if given != code.co_argcount:
        args = bind_arguments(f, args)
    else:  # Const((1.0, 2.0)) read by index: its array (srcad/frontend/constant_sequences.py)
        args = arguments_as_arrays(f, args, (Const,), bare=False)
    if memory is not None:
        try:
            memory = memory_bytes(memory)
        except SrcadError as err:
            raise surfaced(err) from None
    # the fast path: a plan of an earlier call with arguments like these (srcad/build/plans.py)
    try:  # numba: a plan of code compiled with the other SRCAD_NUMBA_REASSOCIATE is not run
        flags = fastmath_flags() if backend == "numba" else None
    except SrcadError as err:
        raise surfaced(err) from None
    for plan in cache.plans.get(f, ()):
        if plan.mode is not mode or plan.code is not code or plan.backend != backend \
                or plan.batch != batch or plan.compiled.request.memory != memory \
                or plan.fastmath != flags:
            continue
        if plan.run is not None:  # reverse: checks, call and result in one generated frame
            out = plan.run(args, seed)
            if out is not MISS:
                if compile != "wait":
                    count_answer(f, backend)
                return out if given == len(args) else _given(out, given, mode)
        elif plan.compiled.is_current():
            if seed is not None:
                refuse_forward_seed()
            flat = plan.flat(args)
            if flat is not None:
                if compile != "wait":
                    count_answer(f, backend)
                return _forward(f, mode, plan.compiled, flat, args, plan.batched, None)
    if compile != "wait" and not parallel:  # numba's compile on a thread: python answers
        try:
            if backend_now(f, mode, args, batch, memory, lambda copies: autodiff(
                    mode, f, *copies, seed=seed, batch=batch, backend="numba",
                    memory=memory)) == "python":
                out = autodiff(mode, f, *args, seed=seed, batch=batch, memory=memory)
                return out if given == len(args) else _given(out, given, mode)
        except SrcadError as err:
            raise surfaced(err) from None
    _check_mode(mode)
    # a dict, list or tuple of parameters
    # (srcad/operators/containers/container_calls.py)
    if _MODES["has_container"](args):
        if memory is not None:
            raise ArgumentError("memory= with a container of parameters is not supported",
                                construct="memory", hint="pass the arrays as arguments of "
                                "their own, or leave memory= out")
        out = _MODES["containers"](mode, f, args, seed, batch, backend)
        return _given(out, given, mode) if mode.reverse else out
    if seed is not None and not mode.reverse:
        refuse_forward_seed()
    if mode.reverse and backend in ("python", "numba") and batch is None \
            and any(isinstance(a, BatchDuplicated) for a in args):
        try:  # W cotangents per sweep
            return _given(_MODES["batched_reverse"](mode, f, args, seed, backend), given, mode)
        except SrcadError as err:
            raise surfaced(err) from None
    lanes_key = None
    if batch is None and any(isinstance(a, BatchDuplicated) for a in args):
        lanes_key = (f, code, _arguments(f, mode, args, batch, backend).request(mode, backend))
        if lanes_key in _LANE_REFUSALS:  # refusals are not cached: do not build again
            return _lanes_in_chunks(f, mode, args, backend, _LANE_REFUSALS[lanes_key])
    try:
        reverse_memory(memory, not mode.reverse, "this autodiff call")
        call, compiled, plan = _checked_call(f, mode, args, batch, backend, memory)
    except LaneLayoutError as err:
        if lanes_key is None:
            raise surfaced(err) from None
        _LANE_REFUSALS[lanes_key] = err
        return _lanes_in_chunks(f, mode, args, backend, err)
    except SrcadError as err:
        raise surfaced(err) from None
    if mode.reverse:  # a reverse call always has a plan: run it
        return _given(plan.run(args, seed), given, mode)
    return _forward(f, mode, compiled, call.flat, args, call.width is not None, call)


# (function, code, request) whose lanes in arrays were refused: run in unrolled chunks
_LANE_REFUSALS: dict = {}


def _lanes_in_chunks(f, mode, args, backend, refusal):
    """Vector mode of whole-array code in the default batch layout, where lanes in arrays
    are refused (numba; the python backend beyond UNROLL_MAX_WIDTH lanes): the lanes run in
    chunks of at most UNROLL_MAX_WIDTH unrolled lanes, one call per chunk. Tangents are
    linear in the seeds, so the chunks' tangents, joined, are the batch's. A function that
    writes its arguments runs each chunk on copies of the arrays it writes, which then take
    the values f left in the first chunk's copies: written once, as by one call."""
    width = len(next(a.shadows for a in args if isinstance(a, BatchDuplicated)))
    copies: dict = {}  # position -> (the caller's array, the first chunk's copy)

    def chunk(start):
        out = []
        for k, a in enumerate(args):
            value = a.value if isinstance(a, Annotation) else a
            if k in written and isinstance(value, np.ndarray):
                value = value.copy()
                copies.setdefault(k, (a.value if isinstance(a, Annotation) else a, value))
            if isinstance(a, BatchDuplicated):
                out.append(BatchDuplicated(value, a.shadows[start:start + UNROLL_MAX_WIDTH]))
            elif isinstance(a, Annotation):
                out.append(a if value is a.value else type(a)(value))
            else:
                out.append(value)
        return out
    written = frozenset()
    first = _arguments(f, mode, chunk(0), "unrolled", backend)
    written = _compiled(f, first.request(mode, backend)).written
    copies.clear()
    if any(not isinstance(a.value if isinstance(a, Annotation) else a, np.ndarray)
           or (isinstance(a, Annotation) and type(a) not in (BatchDuplicated, Const))
           for k, a in enumerate(args) if k in written):
        raise surfaced(refusal) from None  # a written argument chunks cannot copy
    parts = [autodiff(mode, f, *chunk(start), batch="unrolled", backend=backend)
             for start in range(0, width, UNROLL_MAX_WIDTH)]
    for original, written_copy in copies.values():  # f's writes, once
        original[...] = written_copy
    tangents = [p[0] if mode.with_primal else p for p in parts]
    if tangents[0] is None:
        joined = None
    elif type(tangents[0]) is tuple:  # f returns a tuple: join each value's lanes
        joined = tuple(np.concatenate([t[k] for t in tangents])
                       for k in range(len(tangents[0])))
    else:
        joined = np.concatenate(tangents)
    return (joined, parts[0][1]) if mode.with_primal else joined


def _given(out, given, mode):
    """A reverse result with one entry per argument given (not per default filled in)."""
    if mode.with_primal:
        return out[0][:given], out[1]
    return out[:given]


def _forward(f, mode, compiled, flat, args, batched, call):
    """Run forward (vector) mode code; the tangent (and value) as `autodiff` returns them."""
    # numba: lane arrays and workspace, reused by later calls (list pop/append are thread-safe)
    buffers = take_buffers(compiled) if compiled.scratch or compiled.tapes else ()
    out = run_generated(f, compiled.function, flat + list(buffers), args)
    value, tangents = out[0], out[1]
    if buffers:
        compiled.spare.append(kept_tapes(buffers, out[2:]))
    width, stacked = compiled.request.width, compiled.request.stacked
    if call is not None:
        call.finish()
    if compiled.request.backend == "numba":
        if type(value) is float:
            value = _numba_float(value, args)
        elif type(value) is tuple:  # each float of a tuple too (its tangent takes its type)
            value = tuple(_numba_float(v, args) if type(v) is float else v for v in value)
    array_out = isinstance(value, np.ndarray)
    if compiled.tuple_return and tangents:  # one tangent per element of the tuple returned
        return _tuple_tangents(value, tangents, batched, width, stacked, mode)
    if not tangents:
        tangent = None
    elif not batched:
        tangent = tangents[0] if array_out else float(tangents[0])
    elif stacked:
        shape = (width,) + (value.shape if array_out else ())
        tangent = np.broadcast_to(np.asarray(tangents[0], dtype=float), shape).copy()
    else:
        tangent = np.array([t if array_out else float(t) for t in tangents])
    if getattr(value, "dtype", np.float64) != np.float64:  # JAX's rule: the value's float type
        tangent = in_input_dtype(tangent, value)
    return (tangent, value) if mode.with_primal else tangent


def _numba_float(value: float, args):
    """f's float value as NumPy gives it: numba returns a float32 scalar as a Python float, so
    a value computed from float32 arrays alone becomes np.float32 again (the type JAX's rule
    gives its tangents too)."""
    dtypes = [np.asarray(v).dtype for v in (a.value if isinstance(a, Annotation) else a
                                            for a in args)
              if isinstance(v, (np.ndarray, np.floating)) and np.asarray(v).dtype.kind == "f"]
    dtype = np.result_type(*dtypes) if dtypes else np.dtype(np.float64)
    return value if dtype == np.float64 else dtype.type(value)


def _tuple_tangents(value, tangents, batched, width, stacked, mode):
    """The tangent of a tuple `value` as `autodiff` returns it: a tuple with one tangent per
    element (each stacked over the lanes in vector mode)."""
    out = []
    for j, element in enumerate(value):
        shape = np.shape(element)
        # an int element (an index returned beside the value) has no tangent: zeros, as an
        # int returned alone and as jacrev's row for it
        lanes = [np.zeros(shape) if lane[j] is None else lane[j] for lane in tangents]
        if not batched:
            t = lanes[0]
            out.append(np.asarray(t, dtype=float).copy() if shape else float(t))
        elif stacked:
            out.append(np.broadcast_to(np.asarray(lanes[0], dtype=float),
                                       (width,) + shape).copy())
        else:
            out.append(np.array([np.asarray(t, dtype=float) for t in lanes]))
        out[-1] = in_input_dtype(out[-1], element)  # JAX's rule: the element's float type
    out = tuple(out)
    return (out, value) if mode.with_primal else out

