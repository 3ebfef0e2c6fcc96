"""What the second-order operators share (srcad/operators/second_order.py: hvp and
gradient_and_hvp; srcad/operators/hessian_operators.py: hessian and second_derivative): the
mode by backend, the preparation of the engine, and the values and results of one pass.

python backend: forward over reverse, srcad's forward (vector) mode run over the reverse code
srcad generated, which is plain Python; where forward mode refuses a construct of that code,
reverse over forward (srcad/operators/reverse_over_forward.py) differentiates f's forward code
instead. numba backend: reverse over forward. A refusal names the user's lines, and suggests
another backend or mode only once srcad has checked that it takes this f
(srcad/operators/second_order_refusals.py).
"""

from __future__ import annotations

import numpy as np

from srcad.build.engines import HessianEngine, Slot, scalar_as_array
from srcad.errors import ArgumentError, SecondOrderRefusal, SrcadError
from srcad.operators.operator_options import (
    REVERSE_OVER_FORWARD,
    check_options,
    check_out,
    check_shape,
    refuse_chunk_in_reverse_over_forward,
    refuse_float_out,
    refuse_memory,
    second_order_mode,
)
from srcad.operators.output_kinds import float_engine
from srcad.operators.preparation import (
    Prep,
    choose_chunk,
    input_slot,
    make_prep,
    read_arguments,
    values_of,
)
from srcad.operators.reverse_over_forward import (
    ReverseOverForwardEngine,
    in_user_code,
    refuses_forward_mode_of_f,
)
from srcad.operators.second_order_refusals import with_checked_suggestion


def prepare_second(operator, f, args, width, backend, mode=None) -> Prep:
    """The preparation of a second-order `operator` (`width` lanes); a refusal suggests
    another backend or mode only once srcad has checked that it takes f."""
    backend = backend or "python"
    try:
        return _prepare_second(operator, f, args, width, backend, mode)
    except SrcadError as err:
        alternatives = []
        if backend == "numba":
            alternatives.append(("use backend='python'", lambda: _prepare_second(
                operator, f, args, width, "python")))
        elif mode is not None:
            alternatives.append(("leave mode= out", lambda: _prepare_second(
                operator, f, args, width, backend)))
        raise with_checked_suggestion(err, alternatives) from None


def _prepare_second(operator, f, args, width, backend, mode=None) -> Prep:
    chosen = mode is None
    mode = second_order_mode(mode, backend)
    slots = read_arguments(args)
    if any(s.role == "output" for s in slots):
        raise ArgumentError(f"{operator} needs a float-valued f (no Output argument)")
    x = input_slot(slots)
    target, inner = f, slots
    if not x.is_array:
        position = [s.role for s in slots].index("x")
        target = scalar_as_array(f, len(slots), position)
        inner = list(slots)
        inner[position] = Slot("x", np.array([float(x.value)]))
    # forward over reverse of an array-valued f would differentiate the sum of its entries
    engine, mode = float_engine(
        operator, f, slots, lambda: _engine(operator, f, target, inner, width, backend, mode,
                                            chosen), _code_of_f,
        hint="use jacobian (jacfwd, jacrev) for functions returning arrays")
    prep = make_prep(operator, f, read_arguments(args), mode, engine.engine.width, engine,
                     scalar=not x.is_array, n=np.size(x.value))
    return prep


