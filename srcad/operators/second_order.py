"""Second-order operators. python backend: forward over reverse, srcad's forward (vector) mode
run over the reverse code srcad generated, which is plain Python; hvp is one lane, hessian
chunks of lanes over the unit vectors, second_derivative one lane over a float input (wrapped
as a one-element array). numba backend: reverse over forward
(srcad/operators/reverse_over_forward.py), srcad's numba reverse mode run over srcad's forward code;
one pass per Hessian
column. """

from __future__ import annotations

from typing import Any

import numpy as np

from srcad.build.engines import HessianEngine, Slot, scalar_as_array
from srcad.build.progress import Progress
from srcad.errors import ArgumentError, SrcadError
from srcad.hints import Backend, Function, Memory, Point, SecondOrderMode
from srcad.operators.operator_options import (
    REVERSE_OVER_FORWARD,
    SECOND_ORDER,
    check_options,
    check_out,
    refuse_chunk_in_reverse_over_forward,
    refuse_float_out,
    refuse_memory,
)
from srcad.operators.parallel_operators import parallel_option
from srcad.operators.prep_cache import reusing_preparations
from srcad.operators.preparation import (
    Prep,
    check_shape,
    choose_chunk,
    input_slot,
    make_prep,
    operator_entry,
    output_kind,
    read_arguments,
    values_of,
)
from srcad.operators.reverse_over_forward import ReverseOverForwardEngine, in_user_code


# -- second order: forward over reverse ---------------------------------------------------------
@operator_entry
@parallel_option("prepare_hvp")
def prepare_hvp(f: Function, *args: Any, tangent: Point | None = None,
                mode: SecondOrderMode = None, chunk: int | None = None,
                backend: Backend | None = "python",
                memory: Memory = None) -> Prep:
    """Prepare `hvp` of a float-valued f at arguments like `args`: srcad's reverse code for f,
    differentiated again in forward mode (one tangent lane), with every buffer allocated.

    Args:
        f: the function; it returns a float.
        *args: f's arguments: exactly one bare, x (a float or a float array), the others
            `Constant`, `Cache` or `Output` contexts.
        tangent: a tangent shaped like x (optional: given at each call).
        mode: "forward-over-reverse" or "reverse-over-forward" (by backend when not
            given).
        chunk: refused: one tangent lane.
        backend: "python" or "numba".
        memory: refused: second-order modes do not checkpoint.

    Returns:
        The preparation, to pass as `prep=` to `hvp`.

    >>> def f(x):
    ...     return x[0] ** 2 * x[1]
    >>> prep = prepare_hvp(f, np.zeros(2))
    >>> hvp(f, np.array([1.0, 3.0]), tangent=np.array([0.0, 1.0]), prep=prep)
    array([2., 0.])
    """
    refuse_memory("hvp", memory)
    check_options("hvp", mode, chunk, backend)
    return _prepare_second("hvp", f, args, 1, backend, mode)


def second_order_mode(mode, backend) -> str:
    """The mode given, else the backend's: forward over reverse on python (vector lanes over
    plain Python reverse code), reverse over forward on numba (its reverse code passes tape
    arrays srcad's forward mode does not differentiate; its forward code is plain)."""
    if mode == SECOND_ORDER and backend == "numba":
        raise ArgumentError("backend='numba' runs second order as reverse over forward: the "
                            "numba reverse code takes and returns tape arrays, which srcad's "
                            "forward mode does not differentiate", construct="mode",
                            hint="leave mode out (or mode='reverse-over-forward'), or use "
                            "backend='python'")
    if mode is not None:
        return mode
    return REVERSE_OVER_FORWARD if backend == "numba" else SECOND_ORDER


