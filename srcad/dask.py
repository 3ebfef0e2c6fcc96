"""Value and gradient of a sum over the rows of a `dask.array`, computed on a Dask cluster.

For f(params, data, *contexts) that `srcad.scale.row_sums` proves to be a sum over the rows of
`data`, f(params, data) is the sum of f(params, chunk) over the row chunks of data, and so is
its gradient. `value_and_gradient` maps srcad's reverse mode over the chunks where they live
(each task returns one value and one gradient: a few floats) and adds the partial results.
For data persisted on the current Dask client (`Client(...)`, `data.persist()`) it submits
plain tasks on the chunks' futures, one per chunk, and adds the results on the client
(`srcad.scale.dask_tasks`). Otherwise it computes a graph of the chunk tasks and a tree of
additions, `SPLIT_EVERY` at a time, on the current client, else on Dask's local scheduler.

Nothing compiled crosses the wire: a task carries f by reference (its module and qualified
name, as any Dask task function), params, the chunk's key and the contexts. Each worker
process imports f and builds its derivative once (srcad's in-memory cache; with
backend="numba" also numba's disk cache in SRCAD_CACHE_DIR, so a restarted worker on the same
machine loads it). The module of f must therefore be importable on the workers, as for any
function a Dask task runs (install it there, or `client.upload_file("model.py")`); a function
defined in `__main__` (a script run as a program, a notebook or IPython cell) is sent as its
source text instead, with the `__main__` helpers it calls, the modules they name and the
globals they read (`srcad.scale.shipped_source`). With a client, a gradient whose chunks take
more than a couple of seconds shows a progress bar of the chunks done (srcad.build.progress).

Needs the `dask` extra: pip install 'srcad[dask]'.
"""

from __future__ import annotations

import numpy as np

from srcad.errors import ArgumentError
from srcad.scale.dask_tasks import (
    SPLIT_EVERY,
    FunctionReference,
    add_partials,
    chunk_futures,
    chunk_value_and_gradient,
    value_and_gradient_on,
)
from srcad.scale.row_sums import required_row_sum


def _checked(f, params, data):
    import dask.array as da

    split = required_row_sum(f, "srcad.dask needs f to be a sum over the rows of its data")
    if split.data_position != 1:
        raise ArgumentError(f"srcad.dask calls f(params, data, *contexts), and "
                            f"{f.__name__} sums over the rows of argument "
                            f"{split.data_position} (`{split.data_name}`)",
                            construct="srcad.dask", hint="make the data the second argument")
    params = np.asarray(params, dtype=float)
    if params.ndim != 1:
        raise ArgumentError(f"params must be a 1-D float array, got shape {params.shape}",
                            construct="srcad.dask")
    if not isinstance(data, da.Array):
        data = da.from_array(np.asarray(data))
    if data.ndim > 1 and any(len(c) > 1 for c in data.chunks[1:]):
        data = data.rechunk({axis: -1 for axis in range(1, data.ndim)})  # whole rows
    return params, data


def partial_results(f, params, data, *contexts, backend="python"):
    """The delayed (value, gradient) of f over `data`: one task per chunk of rows, added in a
    tree of SPLIT_EVERY (the graph Dask's local scheduler runs).

    Args:
        f: f(params, data, *contexts), a sum over the rows of `data`, importable on
            the workers or defined in `__main__` (a script, a notebook).
        params: the point, a float array.
        data: a dask.array (a NumPy array is one chunk).
        *contexts: further arguments, sent to every task.
        backend: "python" or "numba", on the workers.

    Returns:
        A dask.delayed `(value, gradient)`.

    A least-squares loss over the rows of a dask.array of 3 rows in chunks of 2 (Dask's
    local scheduler; on a cluster, create a `distributed.Client` first):

    >>> import numpy as np
    >>> import dask.array as da
    >>> import srcad.dask
    >>> def squares(w, rows):
    ...     s = 0.0
    ...     for i in range(rows.shape[0]):
    ...         s += (rows[i, 0] * w[0] - rows[i, 1]) ** 2
    ...     return s
    >>> data = da.from_array(np.array([[1.0, 2.0], [2.0, 3.0], [3.0, 7.0]]), chunks=(2, 2))
    >>> task = srcad.dask.partial_results(squares, np.array([2.0]), data)
    >>> task.compute()  # residuals 0, 1, -1: value 2, gradient 2 * (1 * 2 - 1 * 3)
    (2.0, array([-2.]))
    """
    params, data = _checked(f, params, data)
    return _graph_of_partials(FunctionReference.of(f), params, data, contexts, backend)


def _graph_of_partials(reference, params, data, contexts, backend):
    """The delayed sum of the chunk tasks over data's chunks of rows (data not persisted, or
    no client: Dask computes each chunk and releases it once its task has run)."""
    from dask import delayed

    task = delayed(chunk_value_and_gradient, pure=False)
    level = [task(chunk, reference, params, contexts, backend)
             for chunk in data.to_delayed().ravel()]
    add = delayed(add_partials, pure=False)
    while len(level) > 1:
        level = [add(*level[k:k + SPLIT_EVERY]) for k in range(0, len(level), SPLIT_EVERY)]
    return level[0]


