"""What every operator shares: reading its arguments (one bare input x; Constant, Cache and
Output contexts), the `Prep` a preparation returns and the checks a prepared call makes
(PreparationMismatchError names each argument as matching or not), and the chunk choice.
"""

from __future__ import annotations

import functools
import inspect
from dataclasses import dataclass

import numpy as np

from srcad.annotations import Annotation, Cache, Constant, Output
from srcad.build.aliasing import refuse_aliased_writes
from srcad.build.arguments import bind_arguments
from srcad.build.differentiate import _target
from srcad.build.engines import ForwardEngine, Slot
from srcad.build.forward_gradient_plan import forward_gradient_entry
from srcad.build.pipeline import UNROLL_MAX_WIDTH
from srcad.build.plans import CONST, MISS, WHOLE_CALLS, gradient_entry, jacobian_entry, matcher
from srcad.build.transform_outputs import in_input_dtype
from srcad.errors import (
    ArgumentError,
    LaneLayoutError,
    PreparationMismatchError,
    SrcadError,
    surfaced,
)
from srcad.frontend.constant_sequences import arguments_as_arrays
from srcad.frontend.pytrees import is_container
from srcad.operators.background_operators import BackgroundPrep, background_call, register
from srcad.operators.containers.container_operators import container_operator, returns_tuple
from srcad.operators.operator_results import explained, in_dtype, lower_precision, user_located
from srcad.operators.prep_signatures import OUTPUT_SHAPED, shown, signature_of


def operator_entry(operator):
    """Every operator and preparation: the plain function behind f, its defaults filled in
    (as Constants: the one bare argument is x), keyword arguments meant for f bound as
    Constants, and a container x (a dict, list or tuple) handed to the container operators."""
    options_taken = set(inspect.signature(operator).parameters) - {"f", "args"}
    # operators defined for functions returning a tuple
    # (srcad/operators/containers/container_operators.py)
    tuple_outputs = operator.__name__.removeprefix("prepare_") in (
        "jacobian", "value_and_jacobian", "pullback", "pushforward")
    # parallel=True and parallel preparations (srcad/operators/parallel_operators.py:
    # parallel_option)
    parallel = getattr(operator, "parallel_entry", None)

    # prepared calls a preparation runs whole (`Prep.run`): the preparation's operator, and
    # whether the operator returns (value, result) or the result alone
    whole = WHOLE_CALLS.get(operator.__name__)

    @functools.wraps(operator)
    def wrapper(f, *args, **options):
        # one frame, no inner call: a prepared call allocates nothing here (the reverse
        # jacobian's memory test); a refusal's traceback ends at the user's call
        try:
            if whole is not None and len(options) <= 2:  # prep= and out= only: no frame between
                prep = options.get("prep")
                if type(prep) is Prep and prep.run is not None and prep.function is f \
                        and prep.operator == whole[0] and len(options) == 1 + ("out" in options):
                    result = prep.run(args, options.get("out"))
                    if result is not MISS:
                        if prep.lower_precision and len(options) == 1:  # float32 in, out
                            result = (result[0], in_input_dtype(result[1], args[prep.x]))
                        return result if whole[1] else result[1]
            if "compile" in options or type(options.get("prep")) is BackgroundPrep:
                # compile="background" (srcad/operators/background_operators.py)
                return background_call(operator.__name__, f, args, options)
            if parallel is not None and options and (
                    "parallel" in options or getattr(options.get("prep"), "splits_rows", False)):
                return parallel(f, args, options)
            f = _target(f)
            for key in options:  # loops, not set operations: this runs on every prepared call
                if key not in options_taken:
                    args = keywords_as_constants(f, args, {k: options.pop(k) for k in list(options)
                                                           if k not in options_taken})
                    break
            if len(args) != f.__code__.co_argcount:
                args = args + tuple(Constant(v) for v in bind_arguments(f, args)[len(args):])
            args = arguments_as_arrays(f, args, (Constant,), bare=False)
            for a in args:
                if is_container(a):  # x is a dict, list or tuple of parameters
                    return container_operator(operator.__name__, f, args, options)
            if tuple_outputs and returns_tuple(f):
                result = container_operator(operator.__name__, f, args, options)
                if isinstance(result, Prep) or options.get("out") is not None:
                    return result
                # one derivative per value returned, each in x's dtype (float32 in, out)
                x = next((a for a in args if type(a) not in _CONTEXTS), None)
                return in_dtype(operator.__name__, result, x)
            result = operator(f, *args, **options)
            if isinstance(result, Prep):  # a preparation: how to make it again (Prep.refresh)
                result.remake = functools.partial(operator, f, **options)
                result.lower_precision = lower_precision(args[result.x])
            elif options.get("out") is None:  # a derivative in x's dtype (float32 in, out)
                x = next((a for a in args if type(a) not in _CONTEXTS), None)
                result = in_dtype(operator.__name__, result, x)
            return result
        except SrcadError as err:  # SRCAD_DEBUG=1 keeps srcad's frames
            raise surfaced(user_located(err, f)) from None
        except (ZeroDivisionError, OverflowError, ValueError) as err:
            # as autodiff: raised by f itself, it passes; by the derivative code alone
            # (sqrt'(0)), it is srcad's non-finite-derivative error
            error = explained(err, f, args)
            if error is err:
                raise
            raise surfaced(user_located(error, f) if isinstance(error, SrcadError)
                           else error) from None
    if parallel is not None:
        parallel.public = wrapper
    register(operator.__name__, wrapper)
    return wrapper