def _prepare_second(operator, f, args, width, backend, mode=None) -> Prep:
    backend = backend or "python"
    chosen = mode is None
    mode = second_order_mode(mode, backend)
    slots = read_arguments(args)
    if any(s.role == "output" for s in slots):
        raise ArgumentError(f"{operator} needs a float-valued f (no Output argument)")
    # forward over reverse of an array-valued f would differentiate the sum of its entries
    if output_kind(f, slots)[0] != "float":
        raise ArgumentError(f"{operator} needs f to return a float",
                            hint="use jacobian (jacfwd, jacrev) for functions returning arrays")
    x = input_slot(slots)
    target = f
    if not x.is_array:
        position = [s.role for s in slots].index("x")
        target = scalar_as_array(f, len(slots), position)
        slots = list(slots)
        slots[position] = Slot("x", np.array([float(x.value)]))
    if mode != REVERSE_OVER_FORWARD:
        try:
            engine = HessianEngine(target, slots, width, backend)
        except SrcadError as err:
            # forward mode refuses a construct of f's generated reverse code (an adjoint
            # array written element by element and bound whole): the error names that code,
            # not f. Unless the mode was asked for, run reverse over forward, which
            # differentiates f's forward code instead; if it refuses too, the first refusal
            # stands
            origin = getattr(getattr(f, "__code__", None), "co_filename", "")
            if not all((e.filename or "").startswith("<srcad") for e in err.problems):
                raise
            if not chosen:
                raise in_user_code(err, origin, "reverse", hint="leave mode= out: srcad then "
                                   "runs reverse over forward") from None
            try:
                engine = ReverseOverForwardEngine(target, slots, backend,
                                                  with_gradient=operator == "gradient_and_hvp")
            except ArgumentError as written:  # f writes its input: say so, naming f
                if written.construct != "input written":
                    raise in_user_code(err, origin, "reverse") from None
                raise
            except SrcadError:
                raise in_user_code(err, origin, "reverse") from None
            mode = REVERSE_OVER_FORWARD
    else:
        engine = ReverseOverForwardEngine(target, slots, backend,
                                          with_gradient=operator == "gradient_and_hvp")
    prep = make_prep(operator, f, read_arguments(args), mode, engine.engine.width, engine,
                     scalar=not x.is_array, n=np.size(x.value))
    return prep


def _prepared(operator, preparer, f, args, prep, mode, chunk, backend) -> Prep:
    """`prep`, checked against the options given, or a new preparation."""
    if prep is None:
        return preparer(f, *args, mode=mode, chunk=chunk, backend=backend)
    prep.check_options(mode, chunk, backend)
    return prep


def _second_values(prep, slots):
    values = values_of(slots)
    if prep.state["scalar"]:
        position = [s.role for s in slots].index("x")
        box = prep.state.setdefault("box", np.zeros(1))
        box[0] = values[position]
        values[position] = box
    prep.engine.set_values(values)


@operator_entry
@parallel_option("hvp")
@reusing_preparations("hvp", prepare_hvp)
def hvp(f: Function, *args: Any, tangent: Point, prep: Prep | None = None,
        out: np.ndarray | None = None, mode: SecondOrderMode = None, chunk: int | None = None,
        backend: Backend | None = None,
        memory: Memory = None) -> Point:
    """H v, the Hessian of a float-valued f at x times v (forward over reverse). With out=
    the result is `out` itself, refilled by the next call with it.


    Args:
        f: the function; it returns a float.
        *args: f's arguments: exactly one bare, x (a float or a float array), the others
            `Constant`, `Cache` or `Output` contexts.
        tangent: v, shaped like x.
        prep: a preparation of `prepare_hvp` for arguments like these.
        out: an array shaped like x to write H v into.
        mode: "forward-over-reverse" or "reverse-over-forward" (by backend when not
            given).
        chunk: refused: one tangent lane.
        backend: "python" or "numba".
        memory: refused: second-order modes do not checkpoint.

    Returns:
        H v, shaped like x; `out` itself when given.

    >>> def f(x):
    ...     return x[0] ** 2 * x[1]
    >>> hvp(f, np.array([1.0, 3.0]), tangent=np.array([1.0, 0.0]))
    array([6., 2.])
    """
    refuse_memory("hvp", memory)
    prep = _hvp_pass("hvp", prepare_hvp, f, args, tangent, prep, (out,), mode, chunk, backend)
    return _lane_result(prep, prep.engine.engine.output_lanes[0], out)


def _hvp_pass(operator, preparer, f, args, tangent, prep, outs, mode, chunk, backend) -> Prep:
    """One pass of `operator` (hvp, gradient_and_hvp) along `tangent`, its arguments and
    `outs` checked; returns the preparation, its engine holding the results."""
    slots = read_arguments(args)
    prep = _prepared(operator, preparer, f, args, prep, mode, chunk, backend)
    prep.check(operator, f, slots)
    _second_values(prep, slots)
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


def _lane_result(prep, result, out):
    """An x-shaped result of a pass: a float for a float x, else `out` refilled or a copy."""
    if prep.state["scalar"]:
        return float(result[0])
    if out is not None:
        out[...] = result
        return out
    return result.copy()


