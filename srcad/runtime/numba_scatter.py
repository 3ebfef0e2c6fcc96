"""`np.add.at` for numba-compiled generated code (numba has no `np.add.at`): the adjoint of a
read through an index array adds once per occurrence of a repeated index
(`log_probs[np.arange(n), labels]`, `x[idx]`, the rows `W[idx]`).

* `scatter_add(a, index, v)`: `np.add.at(a, index, v)` for `index` one 1-D int array (into a
  vector's elements or a matrix's rows) or a tuple of two 1-D int arrays of one length (into a
  matrix's elements), and `v` a number or an array of the gathered shape. Negative indices
  count from the end, as NumPy's; an index out of range reads outside the array, like any
  numba code (NUMBA_BOUNDSCHECK=1 checks). Other forms fail to type, which the caller
  reports as a refusal (analysis/array_bindings.py refuses them by line first).

A plain Python function (the reference, run by the interpreter) with a numba `overload`.
"""

from __future__ import annotations

import numpy as np
from numba import types
from numba.core.errors import TypingError
from numba.extending import overload


def scatter_add(a, index, v):
    np.add.at(a, index, v)


def _int_vector(t) -> bool:
    return isinstance(t, types.Array) and t.ndim == 1 and isinstance(t.dtype, types.Integer)


@overload(scatter_add)
def _scatter_add(a, index, v):
    if not isinstance(a, types.Array) or a.ndim not in (1, 2):
        raise TypingError("scatter_add: srcad compiles np.add.at into vectors and matrices")
    number = isinstance(v, (types.Float, types.Integer))
    if _int_vector(index) and a.ndim == 1:
        if number:
            def elements_number(a, index, v):
                for k in range(index.shape[0]):
                    a[index[k]] += v
            return elements_number

        def elements(a, index, v):
            for k in range(index.shape[0]):
                a[index[k]] += v[k]
        return elements
    if _int_vector(index):  # rows of a matrix
        if number:
            def rows_number(a, index, v):
                for k in range(index.shape[0]):
                    i = index[k]
                    for j in range(a.shape[1]):
                        a[i, j] += v
            return rows_number

        def rows(a, index, v):
            for k in range(index.shape[0]):
                i = index[k]
                for j in range(a.shape[1]):
                    a[i, j] += v[k, j]
        return rows
    if isinstance(index, types.BaseTuple) and len(index) == 2 and a.ndim == 2 \
            and all(_int_vector(t) for t in index):
        if number:
            def pairs_number(a, index, v):
                first, second = index
                if first.shape[0] != second.shape[0]:
                    raise ValueError("scatter_add: index arrays of different lengths")
                for k in range(first.shape[0]):
                    a[first[k], second[k]] += v
            return pairs_number

        def pairs(a, index, v):
            first, second = index
            if first.shape[0] != second.shape[0]:
                raise ValueError("scatter_add: index arrays of different lengths")
            for k in range(first.shape[0]):
                a[first[k], second[k]] += v[k]
        return pairs
    raise TypingError("scatter_add: srcad compiles np.add.at through one 1-D int array or "
                      "two of one length only")
