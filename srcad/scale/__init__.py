"""Sums over the rows of a data argument, differentiated on all cores and on a Dask cluster.

`row_sums` proves from the source that f is a sum over the rows of its data; `parallel` runs
the chunks on threads (`parallel=True`); `dask_tasks` is what `srcad.dask` (the public module,
at the top level) runs on the workers.

May import: `build` and everything below it. Imported by `operators` (parallel=True of the
operators) and by `srcad.dask`.
"""