def value_and_gradient(f, params, data, *contexts, backend="python"):
    """(f(params, data, *contexts), its gradient with respect to params), computed chunk by
    chunk of data's rows on the current Dask client (else the local scheduler).

    `data` is a dask.array (a NumPy array is wrapped as one chunk); f must be a sum over its
    rows (`srcad.scale.row_sums`), importable on the workers; `contexts` are sent to every task.

    Args:
        f: f(params, data, *contexts), a sum over the rows of `data`, importable on
            the workers or defined in `__main__` (a script, a notebook).
        params: the point, a float array.
        data: a dask.array (a NumPy array is one chunk).
        *contexts: further arguments, sent to every task.
        backend: "python" or "numba", on the workers.

    Returns:
        `(value, gradient)`: a float and an array shaped like params.

    A least-squares loss over the rows of a dask.array of 3 rows in chunks of 2 (Dask's
    local scheduler; on a cluster, create a `distributed.Client` first):

    >>> import numpy as np
    >>> import dask.array as da
    >>> import srcad.dask
    >>> def squares(w, rows):
    ...     s = 0.0
    ...     for i in range(rows.shape[0]):
    ...         s += (rows[i, 0] * w[0] - rows[i, 1]) ** 2
    ...     return s
    >>> data = da.from_array(np.array([[1.0, 2.0], [2.0, 3.0], [3.0, 7.0]]), chunks=(2, 2))
    >>> srcad.dask.value_and_gradient(squares, np.array([2.0]), data)
    (2.0, array([-2.]))
    """
    params, data = _checked(f, params, data)
    reference = FunctionReference.of(f)
    client = _client_of(data)
    futures = None if client is None else chunk_futures(client, data)
    if futures is None:
        return _graph_of_partials(reference, params, data, contexts, backend).compute()
    return value_and_gradient_on(client, futures, reference, params, contexts, backend)


def _client_of(data):
    """The distributed Client that dask.compute would run `data` on, else None (Dask's local
    scheduler: no client, or `dask.config.set(scheduler=...)` names another)."""
    try:
        from distributed import Client
    except ImportError:
        return None
    from dask.base import get_scheduler

    scheduler = get_scheduler(collections=[data])
    scheduler = getattr(scheduler, "__self__", scheduler)  # a client's `get` is bound to it
    return scheduler if isinstance(scheduler, Client) else None


def value_and_grad(f, data, *contexts, backend="python"):
    """params -> (value, gradient) of f over data: `scipy.optimize.minimize(..., jac=True)`
    takes it (negate both to maximize).

    Args:
        f: f(params, data, *contexts), a sum over the rows of `data`, importable on
            the workers or defined in `__main__` (a script, a notebook).
        data: a dask.array (a NumPy array is one chunk).
        *contexts: further arguments, sent to every task.
        backend: "python" or "numba", on the workers.

    Returns:
        A function of params returning `(value, gradient)`.

    A least-squares loss over the rows of a dask.array of 3 rows in chunks of 2 (Dask's
    local scheduler; on a cluster, create a `distributed.Client` first):

    >>> import numpy as np
    >>> import dask.array as da
    >>> import srcad.dask
    >>> def squares(w, rows):
    ...     s = 0.0
    ...     for i in range(rows.shape[0]):
    ...         s += (rows[i, 0] * w[0] - rows[i, 1]) ** 2
    ...     return s
    >>> data = da.from_array(np.array([[1.0, 2.0], [2.0, 3.0], [3.0, 7.0]]), chunks=(2, 2))
    >>> import scipy.optimize
    >>> fit = scipy.optimize.minimize(srcad.dask.value_and_grad(squares, data),
    ...                               np.array([0.0]), jac=True)
    >>> round(float(fit.x[0]), 6)  # sum(x t) / sum(x x) = 29 / 14
    2.071429
    """
    params_, data_ = _checked(f, np.zeros(1), data)

    def evaluate(params):
        return value_and_gradient(f, params, data_, *contexts, backend=backend)

    return evaluate


def grad(f, data, *contexts, backend="python"):
    """params -> gradient of f over data (the `jac=` of scipy.optimize.minimize).

    Args:
        f: f(params, data, *contexts), a sum over the rows of `data`, importable on
            the workers or defined in `__main__` (a script, a notebook).
        data: a dask.array (a NumPy array is one chunk).
        *contexts: further arguments, sent to every task.
        backend: "python" or "numba", on the workers.

    Returns:
        A function of params returning the gradient, shaped like params.

    A least-squares loss over the rows of a dask.array of 3 rows in chunks of 2 (Dask's
    local scheduler; on a cluster, create a `distributed.Client` first):

    >>> import numpy as np
    >>> import dask.array as da
    >>> import srcad.dask
    >>> def squares(w, rows):
    ...     s = 0.0
    ...     for i in range(rows.shape[0]):
    ...         s += (rows[i, 0] * w[0] - rows[i, 1]) ** 2
    ...     return s
    >>> data = da.from_array(np.array([[1.0, 2.0], [2.0, 3.0], [3.0, 7.0]]), chunks=(2, 2))
    >>> srcad.dask.grad(squares, data)(np.array([2.0]))
    array([-2.])
    """
    evaluate = value_and_grad(f, data, *contexts, backend=backend)
    return lambda params: evaluate(params)[1]
