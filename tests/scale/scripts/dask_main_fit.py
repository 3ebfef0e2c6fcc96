"""Run as a program (`python dask_main_fit.py`): a sum over rows defined in `__main__`, with a
helper and a module global, its gradient computed by srcad.dask on a LocalCluster of two
worker processes, which cannot import `__main__`. Prints the relative difference to the
gradient computed in this process, and the number of workers that computed chunks."""

import math
import sys

import dask.array as da
import numpy as np
from distributed import Client, LocalCluster

import srcad
import srcad.dask

SCALE = 0.5


def softplus(z):
    return math.log(1.0 + math.exp(z))


def loss(params, rows):
    total = 0.0
    for n in range(len(rows)):
        total += softplus(params[0] * rows[n] + params[1]) * SCALE
    return total


if __name__ == "__main__":
    backend = sys.argv[1] if len(sys.argv) > 1 else "python"
    rows = np.linspace(-2.0, 2.0, 400)
    params = np.array([0.7, -0.3])
    expected = srcad.grad(loss)(params, rows)
    with LocalCluster(n_workers=2, threads_per_worker=1, processes=True,
                      dashboard_address=None) as cluster, Client(cluster) as client:
        value, gradient = srcad.dask.value_and_gradient(loss, params,
                                                        da.from_array(rows, chunks=50))
        ran = client.run(lambda: len(__import__("srcad.scale.shipped_source",
                                                fromlist=["_"])._RESOLVED))
    difference = float(np.max(np.abs(gradient - expected) / np.abs(expected)))
    print(f"relative difference {difference:.3e}")
    print(f"workers that built loss from its text: {sum(ran.values())}")
    print(f"value {value:.12g} expected {loss(params, rows):.12g}")
