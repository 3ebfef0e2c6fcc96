"""The Hessian operators: `hessian` (chunks of forward-over-reverse lanes over the unit
vectors on the python backend, one reverse-over-forward pass per column on numba) and
`second_derivative` (one lane over a float input, wrapped as a one-element array), with their
preparations (srcad/operators/second_order_setup.py)."""

from __future__ import annotations

from typing import Any

import numpy as np

from srcad.build.progress import Progress
from srcad.hints import Backend, Function, Memory, SecondOrderMode
from srcad.operators.operator_options import check_out, refuse_float_out, refuse_memory
from srcad.operators.parallel_operators import parallel_option
from srcad.operators.prep_cache import reusing_preparations
from srcad.operators.preparation import Prep, operator_entry
from srcad.operators.second_order_setup import prepare_second_order, ready


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
    return prepare_second_order("hessian", f, args, mode, chunk, backend, memory)


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
    prep = ready("hessian", prepare_hessian, f, args, prep, mode, chunk, backend, memory)
    if out is not None and prep.state["scalar"]:
        refuse_float_out("hessian of a float x")
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
    return prepare_second_order("second_derivative", f, args, mode, chunk, backend, memory)


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
    refuse_memory("second_derivative", memory)  # before out=, as every operator
    if out is not None:
        refuse_float_out("second_derivative")
    prep = ready("second_derivative", prepare_second_derivative, f, args, prep, mode, chunk,
                 backend, memory)
    engine = prep.engine.engine
    engine.seed([np.ones(1)])
    engine.run()
    return float(engine.output_lanes[0][0])
