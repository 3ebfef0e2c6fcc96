"""Python's `math` functions numba lacks, as numba `overload`s of the functions themselves, so
generated numba code calls them as the python backend's does (srcad/rules/math_functions.py
gives their derivatives): `math.cbrt`, `math.fmod`, `math.remainder`, `math.log(x, base)`,
`math.hypot` of more than two coordinates, `math.fsum`, `math.prod`, `statistics.fmean` and
`math.dist` of lists or tuples. Registered by importing this module
(srcad/runtime/numba_runtime.py does).

The values are Python's: cbrt and fmod are the C library's, as Python's; remainder is
CPython's exact algorithm; fsum is Shewchuk's exact summation (CPython's msum), fmean its sum
divided by the count; prod multiplies from the left. hypot of three or more coordinates, and
dist, scale by the largest (no overflow), within an ulp or two of CPython's. Where Python raises a
ValueError (fmod(inf, y), a zero divisor, log of a negative), numba gives NaN: numba code
raises no floating-point error.
"""

from __future__ import annotations

import math
import statistics

import numpy as np
from numba import types
from numba.extending import overload, register_jitable


@overload(math.cbrt)
def _cbrt(x):
    return lambda x: np.cbrt(x)


@overload(math.fmod)
def _fmod(x, y):
    return lambda x, y: np.fmod(x, y)


@overload(math.remainder)
def _remainder(x, y):
    def remainder(x, y):  # CPython's m_remainder: exact
        x, y = float(x), float(y)
        if math.isnan(x) or math.isnan(y) or math.isinf(x) or y == 0.0:
            return math.nan  # Python: nan, or a ValueError for an infinite x or a zero y
        if math.isinf(y):
            return x
        absx, absy = abs(x), abs(y)
        m = np.fmod(absx, absy)
        c = absy - m
        if m < c:
            r = m
        elif m > c:
            r = -c
        else:  # half way: the even multiple
            r = m - 2.0 * np.fmod(0.5 * (absx - m), absy)
        return math.copysign(1.0, x) * r
    return remainder


@overload(math.log)
def _log_base(x, base):
    return lambda x, base: math.log(x) / math.log(base)


@overload(math.hypot)
def _hypot(*coordinates):
    if len(coordinates) <= 2:
        return None  # numba's own

    def hypot(*coordinates):
        largest = 0.0
        for c in coordinates:
            largest = max(largest, abs(c))
        if largest == 0.0 or math.isinf(largest):
            return largest
        total = 0.0
        for c in coordinates:
            total += (c / largest) * (c / largest)
        return largest * math.sqrt(total)
    return hypot


@register_jitable
def _exact_sum(values):
    """Shewchuk's exact sum of floats, correctly rounded (CPython's msum, finite values)."""
    partials = [0.0]
    count = 0
    special = 0.0
    for value in values:
        x = float(value)
        if math.isinf(x) or math.isnan(x):
            special += x
            continue
        kept = 0
        for k in range(count):
            y = partials[k]
            if abs(x) < abs(y):
                x, y = y, x
            high = x + y
            low = y - (high - x)
            if low != 0.0:
                partials[kept] = low
                kept += 1
            x = high
        if kept < len(partials):
            partials[kept] = x
        else:
            partials.append(x)
        count = kept + 1
    if special != 0.0 or math.isnan(special):
        return special
    if count == 0:
        return 0.0
    n = count - 1
    high = partials[n]
    low = 0.0
    while n > 0:
        x = high
        n -= 1
        y = partials[n]
        high = x + y
        yr = high - x
        low = y - yr
        if low != 0.0:
            break
    # half-way cases: round the way the partials below say (CPython's correction)
    if n > 0 and ((low < 0.0 and partials[n - 1] < 0.0) or (low > 0.0 and partials[n - 1] > 0.0)):
        y = low * 2.0
        x = high + y
        yr = x - high
        if y == yr:
            high = x
    return high


def _sequence(values):
    return isinstance(values, (types.List, types.BaseTuple, types.Array))


@overload(math.fsum)
def _fsum(values):
    if _sequence(values):
        return lambda values: _exact_sum(values)


@overload(math.prod)
def _prod(values):
    if _sequence(values):
        def prod(values):
            total = 1.0
            for value in values:
                total = total * value
            return total
        return prod


@overload(statistics.fmean)
def _fmean(values):
    if _sequence(values):
        return lambda values: _exact_sum(values) / len(values)


@overload(math.dist)
def _dist(p, q):
    if _sequence(p) and _sequence(q):
        def dist(p, q):  # the norm of p - q, scaled by the largest difference (no overflow)
            if len(p) != len(q):
                raise ValueError("both points must have the same number of dimensions")
            largest = 0.0
            for k in range(len(p)):
                largest = max(largest, abs(p[k] - q[k]))
            if largest == 0.0 or math.isinf(largest):
                return largest
            total = 0.0
            for k in range(len(p)):
                total += ((p[k] - q[k]) / largest) * ((p[k] - q[k]) / largest)
            return largest * math.sqrt(total)
        return dist
