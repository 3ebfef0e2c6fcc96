"""Running generated code: the tape and lane arrays it takes, the seed it may be given, its
errors explained, and the variant it calls for (over the tape budget, a loop changing shapes:
the `Fallback`s of srcad/build/checkpoint_fallback.py and shape_fallback.py), which may call
for another in turn.

Shared by `api.autodiff`, its fast path (`plans.py`) and the operators' engines.
"""

from __future__ import annotations

import contextlib

import numpy as np

from srcad.annotations import Annotation
from srcad.build.checkpoint_fallback import Fallback
from srcad.build.numba_errors import raise_numba_error
from srcad.errors import ArgumentError, LoopShapeError, RunTimeRefusal, SrcadError
from srcad.frontend import syntax as S
from srcad.runtime.checkpointing import TapeOverBudget, snapshot_count, warn_budget
from srcad.transform.tapes import INT_TAPE

# what generated code raises for a variant of itself to run instead, on the same arguments
RUN_AGAIN = (TapeOverBudget, LoopShapeError)


def run_again(function, flat, raised, explain=None):
    """What `function(*flat)` returns, computed by the variant `raised` (one of RUN_AGAIN)
    calls for: numba code over the tape budget runs checkpointed
    (srcad/build/checkpoint_fallback.py), code whose loop changed the shape of an array it carries
    runs again recording shapes (srcad/build/shape_fallback.py). `explain(err)` raises what an
    error of the variant stands for."""
    if isinstance(raised, TapeOverBudget):
        return run_checkpointed(function, flat, raised, explain)
    return run_recording_shapes(function, flat, raised, explain)


def run_checkpointed(function, flat, over: TapeOverBudget, explain=None):
    """What `function(*flat)` returns, computed by its checkpointed variant
    (srcad/build/checkpoint_fallback.py) after `function` raised `over`: (value, adjoints,
    then each of `function`'s tapes if grown, else None); `explain(err)` raises what an error
    of the variant stands for."""
    fallback = function.srcad_over_budget
    out = run_variant(fallback, flat, explain)
    warn_budget(fallback.filename, over.line, fallback.name, over.tape_bytes, over.trips,
                over.budget, snapshot_count(over.budget, over.state_bytes, over.trips - 1))
    return out


def run_recording_shapes(function, flat, changed: LoopShapeError, explain=None):
    """What `function(*flat)` returns, computed by its variant recording shapes
    (srcad/build/shape_fallback.py) after `function` raised `changed` (which is raised again
    where there is no such variant)."""
    fallback = getattr(function, "srcad_shapes_changed", None)
    if fallback is None:
        raise changed
    return run_variant(fallback, flat, explain)


def run_variant(fallback: Fallback, flat, explain=None):
    """What the function `fallback` belongs to returns for `flat`, computed by the variant:
    (value, adjoints, then each of the function's tapes if grown, else None). The variant
    takes the tapes it shares with the function from `flat` (the others from its own
    spares); `explain(err)` raises what an error of the variant stands for. A variant may
    itself call for another (`call_generated`)."""
    variant = fallback.compiled()
    own = take_buffers(variant)
    count = len(fallback.tapes)
    given = dict(zip(fallback.tapes, flat[len(flat) - count:]))
    passed = [given.get(kind, own[k]) for k, kind in enumerate(variant.tapes)]
    arguments = list(flat[:len(flat) - count]) + passed
    if explain is None:
        out = call_generated(variant.function, arguments)
    else:
        try:
            out = variant.function(*arguments)
        except Exception as err:
            explain(err)
            raise
    # the variant keeps its own tapes (grown or not); the shared ones go back to the caller
    variant.spare.append(kept_tapes(own, [None if kind in given else grown for kind, grown
                                          in zip(variant.tapes, out[2:])]))
    returned = dict(zip(variant.tapes, out[2:]))
    return (out[0], out[1]) + tuple(returned.get(kind) for kind in fallback.tapes)


def run_generated(f, function, flat, args):
    """`function(*flat)`, with its errors explained (`explain_error`), or the variant it
    calls for (`run_again`)."""
    try:
        return function(*flat)
    except RUN_AGAIN as raised:
        return run_again(function, flat, raised, lambda err: explain_error(err, f, args))
    except Exception as err:
        explain_error(err, f, args)


def refuse_forward_seed():
    raise ArgumentError("seed= is the adjoint of the return value, an input of reverse mode; "
                        "forward mode has no output seed", construct="seed",
                        hint="the tangent is the direction: scale the shadow instead, "
                        "Duplicated(x, 3.0 * dx)")


def refuse_unused_seed(f):
    """A reverse call with seed= of a function that returns nothing: the seeds of its results
    are the shadows of the arrays it writes."""
    code = f.__code__
    raise ArgumentError(f"seed= is the adjoint of the return value, and {f.__name__} returns "
                        "nothing", filename=code.co_filename, line=code.co_firstlineno,
                        construct="seed", hint="seed the arrays it writes through their "
                        "shadows: Duplicated(y, dy) with dy the adjoint of y")


