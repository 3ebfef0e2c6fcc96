"""Functions returning tuples and calling library functions on constants, for
tests/test_tuple_returns.py (srcad reads their source from this file)."""

import math

import numpy as np
import scipy.special


def pair(x):
    return x * x, 3.0 * x


def mixed(x, a):
    y = np.zeros(2)
    s = 0.0
    for i in range(2):
        y[i] = x[i] * a
        s += x[i] * x[i] * a
    return s, y, a * a, 3.0


def two_returns(x):
    if x > 0.0:
        return x, 2.0 * x
    return -x, x


def log_prior(x, m):
    c = math.lgamma(m / 2) + scipy.special.gammaln(m * 1.0)
    return c * x * x + math.gamma(3.5)


def rule_needed(x):
    return math.lgamma(x) * 2.0