def keywords_as_constants(f, args, keywords) -> tuple:
    """`args` extended by f's parameters after them, from `keywords` (as Constants: keyword
    arguments are never differentiated) or their defaults."""
    code = f.__code__
    names = code.co_varnames[:code.co_argcount]
    for name in keywords:
        if name not in names:
            raise ArgumentError(f"{f.__name__} has no parameter `{name}` (and it is no option "
                                "of the operator)", filename=code.co_filename,
                                line=code.co_firstlineno, construct="keyword")
        if names.index(name) < len(args):
            raise ArgumentError(f"{f.__name__} got `{name}` both positionally and as a keyword",
                                filename=code.co_filename, line=code.co_firstlineno,
                                construct="keyword")
    defaults = f.__defaults__ or ()
    first_default = code.co_argcount - len(defaults)
    bound = list(args)
    for position in range(len(args), code.co_argcount):
        name = names[position]
        if name in keywords:
            bound.append(Constant(keywords[name]))
        elif position >= first_default:
            bound.append(Constant(defaults[position - first_default]))
        else:
            raise ArgumentError(f"{f.__name__} is missing the argument `{name}`",
                                filename=code.co_filename, line=code.co_firstlineno,
                                construct="keyword")
    return tuple(bound)


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
    slots: list  # the preparation's own argument slots, refilled by matching calls
    match: object  # args -> their values if they look like the preparation's (plans.matcher)
    x: int  # the position of the input
    run: object = None  # reverse gradients: the whole call when args match (plans.MISS if not)
    lower_precision: bool = False  # x is float32 (or float16): results are cast to its dtype
    remake: object = None  # args -> a new preparation with the same options

    def check_options(self, mode, chunk, backend):
        """Options given with prep= must be the ones it was prepared with (they are fixed
        when the preparation is built)."""
        for name, given, prepared in (("mode", mode, self.mode), ("chunk", chunk, self.chunk),
                                      ("backend", backend, self.engine.backend)):
            if given is not None and given != prepared:
                raise PreparationMismatchError(
                    f"the preparation runs {name}={prepared!r}; this call asks for "
                    f"{name}={given!r}", hint=f"call prepare_{self.operator} again with "
                    f"{name}={given!r}, or leave {name} out (the preparation's is used)")

    def check(self, operator, f, slots):
        """Raise PreparationMismatchError unless `slots` fit this preparation; prepare again
        (in place) if a name its code was built from has been rebound since."""
        same_fn = f is self.function and operator == self.operator
        rows, ok = [], same_fn
        for i, slot in enumerate(slots):
            got = signature_of(slot.value, operator, slot.role)
            expected = self.signature[i] if i < len(self.signature) else None
            match = got == expected and slot.role == self.roles[i] if expected else False
            ok = ok and match
            rows.append(f"  argument {i} ({slot.role}): "
                        + ("matches" if match else f"prepared {self.roles[i] if expected else '-'}"
                           f" {shown(expected) if expected else ''}, got {shown(got)}"))
        if not ok or len(slots) != len(self.signature):
            head = "preparation does not match this call"
            if not same_fn:
                head += (f" (it was prepared for {self.operator} of "
                         f"{getattr(self.function, '__name__', self.function)})")
            hint = f"call prepare_{operator} again"
            if same_fn and len(slots) == len(self.signature) and operator in OUTPUT_SHAPED:
                hint += (f" (the int Constants a {operator} is prepared with are part of it: "
                         "they may set the shape of f's result)")
            raise PreparationMismatchError(head + ":\n" + "\n".join(rows), hint=hint)
        if not self.engine.is_current():
            args = [s.value if s.role == "x" else _WRAPPERS[s.role](s.value) for s in slots]
            remake = self.remake  # the new preparation's is None (made by the bare operator)
            vars(self).update(vars(remake(*args)))
            self.remake = remake


