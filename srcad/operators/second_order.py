"""Hessian-vector products: `hvp` (H v) and `gradient_and_hvp` (grad f and H v from one
pass), with their preparations. One tangent lane of forward over reverse on the python
backend, one pass of reverse over forward on numba (srcad/operators/second_order_setup.py);
the Hessian itself: srcad/operators/hessian_operators.py."""

from __future__ import annotations

from typing import Any

import numpy as np

from srcad.errors import ArgumentError
from srcad.hints import Backend, Function, Memory, Point, SecondOrderMode
from srcad.operators.operator_options import refuse_memory
from srcad.operators.parallel_operators import parallel_option
from srcad.operators.prep_cache import reusing_preparations
from srcad.operators.preparation import Prep, operator_entry
from srcad.operators.second_order_setup import hvp_pass, lane_result, prepare_second_order


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
    return prepare_second_order("hvp", f, args, mode, chunk, backend, memory)


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
    prep = hvp_pass("hvp", prepare_hvp, f, args, tangent, prep, (out,), mode, chunk, backend,
                    memory)
    return lane_result(prep, prep.engine.engine.output_lanes[0], out)


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
    return prepare_second_order("gradient_and_hvp", f, args, mode, chunk, backend, memory)


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
    refuse_memory("gradient_and_hvp", memory)  # before out=, as every operator
    if out is not None and not (isinstance(out, tuple) and len(out) == 2):
        raise ArgumentError("gradient_and_hvp takes out=(g, hv), two x-shaped arrays",
                            construct="out")
    outs = out if out is not None else (None, None)
    prep = hvp_pass("gradient_and_hvp", prepare_gradient_and_hvp, f, args, tangent, prep,
                     outs, mode, chunk, backend, memory)
    return (lane_result(prep, prep.engine.gradient, outs[0]),
            lane_result(prep, prep.engine.engine.output_lanes[0], outs[1]))
