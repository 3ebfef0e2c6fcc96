"""The public entry points: `autodiff`, the `reverse`/`forward` decorators and `source`.

No AST code lives here: arguments are checked, turned into a `Request`, and handed to the
pipeline through the cache.
"""

from __future__ import annotations

import functools
import inspect
import types
from typing import Any, Literal

import numpy as np

from srcad import cache, plans
from srcad.analysis.types import FLOAT, INT, Array, type_of_value
from srcad.annotations import (
    Active,
    Annotation,
    BatchDuplicated,
    Cache,
    Const,
    Constant,
    Forward,
    Mode,
    Output,
    Reverse,
)
from srcad.checkpointing import memory_bytes
from srcad.container_calls import container_autodiff, container_source, has_container
from srcad.errors import ArgumentError, LaneLayoutError, SrcadError, surfaced
from srcad.hints import Backend, Function, Memory
from srcad.parse import parse_function
from srcad.partials import plain_function
from srcad.pipeline import UNROLL_MAX_WIDTH, ArgSpec, Request, build
from srcad.plans import MISS
from srcad.running import kept_tapes, refuse_forward_seed, run_generated, take_buffers

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
            typ = type_of_value(value)
            if typ == "other" and value is not None:
                contexts = (Constant, Cache, Output)  # the operators' argument kinds
                hint = ("Constant, Cache and Output are for the operators (srcad.gradient, "
                        "...); autodiff takes the value bare or as Const(...)"
                        if isinstance(value, contexts) else None)
                raise ArgumentError(f"argument {position}: srcad handles floats, ints, bools "
                                    f"and NumPy arrays, got {type(value).__name__}", hint=hint)
            self.specs.append(ArgSpec("const", typ))
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
            self.flat.append(float(value))
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
                                "on the python backend, without batch=", hint="backend="
                                "'python', or one call per cotangent with Duplicated")
        self.specs.append(ArgSpec("duplicated", typ))
        if isinstance(value, np.ndarray) or not mode.reverse:
            self.flat.append(value if isinstance(value, np.ndarray) else float(value))
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
    return tuple(args) + tuple(defaults[len(defaults) - missing:]) if missing else tuple(args)


def _arguments(f, mode, args, batch, backend="python") -> _Call:
    args = bind_arguments(f, args)
    try:
        return _Call(mode, args, batch, backend)
    except ArgumentError as err:
        code = getattr(f, "__code__", None)
        if code is None:
            raise
        raise err.at(code.co_filename, code.co_firstlineno) from None


def _compiled(f, request: Request):
    f = _target(f)
    key = (f, f.__code__, request)
    try:
        return cache.lookup_or_build(key, lambda: build(f, request))
    except SrcadError as err:
        raise surfaced(err) from None


def _target(f):
    """The plain function behind `f` (a decorated wrapper's original); anything else is
    refused here, before it is used as a cache key."""
    f = getattr(f, "__srcad_wrapped__", f)
    if isinstance(f, functools.partial):
        f = plain_function(f) or f  # a plain function with source that calls the partial
    if not isinstance(f, types.FunctionType):
        parse_function(f)  # raises the SrcadError that explains what srcad needs
    return f


# -- the fast path of repeated calls (srcad/plans.py) ------------------------------------------
_ROLES = {("const", False): plans.CONST, ("const", True): plans.CONST,
          ("active", False): plans.ACTIVE, ("duplicated", True): plans.DUPLICATED_ARRAY,
          ("duplicated", False): plans.DUPLICATED_FLOAT}


def _checked_call(f, mode, args, batch, backend, memory=None):
    """(the checked _Call, compiled code, its new Plan or None): the slow path, which also
    records a plan for the next call with arguments like these."""
    call = _arguments(f, mode, args, batch, backend)
    compiled = _compiled(f, call.request(mode, backend, memory_bytes(memory)))
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