def written_slots(slots) -> set:
    """Positions of the arguments f writes, as the contexts say (an Output, a Cache; a
    Constant f writes is refused, an x f writes runs on a copy): none may share memory with
    another argument (srcad/build/aliasing.py)."""
    return {i for i, s in enumerate(slots) if s.role in ("output", "cache")}


def read_arguments(args) -> list[Slot]:
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
    refuse_aliased_writes([s.value for s in slots], written_slots(slots))
    xs = [s for s in slots if s.role == "x"]
    if len(xs) != 1:
        raise ArgumentError(f"exactly one argument must be bare (the input to differentiate "
                            f"with respect to); got {len(xs)}",
                            hint="wrap the others in Constant(...), Cache(...) or Output(...)")
    x = xs[0].value
    if isinstance(x, np.ndarray):
        _float_array(x, "the input")
    elif not isinstance(x, (float, np.floating)):
        hint = ("the operators take x bare (Active, Duplicated and Const are autodiff's "
                "annotations)" if isinstance(x, Annotation) else "pass 3.0, not 3")
        raise ArgumentError(f"the input must be a float or a float array, got "
                            f"{type(x).__name__}", hint=hint)
    return slots


def _float_array(value, what):
    if not isinstance(value, np.ndarray) or value.dtype.kind != "f":
        raise ArgumentError(f"{what} must be a float NumPy array, got {_describe(value)}")
    return value


def input_slot(slots) -> Slot:
    return next(s for s in slots if s.role == "x")


def values_of(slots):
    return [s.value for s in slots]


def make_prep(operator, f, slots, mode, chunk, engine, **state) -> Prep:
    prepared = [s.value if s.role == "x" else _WRAPPERS[s.role](s.value) for s in slots]
    wrapped = lambda a: type(a) in _CONTEXTS  # noqa: E731
    written = written_slots(slots)
    copy = getattr(engine, "input_copy", None)
    if copy is not None:  # f writes x, which must not share memory with another argument
        written = written | {copy.position}
    _, match = matcher(prepared, [CONST] * len(slots), wrapped, shapes=True, written=written)
    run = None
    if operator == "gradient" and mode == "reverse":
        _, run = gradient_entry(prepared, wrapped, engine, state["buffer"], written)
    elif operator == "gradient" and mode == "forward":
        entry = forward_gradient_entry(prepared, wrapped, engine, state["buffer"], written)
        run = None if entry is None else entry[1]
    elif operator == "jacobian" and mode == "forward" and not state.get("sparse"):
        entry = jacobian_entry(prepared, wrapped, engine, state["n"], state["m"], written)
        run = None if entry is None else entry[1]
    return Prep(operator, f, tuple(s.role for s in slots),
                tuple(signature_of(s.value, operator, s.role) for s in slots), mode, chunk,
                engine, state,
                [Slot(s.role, s.value) for s in slots], match,
                next(i for i, s in enumerate(slots) if s.role == "x"), run)


_CONTEXTS = {Constant: "constant", Cache: "cache", Output: "output"}
_WRAPPERS = {role: wrapper for wrapper, role in _CONTEXTS.items()}


def use_prep(operator, f, args, prep, preparer, **options):
    """(the preparation, the argument slots): `prep` refilled with `args`, checked against
    them (and with the options given, `Prep.check_options`), or made by `preparer`."""
    if prep is not None:
        prep.check_options(options.get("mode"), options.get("chunk"), options.get("backend"))
        matching = prepared_call(operator, f, args, prep)
        if matching is not None:
            return prep, matching
    slots = read_arguments(args)
    if prep is None:
        prep = preparer(f, *args, **options)
    else:
        prep.check(operator, f, slots)
    prep.engine.set_values(values_of(slots))
    return prep, slots


