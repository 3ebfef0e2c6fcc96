"""Sums over the rows of a data argument (what parallel=True and srcad.dask split into chunks
of rows), with gradients derived by hand, and functions that are not such sums.

A module of its own: srcad.dask sends functions to Dask worker processes by module and name,
and those import it (a worker process starts with the test process's sys.path).
"""

import math
import sys
from pathlib import Path

import numpy as np

EXAMPLES = str(Path(__file__).resolve().parents[2] / "examples")
if EXAMPLES not in sys.path:
    sys.path.insert(0, EXAMPLES)

from mixture import make_problem, mixture_gradient_numpy, mixture_loglikelihood  # noqa: E402

__all__ = ["make_problem", "mixture_gradient_numpy", "mixture_loglikelihood"]


def hinge_rows(p, X):
    """Rows of a 2-D X, a branch per row, += and -=."""
    d = X.shape[1]
    total = 0.0
    for row in X:
        r = 0.0
        for j in range(d):
            r += p[j] * row[j]
        if r > 0.0:
            total += r * r
        else:
            total -= p[0] * r
    return total


def hinge_rows_gradient(p, X):
    r = X @ p
    positive = r > 0.0
    g = 2.0 * (r[positive, None] * X[positive]).sum(axis=0)
    negative = ~positive
    g -= p[0] * X[negative].sum(axis=0)
    g[0] -= r[negative].sum()
    return g


def power_sums(a, p, x):
    """The sum accumulated inside an inner loop, with a scalar parameter a."""
    total = 0.0
    for n in range(len(x)):
        xn = x[n]
        power = 1.0
        for k in range(len(p)):
            total += a * p[k] * power
            power = power * xn
    return total


def power_sums_gradient(a, p, x):
    """(d/da, d/dp) of power_sums: sum_n sum_k p_k x_n^k and a sum_n x_n^k."""
    powers = np.stack([x**k for k in range(len(p))], axis=1).sum(axis=0)
    return float(powers @ p), a * powers


# -- not sums over rows ----------------------------------------------------------------------

def carried(p, x):
    total = 0.0
    previous = 0.0
    for n in range(len(x)):
        total += p[0] * x[n] * previous
        previous = x[n]
    return total


def writes_next(p, x, out):
    total = 0.0
    for n in range(len(x)):
        out[n + 1] = x[n]
        total += p[0] * x[n]
    return total


def uses_index(p, x):
    total = 0.0
    for n in range(len(x)):
        total += p[0] * x[n] * n
    return total


def rescales_total(p, x):
    total = 0.0
    for n in range(len(x)):
        total = 0.5 * total + p[0] * x[n]
    return total


def mean(p, x):
    total = 0.0
    for n in range(len(x)):
        total += (x[n] - p[0]) ** 2
    return total / len(x)


def stops_early(p, x):
    total = 0.0
    for n in range(len(x)):
        if x[n] > 2.0:
            break
        total += math.exp(p[0] * x[n])
    return total


def assigned_in_branch(p, x):
    total = 0.0
    for n in range(len(x)):
        if x[n] > 0.0:
            scale = p[0]
        total += scale * x[n]
    return total


def add_row(buffer, value):
    buffer[0] += value  # the buffer outlives the row: a running sum


def running_buffer(p, x):
    buffer = np.zeros(1)
    total = 0.0
    for n in range(len(x)):
        add_row(buffer, x[n])
        total += p[0] * buffer[0]
    return total


def aliased_buffer(p, x):
    buffer = np.zeros(1)
    total = 0.0
    for n in range(len(x)):
        alias = buffer  # a second name for the array made before the loop
        alias[0] += x[n]
        total += p[0] * alias[0]
    return total


# -- sums over rows with a context after the data (kept last: the tests above name lines) --

def scaled_squares(p, x, scale):
    """A context after the data: sum_n scale[0] (x_n - p_0)^2 + p_1 x_n."""
    total = 0.0
    for n in range(len(x)):
        r = x[n] - p[0]
        total += scale[0] * r * r + p[1] * x[n]
    return total


def scaled_squares_gradient(p, x, scale):
    return np.array([-2.0 * scale[0] * (x - p[0]).sum(), x.sum()])
