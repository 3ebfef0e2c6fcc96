"""Sums over rows on all cores and on a Dask cluster."""