def _engine(operator, f, target, inner, width, backend, mode, chosen):
    """(the engine, the mode it runs): forward over reverse unless reverse over forward was
    asked for or forward mode refuses f's reverse code (where the mode was not asked for)."""
    if mode != REVERSE_OVER_FORWARD:
        try:
            engine = HessianEngine(target, inner, width, backend)
        except SrcadError as err:
            # forward mode refuses a construct of f's generated reverse code (an adjoint
            # array written element by element and bound whole): the error names that code,
            # not f. Unless the mode was asked for, run reverse over forward, which
            # differentiates f's forward code instead; if it refuses too, the first refusal
            # stands, unless forward mode refuses f itself (a custom_vjp function), which
            # names f's own construct. A second-order refusal of a rule (the reverse rule of
            # a custom_jvp function) also goes on to reverse over forward
            # the file of the code differentiated: srcad's wrapper of an f of a float, whose
            # lines are the wrapper's (the refusal is then put at f's def: user_located)
            origin = getattr(getattr(target, "__code__", None), "co_filename", "")
            # (a custom_vjp function's rule differentiated in forward mode also refuses the
            # rule's own code, in the user's file: reverse over forward names the call)
            rule = any(getattr(e, "forward_refused_rule", False) for e in err.problems)
            if not rule and not all((e.filename or "").startswith("<srcad")
                                    or isinstance(e, SecondOrderRefusal) for e in err.problems):
                raise
            if not chosen:
                raise in_user_code(err, origin, "reverse") from None
            try:
                engine = ReverseOverForwardEngine(target, inner, backend,
                                                  with_gradient=operator == "gradient_and_hvp")
            except ArgumentError as written:  # f writes its input: say so, naming f
                if written.construct != "input written":
                    raise in_user_code(err, origin, "reverse") from None
                raise
            except SrcadError as second:
                if refuses_forward_mode_of_f(second):
                    raise
                raise in_user_code(err, origin, "reverse") from None
            mode = REVERSE_OVER_FORWARD
    else:
        engine = ReverseOverForwardEngine(target, inner, backend,
                                          with_gradient=operator == "gradient_and_hvp")
    return engine, mode


def _code_of_f(chosen) -> object:
    """srcad's code of f that the chosen engine runs over: f's reverse code (forward over
    reverse) or its forward code (reverse over forward)."""
    engine, _ = chosen
    return engine.reverse.compiled if isinstance(engine, HessianEngine) else engine.forward


def prepare_second_order(operator, f, args, mode, chunk, backend, memory) -> Prep:
    """The one preparation path of the second-order operators (`prepare_hvp`,
    `prepare_gradient_and_hvp`, `prepare_hessian`, `prepare_second_derivative`): memory=
    refused, the options checked, the width chosen (hessian: a chunk of columns, refused
    beyond one on reverse over forward; the others: one lane), the engine prepared;
    second_derivative needs a float x."""
    refuse_memory(operator, memory)
    check_options(operator, mode, chunk, backend)
    width = 1
    if operator == "hessian":
        x = input_slot(read_arguments(args)).value
        if chunk not in (None, 1) and second_order_mode(mode, backend) == REVERSE_OVER_FORWARD:
            refuse_chunk_in_reverse_over_forward()
        width = choose_chunk(np.size(x), chunk)
    prep = prepare_second(operator, f, args, width, backend, mode)
    if operator == "second_derivative" and not prep.state["scalar"]:
        raise ArgumentError("second_derivative needs a float input", hint="use hessian")
    return prep


def ready(operator, preparer, f, args, prep, mode, chunk, backend, memory) -> Prep:
    """The start of every second-order call: memory= refused, `prep` checked against the
    options given (or a new preparation), then against the arguments, whose values the
    engine takes."""
    refuse_memory(operator, memory)
    slots = read_arguments(args)
    if prep is None:
        prep = preparer(f, *args, mode=mode, chunk=chunk, backend=backend)
    else:
        prep.check_options(mode, chunk, backend)
    prep.check(operator, f, slots)
    second_values(prep, slots)
    return prep


def second_values(prep, slots):
    values = values_of(slots)
    if prep.state["scalar"]:
        position = [s.role for s in slots].index("x")
        box = prep.state.setdefault("box", np.zeros(1))
        box[0] = values[position]
        values[position] = box
    prep.engine.set_values(values)


def hvp_pass(operator, preparer, f, args, tangent, prep, outs, mode, chunk, backend,
             memory) -> Prep:
    """One pass of `operator` (hvp, gradient_and_hvp) along `tangent`, its arguments and
    `outs` checked; returns the preparation, its engine holding the results."""
    prep = ready(operator, preparer, f, args, prep, mode, chunk, backend, memory)
    engine = prep.engine.engine
    expected = () if prep.state["scalar"] else engine.x_lanes[0].shape
    check_shape("tangent", tangent, expected)
    for out in outs:
        if out is not None:
            if prep.state["scalar"]:
                refuse_float_out(f"{operator} of a float x")
            check_out(out, expected)
    engine.seed([np.reshape(np.asarray(tangent, dtype=float), engine.x_lanes[0].shape)])
    engine.run()
    return prep


def lane_result(prep, result, out):
    """An x-shaped result of a pass: a float for a float x, else `out` refilled or a copy."""
    if prep.state["scalar"]:
        return float(result[0])
    if out is not None:
        out[...] = result
        return out
    return result.copy()


