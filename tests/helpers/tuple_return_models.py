"""Functions returning tuples and calling library functions on constants, for
tests/transform/test_tuple_returns.py (srcad reads their source from this file)."""

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


def early_returns(x, a):
    if a > 0.0:
        return x[0] * a, x[1]
    for i in range(2):
        if x[i] > 5.0:
            return x[i], a
    return x[1] * x[0], x[0] * a


def branch_returns(x):
    if x[0] > 0.0:
        return x * 2.0, x[0]
    else:
        return x * x[1], x[1]


def uneven_returns(x):
    if x > 0.0:
        return x, x
    return x


def falls_off(x):
    if x > 0.0:
        return x, x
    y = x
    x = y


def log_prior(x, m):
    c = math.lgamma(m / 2) + scipy.special.gammaln(m * 1.0)
    return c * x * x + math.gamma(3.5)


def rule_needed(x):
    return math.nextafter(x, 3.0) * 2.0  # math.nextafter has no derivative rule


def whole_array_values(x, a):
    return np.sum(x * a), x * x, a * a


def value_and_index(x, a):
    """(2a, the last index j with x[j] < 1): an int returned beside a float."""
    w = 0
    for j in range(len(x)):
        if x[j] < 1.0:
            w = j
    return (a * 2.0, w)