def autodiff(mode: Mode, f: Function, *args: Any, seed: float | np.ndarray | None = None,
             batch: Batch = None, backend: Backend = "python", parallel: bool = False,
             memory: Memory = None) -> Any:
    """Differentiate `f` at `args` annotated Const/Active/Duplicated/BatchDuplicated.

    Reverse returns one entry per argument (the derivative for Active ones, None otherwise);
    ReverseWithPrimal returns (derivatives, value). `seed` (reverse mode only) is the adjoint
    of the return value, 1.0 by default. Forward returns the tangent of the return value (a
    float; with BatchDuplicated an array of W tangents; None when f returns None);
    ForwardWithPrimal returns (tangent, value); forward mode has no seed (the shadows of the
    inputs are the direction). `batch` forces "unrolled" or "stacked" lanes of BatchDuplicated
    arguments; `backend="numba"` compiles the generated code with numba.njit.
    `parallel=True` (numba backend) splits the rows of the data argument of a function that
    sums over them across numba's threads (srcad/parallel.py). `memory`
    (reverse mode: bytes, or a string such as "50MB") checkpoints the loops at the top of
    `f`'s body: their tape is replaced by at most that much of snapshots (docs/usage.md).

    >>> from srcad import Active, Duplicated, Forward, Reverse
    >>> def sq(x):
    ...     return x * x
    >>> autodiff(Reverse, sq, Active(3.0))
    (6.0,)
    >>> autodiff(Forward, sq, Duplicated(3.0, 1.0))
    6.0
    """
    f = getattr(f, "__srcad_wrapped__", f)
    if type(f) is not types.FunctionType:
        f = _target(f)  # refuses what is not a plain function
    if parallel:
        from srcad.parallel import autodiff_parallel

        _check_mode(mode)
        if memory is not None:
            raise surfaced(ArgumentError("memory= and parallel=True together are not supported",
                                         construct="memory", hint="leave one of them out"))
        return autodiff_parallel(autodiff, mode, f, args, seed, batch, backend)
    code = f.__code__
    given = len(args)
    if given != code.co_argcount:
        args = bind_arguments(f, args)
    if memory is not None:
        try:
            memory = memory_bytes(memory)
        except SrcadError as err:
            raise surfaced(err) from None
    # the fast path: a plan of an earlier call with arguments like these (srcad/plans.py)
    for plan in cache.plans.get(f, ()):
        if plan.mode is not mode or plan.code is not code or plan.backend != backend \
                or plan.batch != batch or plan.compiled.request.memory != memory:
            continue
        if plan.run is not None:  # reverse: checks, call and result in one generated frame
            out = plan.run(args, seed)
            if out is not MISS:
                return out if given == len(args) else _given(out, given, mode)
        elif plan.compiled.is_current():
            if seed is not None:
                refuse_forward_seed()
            flat = plan.flat(args)
            if flat is not None:
                return _forward(f, mode, plan.compiled, flat, args, plan.batched, None)
    _check_mode(mode)
    if has_container(args):  # a dict, list or tuple of parameters (srcad/container_calls.py)
        if memory is not None:
            raise ArgumentError("memory= with a container of parameters is not supported",
                                construct="memory", hint="pass the arrays as arguments of "
                                "their own, or leave memory= out")
        out = container_autodiff(mode, f, args, seed, batch, backend)
        return _given(out, given, mode) if mode.reverse else out
    if seed is not None and not mode.reverse:
        refuse_forward_seed()
    if mode.reverse and backend == "python" and batch is None \
            and any(isinstance(a, BatchDuplicated) for a in args):
        from srcad.batched_reverse import batched_autodiff  # W cotangents per sweep
        try:
            return _given(batched_autodiff(mode, f, args, seed), given, mode)
        except SrcadError as err:
            raise surfaced(err) from None
    lanes_key = None
    if batch is None and any(isinstance(a, BatchDuplicated) for a in args):
        lanes_key = (f, code, _arguments(f, mode, args, batch, backend).request(mode, backend))
        if lanes_key in _LANE_REFUSALS:  # refusals are not cached: do not build again
            return _lanes_in_chunks(f, mode, args, backend, _LANE_REFUSALS[lanes_key])
    try:
        if memory is not None and not mode.reverse:
            raise ArgumentError("memory= bounds the tape of reverse mode; forward mode has "
                                "no tape", construct="memory", hint="leave memory= out")
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


def _check_mode(mode):
    if not isinstance(mode, Mode):
        raise ArgumentError(f"unknown mode {mode!r}", hint="use srcad.Reverse, "
                            "srcad.ReverseWithPrimal, srcad.Forward or srcad.ForwardWithPrimal")


# (function, code, request) whose lanes in arrays were refused: run in unrolled chunks
_LANE_REFUSALS: dict = {}


