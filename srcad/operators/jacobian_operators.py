"""The jacobian operators: `jacobian`, `value_and_jacobian` and `prepare_jacobian` (forward vector
mode up to a few inputs per output, by the cost model of srcad/operators/jacobian_mode.py, else
reverse mode: W output rows per sweep where the reverse code carries lanes
(srcad/operators/batched_reverse.py), one sweep per row otherwise; sparse= colors the
columns).
"""

from __future__ import annotations

from typing import Any

import numpy as np

from srcad.build.engines import ForwardEngine, ReverseEngine, primal_value
from srcad.build.plans import MISS
from srcad.build.progress import Progress
from srcad.errors import ArgumentError, LaneLayoutError, SrcadError
from srcad.hints import Backend, Function, Memory, OperatorMode, Point
from srcad.operators.batched_reverse import prepare_batched_reverse_jacobian
from srcad.operators.jacobian_mode import default_mode
from srcad.operators.lane_calls import LanesUnsupported
from srcad.operators.operator_options import (
    check_memory,
    check_options,
    check_out,
    memory_option,
    refuse_chunk_in_reverse,
)
from srcad.operators.output_kinds import output_kind
from srcad.operators.parallel_operators import parallel_option
from srcad.operators.prep_cache import reusing_preparations
from srcad.operators.preparation import (
    Prep,
    PreparationMismatchError,
    default_width,
    forward_engine,
    input_slot,
    make_prep,
    operator_entry,
    read_arguments,
    use_prep,
)
from srcad.operators.reverse_lane_count import (
    allocated_floats,
    default_batched_reverse_jacobian,
    default_lane_count,
)
from srcad.operators.sparse.sparse_jacobian import prepare_sparse_jacobian, sparse_jacobian_call


def _jacobian_key(extra):
    """A kept jacobian preparation also depends on sparse= and memory=."""
    return bool(extra.get("sparse")), extra.get("memory")


@operator_entry
@parallel_option("prepare_jacobian")
def prepare_jacobian(f: Function, *args: Any, mode: OperatorMode = None, chunk: int | None = None,
                     backend: Backend | None = "python", sparse: bool = False,
                     memory: Memory = None) -> Prep:
    """Prepare `jacobian` and `value_and_jacobian` of f at arguments like `args`.

    Chooses forward vector mode while x has at most a few elements per output element (for
    code written element by element 8 on the python backend and 4 on numba, for whole-array
    code 2 and 1: srcad/operators/jacobian_mode.py), else reverse mode, W output elements per
    pass (`mode=` forces either), and the number of tangent lanes per call
    (`chunk`); allocates every seed, shadow and buffer once. Pass the result as `prep=`.
    sparse=True: detect J's sparsity pattern and color its columns once, here; calls return
    a scipy.sparse.csr_matrix computed by forward mode with one lane per color
    (srcad/operators/sparse/sparse_jacobian.py).


    Args:
        f: the function; it returns a float array or writes one passed as `Output(y)`.
        *args: f's arguments: exactly one bare, x (a float or a float array), the others
            `Constant`, `Cache` or `Output` contexts.
        mode: "forward" or "reverse" (chosen when not given).
        chunk: the number of tangent lanes per forward call.
        backend: "python" or "numba".
        sparse: detect the sparsity pattern and color the columns here.
        memory: reverse mode: a checkpointing budget (bytes or "50MB").

    Returns:
        The preparation, to pass as `prep=` to `jacobian` or `value_and_jacobian`.

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
    explicit_mode, engine = mode, None
    if mode is None:  # the cost model (srcad/operators/jacobian_mode.py)
        mode, engine = choose_mode(f, slots, n, m, chunk, backend, memory)
    memory = memory_option("jacobian", mode, memory)
    if mode == "reverse" and chunk is not None:
        if explicit_mode != "reverse":
            refuse_chunk_in_reverse(f"jacobian (mode=None picks reverse mode for {n} inputs "
                                    f"and {m} outputs)")
        if memory is not None:
            raise ArgumentError("memory= checkpoints one-row reverse passes; chunked reverse "
                                "passes keep whole tapes", construct="memory",
                                hint="leave chunk= out, or leave memory= out")
        if chunk != 1:  # chunk=1: the one-row sweeps below, without lanes
            return prepare_batched_reverse_jacobian(f, slots, template, chunk, backend, n, m)
    if mode == "forward":  # python: stacked lanes, so the one-call entry runs it (plans.py)
        engine = engine or forward_engine(f, slots, n, chunk, backend, stack_narrow=True)
        return make_prep("jacobian", f, slots, "forward", engine.width, engine, n=n, m=m)
    lanes_from = 2 if backend == "numba" else PYTHON_LANES_FROM
    if m >= lanes_from and memory is None and chunk is None \
            and isinstance(input_slot(slots).value, np.ndarray):
        # W-wide adjoints of the arguments and of the arrays f allocates (python: measured)
        width = default_lane_count(slots, template, m, backend,
                                   allocated_floats(f, slots, backend))
        batched = default_batched_reverse_jacobian(f, slots, template, n, m, backend, width) \
            if width >= lanes_from else None
        if batched is not None:  # W rows a sweep
            return batched
    engine, state = _one_row_engine(f, slots, backend, memory, kind, template)
    return make_prep("jacobian", f, slots, "reverse", 1, engine, n=n, m=m, **state)


def choose_mode(f, slots, n, m, chunk, backend, memory):
    """(mode, the forward engine built to choose it or None): the cost model's mode
    (srcad/operators/jacobian_mode.py), building f's forward engine where the form of its
    lanes decides (whole-array code, whose lanes cannot be stacked, is found by the forward
    transformation, before an unrolled engine is built: on numba that would compile it).
    Where forward mode refuses f, reverse mode."""
    mode = default_mode(n, m, backend, memory=memory)
    if mode is not None:
        return mode, None
    try:
        if chunk is None:
            engine = ForwardEngine(f, slots, default_width(n, backend), True, backend)
        else:
            engine = forward_engine(f, slots, n, chunk, backend, stack_narrow=True)
        form = "stacked" if engine.stacked else "unrolled"
    except LaneLayoutError:
        engine, form = None, "unrolled"
    except SrcadError:
        return "reverse", None
    mode = default_mode(n, m, backend, form)
    return mode, engine if mode == "forward" else None


# python backend: fewer rows are swept one by one (W lanes of NumPy vectors cost more per
# statement than W floats below about four)
PYTHON_LANES_FROM = 4


def _one_row_engine(f, slots, backend, memory, kind, template):
    """(engine, its state): one reverse sweep per row of the jacobian."""
    engine = ReverseEngine(f, slots, backend, array_tapes=True,  # no tape list per row
                           memory=memory)
    if kind == "array":
        engine.flat[engine.seed_index] = np.zeros_like(template)
    x = input_slot(slots).value
    row = np.zeros_like(x) if isinstance(x, np.ndarray) else None
    return engine, {"row": row, "flat_row": None if row is None else row.reshape(-1)}


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
    scipy.sparse.csr_matrix (see jacobian).

    Args:
        f: the function; it returns a float array or writes one passed as `Output(y)`.
        *args: f's arguments: exactly one bare, x (a float or a float array), the others
            `Constant`, `Cache` or `Output` contexts.
        prep: a preparation of `prepare_jacobian` for arguments like these (made here and
            kept when not given).
        out: an (output size, input size) array to write the jacobian into.
        mode: "forward" or "reverse" (chosen when not given).
        chunk: the number of tangent lanes per forward call.
        backend: "python" or "numba".
        sparse: return a scipy.sparse.csr_matrix (see `jacobian`).
        memory: reverse mode: a checkpointing budget (bytes or "50MB").

    Returns:
        `(output, jacobian)`: f's output array and its (output size, input size) jacobian.

    >>> def f(x):
    ...     return x * x
    >>> y, J = value_and_jacobian(f, np.array([1.0, 3.0]))
    >>> print(y, J.tolist())
    [1. 9.] [[2.0, 0.0], [0.0, 6.0]]
    """
    return _value_and_jacobian(f, args, prep, out, mode, chunk, backend, sparse, memory)