def prepared_call(operator, f, args, prep):
    """The preparation's slots, refilled with `args`, if they are the kinds, shapes and dtypes
    it was prepared for and its code is current; else None."""
    if prep.function is f and prep.operator == operator and prep.engine.is_current():
        values = prep.match(args)
        if values is not None:
            for slot, value in zip(prep.slots, values):
                slot.value = value
            prep.engine.set_values(values)
            return prep.slots
    return None


def lanes_in_arrays(width, backend) -> bool:
    """Lanes in arrays (numba, or wide batches) rather than unrolled into floats."""
    return backend == "numba" or width > UNROLL_MAX_WIDTH


NUMBA_MAX_CHUNK = 256
PYTHON_MAX_CHUNK = 1024


def choose_chunk(n, chunk, backend="python"):
    """Lanes per call where lanes are unrolled on the python backend (hvp and hessian): the
    forced chunk, else min(n, 16) (numba: min(n, 256) lanes in arrays)."""
    if chunk is not None:
        return max(1, int(chunk))
    return max(1, min(n, NUMBA_MAX_CHUNK if backend == "numba" else UNROLL_MAX_WIDTH))


def default_width(n, backend) -> int:
    """Lanes per call of the first-order forward operators (gradient, jacobian), measured on
    the elementwise square and the scratch-cache jacobian, n = 40, 100, 400, interleaved with
    the raw `autodiff(Forward, f, BatchDuplicated(x, eye))`:
    * python: n <= 16 lanes unrolled into floats (one call, no array allocated per call);
      above, all n lanes stacked in NumPy vectors in ONE call (1.0-1.1x the raw call; chunks
      of 16 unrolled were 6-60x it, chunks of 64 2-10x: the per-call cost of a stacked call
      is nearly independent of its width); beyond PYTHON_MAX_CHUNK lanes, equal chunks (the
      lane arrays hold width x size floats each);
    * numba: lanes in arrays looped over, equal chunks of at most NUMBA_MAX_CHUNK (no
      temporaries either way: prepared calls allocate nothing; at n = 512 and 1000 chunks
      of 256 ran 1.5-5x faster than one call of every lane, at n = 400 within the noise).
    A jacobian stacks its python lanes at every width (`forward_engine(stack_narrow=True)`):
    with the one-call entry (plans.jacobian_entry) stacked lanes ran 1.4-3.2x faster than
    unrolled ones at n = 2 to 16."""
    limit = NUMBA_MAX_CHUNK if backend == "numba" else PYTHON_MAX_CHUNK
    calls = max(1, -(-n // limit))
    return max(1, -(-n // calls))


def forward_engine(f, slots, n, chunk, backend, stack_narrow=False):
    """The forward engine of a first-order operator: `chunk` lanes if forced, else
    `default_width`; wide python lanes and numba's are in arrays (narrow python lanes too
    with `stack_narrow`), and code that lanes in arrays cannot run yet (whole-array
    operations) falls back to chunks of 16 unrolled lanes."""
    width = max(1, int(chunk)) if chunk is not None else default_width(n, backend)
    stacked = lanes_in_arrays(width, backend) or (stack_narrow and chunk is None)
    if chunk is not None and backend == "numba":
        return lanes_engine(f, slots, width, backend, chunked=True)
    if chunk is not None or not stacked:
        return ForwardEngine(f, slots, width, stacked, backend)
    try:
        return ForwardEngine(f, slots, width, True, backend)
    except LaneLayoutError:  # numba too: its unrolled lanes compile whole-array code
        return ForwardEngine(f, slots, choose_chunk(n, None), False, backend)


def lanes_engine(f, slots, width, backend, chunked=False):
    """The forward engine of `width` lanes (one per tangent, or a forced chunk): in arrays
    on numba and beyond UNROLL_MAX_WIDTH lanes, unrolled otherwise. numba code that lanes in
    arrays cannot run yet (whole-array operations) runs with unrolled lanes instead, at most
    UNROLL_MAX_WIDTH of them: when `chunked` (the operator runs its lanes in chunks of the
    engine's width) a wider forced chunk gets a narrower engine; a batch of more tangents
    than that is refused as before."""
    stacked = lanes_in_arrays(width, backend)
    try:
        return ForwardEngine(f, slots, width, stacked, backend)
    except LaneLayoutError:
        if backend != "numba" or (width > UNROLL_MAX_WIDTH and not chunked):
            raise
        return ForwardEngine(f, slots, min(width, UNROLL_MAX_WIDTH), False, backend)