def _lanes_in_chunks(f, mode, args, backend, refusal):
    """Vector mode of whole-array code in the default batch layout, where lanes in arrays
    are refused (numba; the python backend beyond UNROLL_MAX_WIDTH lanes): the lanes run in
    chunks of at most UNROLL_MAX_WIDTH unrolled lanes, one call per chunk. Tangents are
    linear in the seeds, so the chunks' tangents, joined, are the batch's. A function that
    writes its arguments would run its primal once per chunk: refused as before."""
    width = len(next(a.shadows for a in args if isinstance(a, BatchDuplicated)))

    def chunk(start):
        return [BatchDuplicated(a.value, a.shadows[start:start + UNROLL_MAX_WIDTH])
                if isinstance(a, BatchDuplicated) else a for a in args]
    first = _arguments(f, mode, chunk(0), "unrolled", backend)
    if _compiled(f, first.request(mode, backend)).written:
        raise surfaced(refusal) from None
    parts = [autodiff(mode, f, *chunk(start), batch="unrolled", backend=backend)
             for start in range(0, width, UNROLL_MAX_WIDTH)]
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
    return (tangent, value) if mode.with_primal else tangent


def _tuple_tangents(value, tangents, batched, width, stacked, mode):
    """The tangent of a tuple `value` as `autodiff` returns it: a tuple with one tangent per
    element (each stacked over the lanes in vector mode)."""
    out = []
    for j, element in enumerate(value):
        shape = np.shape(element)
        if not batched:
            t = tangents[0][j]
            out.append(np.asarray(t, dtype=float).copy() if shape else float(t))
        elif stacked:
            out.append(np.broadcast_to(np.asarray(tangents[0][j], dtype=float),
                                       (width,) + shape).copy())
        else:
            out.append(np.array([np.asarray(lane[j], dtype=float) for lane in tangents]))
    out = tuple(out)
    return (out, value) if mode.with_primal else out


def source(f: Function, mode: Mode, *args: Any, batch: Batch = None,
           backend: Backend = "python", memory: Memory = None) -> str:
    """The generated source for `f` in `mode` with this activity signature (a `str` that
    notebooks display highlighted)."""
    _check_mode(mode)
    f = _target(f)
    if has_container(args):
        return container_source(f, mode, bind_arguments(f, args), batch, backend)
    request = _arguments(f, mode, args, batch, backend).request(mode, backend,
                                                                memory_bytes(memory))
    return _compiled(f, request).source


def _decorator(mode: Mode):
    def decorate(f: Function | None = None, **options: Any) -> Any:
        _check_decorator_options(options, mode, "srcad." + mode.name.lower())
        if f is None:
            return functools.partial(decorate, **options)
        seed, batch = options.get("seed"), options.get("batch")
        backend, parallel = options.get("backend", "python"), options.get("parallel", False)
        memory = options.get("memory")

        @functools.wraps(f)
        def wrapper(*args, **kwargs):
            for a in args:  # a loop, not any(...): this is every gradient call's first step
                if isinstance(a, Annotation):
                    if kwargs:
                        _check_decorator_options(kwargs, mode, f"the call of {f.__name__}")
                        return autodiff(mode, f, *args, **{**options, **kwargs})
                    return autodiff(mode, f, *args, seed=seed, batch=batch, backend=backend,
                                    parallel=parallel, memory=memory)
            return f(*args, **kwargs)

        wrapper.__srcad_wrapped__ = f
        # the seed scales the derivatives, it does not change the generated code
        code_options = {k: v for k, v in options.items() if k not in ("seed", "parallel")}
        wrapper.source = lambda *args: source(f, mode, *args, **code_options)
        return wrapper

    decorate.__doc__ = (f"Decorator: plain calls run `f` unchanged; calls with any annotation "
                        f"run {mode!r} exactly as `autodiff({mode!r}, f, ...)`. "
                        "`wrapper.source(*args)` shows the generated code.")
    return decorate


def _check_decorator_options(options, mode, where):
    """Options of a decorated function (given to the decorator or to an annotated call): seed
    (reverse mode), batch, backend and parallel; anything else is refused, not passed on."""
    if not mode.reverse and "seed" in options:
        refuse_forward_seed()
    allowed = ("seed", "batch", "backend", "parallel", "memory") if mode.reverse \
        else ("batch", "backend", "parallel")
    unknown = sorted(set(options) - set(allowed))
    if unknown:
        raise ArgumentError(f"unknown option {unknown[0]!r} of {where}", construct="option",
                            hint=f"the options are {', '.join(allowed)}; keyword arguments of "
                            "the function itself are not supported: pass them positionally")


reverse = _decorator(Reverse)
forward = _decorator(Forward)