@operator_entry
@parallel_option("prepare_gradient_and_hvp")
def prepare_gradient_and_hvp(f: Function, *args: Any, tangent: Point | None = None,
                             mode: SecondOrderMode = None, chunk: int | None = None,
                             backend: Backend | None = "python",
                             memory: Memory = None) -> Prep:
    """Prepare `gradient_and_hvp` of a float-valued f at arguments like `args`.

    Args:
        f: the function; it returns a float.
        *args: f's arguments: exactly one bare, x (a float or a float array), the others
            `Constant`, `Cache` or `Output` contexts.
        tangent: a tangent shaped like x (optional: given at each call).
        mode: "forward-over-reverse" or "reverse-over-forward" (by backend when not
            given).
        chunk: refused: one tangent lane.
        backend: "python" or "numba".
        memory: refused: second-order modes do not checkpoint.

    Returns:
        The preparation, to pass as `prep=` to `gradient_and_hvp`.

    >>> def f(x):
    ...     return x[0] ** 2 * x[1]
    >>> prep = prepare_gradient_and_hvp(f, np.zeros(2))
    >>> g, hv = gradient_and_hvp(f, np.array([1.0, 3.0]), tangent=np.ones(2), prep=prep)
    >>> print(g, hv)
    [6. 1.] [8. 2.]
    """
    refuse_memory("gradient_and_hvp", memory)
    check_options("gradient_and_hvp", mode, chunk, backend)
    return _prepare_second("gradient_and_hvp", f, args, 1, backend, mode)


@operator_entry
@parallel_option("gradient_and_hvp")
@reusing_preparations("gradient_and_hvp", prepare_gradient_and_hvp)
def gradient_and_hvp(f: Function, *args: Any, tangent: Point, prep: Prep | None = None,
                     out: tuple | None = None, mode: SecondOrderMode = None,
                     chunk: int | None = None, backend: Backend | None = None,
                     memory: Memory = None) -> tuple:
    """(grad f(x), H v) from the one pass `hvp` runs, as JAX's `jvp(grad(f), (x,), (v,))`:
    forward over reverse computes the gradient on its way to H v, and reverse over forward
    (numba) reads it off the direction's adjoint (grad f . v is linear in v). With
    out=(g, hv) the results are those arrays, refilled by the next call with them.


    Args:
        f: the function; it returns a float.
        *args: f's arguments: exactly one bare, x (a float or a float array), the others
            `Constant`, `Cache` or `Output` contexts.
        tangent: v, shaped like x.
        prep: a preparation of `prepare_gradient_and_hvp` for arguments like these.
        out: a pair of arrays shaped like x, `(g, hv)`, to write the results into.
        mode: "forward-over-reverse" or "reverse-over-forward" (by backend when not
            given).
        chunk: refused: one tangent lane.
        backend: "python" or "numba".
        memory: refused: second-order modes do not checkpoint.

    Returns:
        `(gradient, H v)`, each shaped like x.

    >>> def f(x):
    ...     return x[0] ** 2 * x[1]
    >>> gradient_and_hvp(f, np.array([1.0, 3.0]), tangent=np.array([1.0, 0.0]))
    (array([6., 1.]), array([6., 2.]))
    """
    refuse_memory("gradient_and_hvp", memory)
    if out is not None and not (isinstance(out, tuple) and len(out) == 2):
        raise ArgumentError("gradient_and_hvp takes out=(g, hv), two x-shaped arrays",
                            construct="out")
    outs = out if out is not None else (None, None)
    prep = _hvp_pass("gradient_and_hvp", prepare_gradient_and_hvp, f, args, tangent, prep,
                     outs, mode, chunk, backend)
    return (_lane_result(prep, prep.engine.gradient, outs[0]),
            _lane_result(prep, prep.engine.engine.output_lanes[0], outs[1]))


@operator_entry
@parallel_option("prepare_hessian")
def prepare_hessian(f: Function, *args: Any, mode: SecondOrderMode = None,
                    chunk: int | None = None, backend: Backend | None = "python",
                    memory: Memory = None) -> Prep:
    """Prepare the `hessian` operator of a float-valued f at arguments like `args`: forward
    over reverse, `chunk` Hessian columns per call (at most 16 by default).


    Args:
        f: the function; it returns a float.
        *args: f's arguments: exactly one bare, x (a float or a float array), the others
            `Constant`, `Cache` or `Output` contexts.
        mode: "forward-over-reverse" or "reverse-over-forward" (by backend when not
            given).
        chunk: the number of Hessian columns per call.
        backend: "python" or "numba".
        memory: refused: second-order modes do not checkpoint.

    Returns:
        The preparation, to pass as `prep=` to `hessian`.

    >>> def f(x):
    ...     return x[0] ** 2 * x[1]
    >>> prep = prepare_hessian(f, np.zeros(2))
    >>> hessian(f, np.array([1.0, 3.0]), prep=prep)
    array([[6., 2.],
           [2., 0.]])
    """
    refuse_memory("hessian", memory)
    check_options("hessian", mode, chunk, backend)
    x = input_slot(read_arguments(args)).value
    if chunk not in (None, 1) and second_order_mode(mode, backend) == REVERSE_OVER_FORWARD:
        refuse_chunk_in_reverse_over_forward()
    return _prepare_second("hessian", f, args, choose_chunk(np.size(x), chunk), backend, mode)


