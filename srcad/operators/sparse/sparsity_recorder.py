"""The recorder an index slice of f calls (srcad/operators/sparse/static_sparsity.py): it collects
the
(output element, x element) pairs of a Jacobian's sparsity pattern as flat C-order indices, checking
every index against its array's shape, and returns them as CSR.
"""

from __future__ import annotations

import numpy as np


class Unprovable(Exception):
    """The source has a construct the analysis does not prove; the caller traces."""


class Recorder:
    """Collects (row, column) pairs as flat C-order indices, checking every index."""

    def __init__(self, x_shape, out_shape):
        self.x_shape, self.out_shape = x_shape, out_shape
        self.n, self.m = int(np.prod(x_shape)), int(np.prod(out_shape))
        self.rows, self.columns = [], []

    def record(self, row, dependencies):
        r = _flat(row, self.out_shape)
        columns = set()
        self._gather(dependencies, columns, set())
        self.rows.extend([r] * len(columns))
        self.columns.extend(columns)

    def _gather(self, items, columns, seen):
        if id(items) in seen:  # carried lists may hold each other
            return
        seen.add(id(items))
        for item in items:
            if item is None:  # a read in a branch this iteration did not take
                continue
            if isinstance(item, list):
                self._gather(item, columns, seen)
            elif isinstance(item, str):
                columns.update(range(self.n))
            else:
                columns.add(_flat(item, self.x_shape))

    def csr(self):
        keys = np.unique(np.asarray(self.rows, np.int64) * max(self.n, 1)
                         + np.asarray(self.columns, np.int64))
        rows, columns = np.divmod(keys, max(self.n, 1))
        indptr = np.concatenate([[0], np.cumsum(np.bincount(rows, minlength=self.m))])
        return indptr.astype(np.int64), columns.astype(np.int64), self.m


def _flat(index, shape) -> int:
    index = index if isinstance(index, tuple) else (index,)
    if len(index) != len(shape):
        raise Unprovable
    flat = 0
    for k, size in zip(index, shape):
        if isinstance(k, (bool, np.bool_)) or not isinstance(k, (int, np.integer)):
            raise Unprovable
        k = int(k)
        if k < 0:
            k += size
        if not 0 <= k < size:
            raise Unprovable
        flat = flat * size + k
    return flat
