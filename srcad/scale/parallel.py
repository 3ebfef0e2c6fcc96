"""`parallel=True`: a sum over the rows of a data argument, differentiated on all cores.

`srcad.scale.row_sums` proves from the source that f(..., data, ...) is the sum of f over
consecutive chunks of data's rows. `autodiff(..., parallel=True)` splits the rows into one
chunk per numba thread and runs the numba-compiled derivative of each chunk on its own thread
(the generated code is compiled `nogil`, so the chunks really run at once). Every chunk
accumulates its adjoints into its own zeroed shadow arrays (per-thread buffers: no two
threads write one array) and keeps its own tapes; the chunk results are then added in chunk
order. The chunks are fixed by the row count and the thread count alone, so a call gives the
same bits every time, and agrees with parallel=False up to the order of the additions.
"""

from __future__ import annotations

import concurrent.futures
import threading

import numpy as np

from srcad.annotations import Active, Annotation, Const, Constant, Duplicated
from srcad.build import differentiate
from srcad.build.arguments import bind_arguments
from srcad.errors import ArgumentError
from srcad.scale.row_sums import required_row_sum

_POOL = []
_POOL_LOCK = threading.Lock()


def thread_count() -> int:
    """numba's thread count (NUMBA_NUM_THREADS, numba.set_num_threads)."""
    import numba

    return numba.get_num_threads()


def _pool(workers: int) -> concurrent.futures.ThreadPoolExecutor:
    with _POOL_LOCK:
        if not _POOL or _POOL[0]._max_workers < workers:
            _POOL[:] = [concurrent.futures.ThreadPoolExecutor(workers, "srcad-parallel")]
        return _POOL[0]


def chunk_bounds(rows: int, count: int) -> list:
    """`count` (at most `rows`, at least 1) consecutive (start, stop) chunks of nearly equal
    size covering range(rows)."""
    count = max(1, min(count, rows))
    edges = [rows * k // count for k in range(count + 1)]
    return list(zip(edges[:-1], edges[1:]))


def data_argument(f, args, where: str, operator: bool = False):
    """(position, rows) of the argument f sums over; refused when f is not a row sum or that
    argument is not a constant array."""
    split = required_row_sum(f, f"{where} needs f to be a sum over the rows of an argument")
    value = args[split.data_position]
    if operator:  # the operators' data is a Constant context (a bare argument is x)
        if not isinstance(value, Constant):
            raise ArgumentError(f"{where} splits argument {split.data_position} "
                                f"(`{split.data_name}`) into chunks of rows, so it must be "
                                f"passed as Constant(...)", construct="parallel",
                                hint="differentiate with respect to another argument")
        value = value.value
    elif isinstance(value, Annotation) and not isinstance(value, Const):
        raise ArgumentError(f"{where} splits argument {split.data_position} "
                            f"(`{split.data_name}`) into chunks of rows, so it must be a "
                            f"constant, not {type(value).__name__}", construct="parallel",
                            hint="differentiate with respect to the other arguments")
    value = value.value if isinstance(value, Const) else value
    if not isinstance(value, np.ndarray) or value.ndim < 1:
        raise ArgumentError(f"{where} splits argument {split.data_position} "
                            f"(`{split.data_name}`) into chunks of rows: it must be a NumPy "
                            f"array, got {type(value).__name__}", construct="parallel")
    return split.data_position, value


def check_parallel_options(backend, memory, where: str) -> None:
    """parallel=True needs the numba backend, and does not take memory= (checkpointing splits
    a loop's tape in time, parallel=True its rows over threads: not both at once)."""
    if backend != "numba":
        raise ArgumentError(f"parallel=True runs numba-compiled code on several threads, and "
                            f"{where} was given backend={backend or 'python'!r}",
                            construct="parallel",
                            hint="pass backend='numba'")
    if memory is not None:
        raise ArgumentError(f"memory= and parallel=True together are not supported ({where})",
                            construct="memory", hint="leave one of them out")


def run_chunks(run, count: int) -> list:
    """[run(0), ..., run(count - 1)], on the thread pool."""
    return list(_pool(count).map(run, range(count)))


def autodiff_parallel(autodiff, mode, f, args, seed, batch, backend, memory=None):
    """`autodiff(mode, f, *args, ...)` with the rows of f's data argument split over threads."""
    check_parallel_options(backend, memory, "autodiff")

    args = bind_arguments(f, args)
    position, data = data_argument(f, args, "parallel=True")
    chunks = chunk_bounds(len(data), thread_count())
    if len(chunks) == 1:
        return autodiff(mode, f, *args, seed=seed, batch=batch, backend=backend)
    per_chunk = []
    for start, stop in chunks:
        chunk_args = list(args)
        chunk_args[position] = data[start:stop]
        if mode.reverse:  # every chunk adds into its own shadows
            chunk_args = [type(a)(a.value, np.zeros_like(a.shadow))
                          if isinstance(a, Duplicated) and isinstance(a.shadow, np.ndarray)
                          else a for a in chunk_args]
        per_chunk.append(chunk_args)

    def run(k):
        return autodiff(mode, f, *per_chunk[k], seed=seed, batch=batch, backend=backend)

    results = run_chunks(run, len(chunks))
    if not mode.reverse:
        return _sum_forward(results, mode.with_primal)
    return _sum_reverse(args, per_chunk, results, mode.with_primal)


def _sum_reverse(args, per_chunk, results, with_primal):
    derivatives = [r[0] for r in results] if with_primal else results
    for position, arg in enumerate(args):
        if isinstance(arg, Duplicated) and isinstance(arg.shadow, np.ndarray):
            for chunk_args in per_chunk:
                arg.shadow += chunk_args[position].shadow
    summed = []
    for position in range(len(derivatives[0])):
        if isinstance(args[position], Active):
            total = derivatives[0][position]
            for d in derivatives[1:]:
                total = total + d[position]
            summed.append(total)
        else:
            summed.append(derivatives[0][position])
    summed = tuple(summed)
    if not with_primal:
        return summed
    return summed, _sum([r[1] for r in results])


def _sum(values):
    total = values[0]
    for v in values[1:]:
        total = total + v
    return total


def _sum_forward(results, with_primal):
    if with_primal:
        return _sum([r[0] for r in results]), _sum([r[1] for r in results])
    return _sum(results)


differentiate.register_mode("parallel", autodiff_parallel)