@operator_entry
@parallel_option("hessian")
@reusing_preparations("hessian", prepare_hessian)
def hessian(f: Function, *args: Any, prep: Prep | None = None, out: np.ndarray | None = None,
            mode: SecondOrderMode = None, chunk: int | None = None,
            backend: Backend | None = None,
            memory: Memory = None) -> np.ndarray:
    """The Hessian of a float-valued f at x, an (n, n) array (chunks of forward-over-reverse
    lanes); with out=H it is H itself, refilled by the next call with it. Of a float x it
    is a float, as JAX's and `second_derivative`'s."""
    refuse_memory("hessian", memory)
    slots = read_arguments(args)
    prep = _prepared("hessian", prepare_hessian, f, args, prep, mode, chunk, backend)
    prep.check("hessian", f, slots)
    if out is not None and prep.state["scalar"]:
        refuse_float_out("hessian of a float x")
    _second_values(prep, slots)
    n = prep.state["n"]
    H = out if out is not None else np.empty((n, n))
    if out is not None:
        check_out(H, (n, n))
    engine = prep.engine.engine
    with Progress(n, "hessian columns") as progress:
        for start in range(0, n, engine.width):
            engine.seed_basis(start, n)
            engine.run()
            for k in range(min(engine.width, n - start)):
                H[:, start + k] = engine.output_lanes[k].reshape(-1)
            progress.step(min(engine.width, n - start))
    return float(H[0, 0]) if prep.state["scalar"] else H


@operator_entry
@parallel_option("prepare_second_derivative")
def prepare_second_derivative(f: Function, *args: Any, mode: SecondOrderMode = None,
                              chunk: int | None = None,
                              backend: Backend | None = "python",
                              memory: Memory = None) -> Prep:
    """Prepare `second_derivative` of a float-valued f of a float input x at arguments like
    `args`.

    Args:
        f: the function; it returns a float.
        *args: f's arguments: exactly one bare, x (a float or a float array), the others
            `Constant`, `Cache` or `Output` contexts.
        mode: "forward-over-reverse" or "reverse-over-forward" (by backend when not
            given).
        chunk: refused: one lane.
        backend: "python" or "numba".
        memory: refused: second-order modes do not checkpoint.

    Returns:
        The preparation, to pass as `prep=` to `second_derivative`.

    >>> def f(x):
    ...     return x ** 4
    >>> prep = prepare_second_derivative(f, 1.0)
    >>> second_derivative(f, 2.0, prep=prep)
    48.0
    """
    refuse_memory("second_derivative", memory)
    check_options("second_derivative", mode, chunk, backend)
    prep = _prepare_second("second_derivative", f, args, 1, backend, mode)
    if not prep.state["scalar"]:
        raise ArgumentError("second_derivative needs a float input", hint="use hessian")
    return prep


@operator_entry
@parallel_option("second_derivative")
@reusing_preparations("second_derivative", prepare_second_derivative)
def second_derivative(f: Function, *args: Any, prep: Prep | None = None,
                      out: np.ndarray | None = None, mode: SecondOrderMode = None,
                      chunk: int | None = None, backend: Backend | None = None,
                      memory: Memory = None) -> float:
    """d^2 f / d x^2 for a float input and a float-valued f.


    Args:
        f: the function; it returns a float.
        *args: f's arguments: exactly one bare, x (a float or a float array), the others
            `Constant`, `Cache` or `Output` contexts.
        prep: a preparation of `prepare_second_derivative` for arguments like these.
        out: refused: the result is a float.
        mode: "forward-over-reverse" or "reverse-over-forward" (by backend when not
            given).
        chunk: refused: one lane.
        backend: "python" or "numba".
        memory: refused: second-order modes do not checkpoint.

    Returns:
        d^2 f / d x^2, a float.

    >>> def f(x):
    ...     return x ** 4
    >>> second_derivative(f, 2.0)
    48.0
    """
    refuse_memory("second_derivative", memory)
    if out is not None:
        refuse_float_out("second_derivative")
    slots = read_arguments(args)
    prep = _prepared("second_derivative", prepare_second_derivative, f, args, prep, mode,
                     chunk, backend)
    prep.check("second_derivative", f, slots)
    _second_values(prep, slots)
    engine = prep.engine.engine
    engine.seed([np.ones(1)])
    engine.run()
    return float(engine.output_lanes[0][0])