def _value_and_jacobian(f, args, prep, out, mode, chunk, backend, sparse=None, memory=None):
    if prep is not None and prep.run is not None and prep.function is f \
            and prep.operator == "jacobian" and mode is None and chunk is None \
            and backend is None and not sparse and memory is None:
        result = prep.run(args, out)  # one call of all lanes, bound at preparation (plans.py)
        if result is not MISS:
            return result
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
        value, J = sparse_jacobian_call(prep, out, slots)
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
        with Progress(n, "jacobian columns (forward)") as progress:
            for start in range(0, n, engine.width):
                engine.seed_basis(start, n)
                value, tangents = engine.run()
                engine.write_columns(J, start, min(engine.width, n - start), tangents)
                progress.step(min(engine.width, n - start))
    elif prep.state.get("batched"):
        try:
            with Progress(m, "jacobian rows (reverse)") as progress:
                for start in range(0, m, engine.width):
                    value = engine.rows(J, start, m)
                    progress.step(min(engine.width, m - start))
        except LanesUnsupported:
            engine.output_restore.put_back(engine.flat)  # as given: the rows' passes read them
            if not prep.state.get("chosen"):
                raise  # chunk= asked for lanes
            # a call of primal values returned an array at these values: one row a sweep
            # from now on (the preparation keeps it)
            prep.engine, state = _one_row_engine(f, slots, engine.backend, None, *output_kind(
                f, slots))
            prep.state.update(state, batched=False)
            return _value_and_jacobian(f, args, prep, out, mode, chunk, backend)
    else:
        row, flat_row = prep.state["row"], prep.state["flat_row"]
        with Progress(m, "jacobian rows (reverse)") as progress:
            for i in range(m):
                value, adjoints = engine.run(x_bar=row, basis=i)
                J[i] = flat_row if row is not None else adjoints[0]
                progress.step()
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
    preparation's pattern, refilled in place (srcad/operators/sparse/sparse_jacobian.py).

    f returns an array or writes one passed as `Output(y)`.


    Args:
        f: the function; it returns a float array or writes one passed as `Output(y)`.
        *args: f's arguments: exactly one bare, x (a float or a float array), the others
            `Constant`, `Cache` or `Output` contexts.
        prep: a preparation of `prepare_jacobian` for arguments like these (made here and
            kept when not given).
        out: an (output size, input size) array (a CSR matrix when sparse) to fill.
        mode: "forward" or "reverse" (chosen when not given).
        chunk: the number of tangent lanes per forward call.
        backend: "python" or "numba".
        sparse: return a scipy.sparse.csr_matrix built from J's sparsity pattern.
        memory: reverse mode: a checkpointing budget (bytes or "50MB").

    Returns:
        The jacobian, an (output size, input size) array; `out` itself when given.

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