def tuple_seeds(f, seed, count) -> tuple:
    """The seeds of a function returning a tuple of `count` values: a tuple (or list) of
    `count` seeds, one per element (a number, or an array shaped like an array element)."""
    if not isinstance(seed, (tuple, list)) or len(seed) != count:
        code = f.__code__
        raise ArgumentError(f"{f.__name__} returns a tuple of {count} values: seed= takes one "
                            f"seed per value, got {type(seed).__name__}"
                            + (f" of {len(seed)}" if isinstance(seed, (tuple, list)) else ""),
                            filename=code.co_filename, line=code.co_firstlineno,
                            construct="seed", hint="pass seed=(1.0, 0.0) for the derivatives "
                            "of the first value")
    for s in seed:
        check_seed(s)
    return tuple(float(s) if type(s) is int else s for s in seed)


def check_seed(seed):
    """A reverse-mode seed is a number (or, for f returning an array, a number or a float
    array shaped like the result); anything else is refused."""
    if seed is None or type(seed) in (float, int) or isinstance(seed, (np.floating, np.integer)):
        return
    if isinstance(seed, np.ndarray) and seed.dtype.kind in "fiu":
        return
    raise ArgumentError(f"seed= takes a float (or, for f returning an array, a float array "
                        f"shaped like the result), got {type(seed).__name__}", construct="seed")


def explain_error(err, f, args, seed=None):
    """Raise what an error of generated code stands for: a seed that is not a number is
    refused; an arithmetic error the primal raises too passes through; one only the
    derivative code hits (sqrt'(0), x ** 0.5 at 0) becomes a SrcadError, and so does numba
    refusing to compile the generated code."""
    check_seed(seed)
    if isinstance(err, RunTimeRefusal):  # raised by srcad's run time (a recursive helper's)
        raise err from None
    if isinstance(err, ValueError) and str(err).startswith("srcad: "):
        # generated code's own check (a list of rows of two lengths, an int power)
        raise RunTimeRefusal(str(err)[len("srcad: "):]) from None
    if isinstance(err, (ZeroDivisionError, OverflowError, ValueError)):
        copies = [v.copy() if isinstance(v, np.ndarray) else v
                  for v in (a.value if isinstance(a, Annotation) else a for a in args)]
        try:
            f(*copies)
        except type(err):
            raise err from None
        code = f.__code__
        raise SrcadError(f"the derivative is not finite at this input ({type(err).__name__}: "
                         f"{err} in the derivative code; the primal runs fine)",
                         filename=code.co_filename, line=code.co_firstlineno,
                         construct="non-finite derivative",
                         hint="move the input away from the singular point (e.g. sqrt at 0)"
                         ) from None
    raise_numba_error(err, f.__code__.co_filename)
    raise err


def tape_buffers(compiled) -> list:
    """Fresh buffers of a numba-compiled function, in the order it takes them last: lane
    arrays (vector mode), then its tapes and workspace (it grows and returns those)."""
    tapes = [np.empty(64, dtype=np.int64) if t == INT_TAPE else np.empty(64)
             for t in compiled.tapes]
    return [np.empty(compiled.request.width) for _ in range(compiled.scratch)] + tapes


def reserve_tape(tape, need):
    """`tape` if it holds `need` values, else a longer copy (at least doubled): the python
    backend's array tapes (numba code calls numba_runtime's)."""
    if need <= tape.shape[0]:
        return tape
    return np.concatenate((tape, np.empty(max(need, tape.shape[0]), tape.dtype)))


def take_buffers(compiled):
    """Tape and lane arrays a previous call handed back, else fresh ones. `list.pop` is atomic,
    so threads never share a buffer (testing `if spare:` first would race)."""
    try:
        return compiled.spare.pop()
    except IndexError:
        return tape_buffers(compiled)


def kept_tapes(passed, returned):
    """The buffers for the next call: `passed` with its last len(returned) (the tapes and the
    workspace) replaced by the ones a call grew (it returns them; None for the others)."""
    for array in returned:
        if array is not None:
            lanes = len(passed) - len(returned)
            return list(passed[:lanes]) + [p if r is None else r
                                           for p, r in zip(passed[lanes:], returned)]
    return passed


def call_generated(function, flat):
    """`function(*flat)`, or the variant it calls for (`run_again`); numba refusing to
    compile it becomes a SrcadError."""
    try:
        return function(*flat)
    except RUN_AGAIN as raised:
        return run_again(function, flat, raised)
    except Exception as err:
        raise_numba_error(err)
        raise


def inside_contexts(function, parsed):
    """`function` run inside the context managers the differentiated body ran in
    (`np.errstate(divide="ignore")`: srcad/transform/normalize/contexts.py), each made anew
    from its expression at every call, as the `with` statement does."""
    makers = [compile(S.unparse_expr(e), parsed.filename, "eval") for e in parsed.contexts]
    namespace = parsed.namespace

    def run_inside(*args):
        with contextlib.ExitStack() as stack:
            for maker in makers:
                stack.enter_context(eval(maker, namespace))  # noqa: S307 - the user's text
            return function(*args)

    run_inside.__wrapped__ = function
    return run_inside
