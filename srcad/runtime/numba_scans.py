"""NumPy's scans, differences and weighted means along an axis, compiled: what numba-compiled
derivative code calls for np.cumsum and np.cumprod (axis=), np.diff (n=, axis=, prepend=,
append= of a number), np.trapezoid (dx=, axis=), np.gradient (of a vector, or axis=),
np.average (axis=, weights=, keepdims=) and np.linspace (ends that are numbers or arrays,
endpoint=), and the tangent and adjoint of np.cumprod (`cumprod_tangent`,
`cumprod_adjoint`, the names the rule calls on the python backend:
srcad/runtime/cumprod_runtime.py). numba has np.cumsum and np.cumprod of a whole array,
np.diff along the last axis without prepend/append, np.linspace of numbers without
endpoint=, and no np.trapezoid, np.gradient nor weighted np.average along an axis.

srcad/transform/numba_movement.py spells each call `np.<name>(...)` `moved_<name>(...)` with
the same arguments; each `moved_<name>` here has NumPy's signature and a numba `overload`
for the argument types. Each works on the array with the axis moved first
(`np.swapaxes(x, 0, axis)`), so one loop over that axis serves every rank: a step reads
whole sub-arrays `rows[k]`.

NumPy's values, within a few ulps (sums run in order, not NumPy's pairwise order);
cumprod's derivatives are exact where a lane holds zeros (products, no division): the tangent
is t_k = t_(k-1) x_k + P_(k-1) g_k, the adjoint a_i = P_(i-1) S_i with
S_i = g_i + x_(i+1) S_(i+1) (P the running product), as the python rule's partials.

Imported by generated numba modules only (it imports numba).
"""

from __future__ import annotations

import numpy as np
from numba import types
from numba.core.errors import TypingError
from numba.extending import overload, register_jitable

from srcad.runtime.numba_arrays import reducer
from srcad.runtime.numba_movement import int_type, omitted_argument


@register_jitable
def _front(x, axis):
    """x with `axis` moved first, at least 2-D (a vector as a column): C-contiguous."""
    if x.ndim == 1:
        return np.ascontiguousarray(x).reshape((x.shape[0], 1))
    return np.ascontiguousarray(np.moveaxis(x, axis, 0))


def _back(rank):
    """`back(front, axis)`: the inverse of `_front` for an operand of `rank` axes."""
    if rank == 1:
        return register_jitable(lambda front, axis: np.ascontiguousarray(front[:, 0]))
    return register_jitable(lambda front, axis: np.ascontiguousarray(
        np.moveaxis(front, 0, axis)))


def _array(t, name):
    if not isinstance(t, types.Array):
        raise TypingError(f"srcad compiles np.{name} of an array")


# -- np.cumsum and np.cumprod along an axis (numba's take none) ------------------------------

def _scan(name, numpys, combine):
    """The overload of np.<name>(a, axis=k): `combine(running, row)` along axis k, row by row
    (numba's `numpys` where no axis is given: it flattens)."""
    step = register_jitable(combine)

    def select(a, axis=None, dtype=None, out=None):
        _array(a, name)
        if omitted_argument(axis):
            return lambda a, axis=None, dtype=None, out=None: numpys(a)
        back = _back(a.ndim)

        def along(a, axis=None, dtype=None, out=None):
            k = axis % a.ndim
            rows = _front(a, k)
            result = np.empty(rows.shape)
            if rows.shape[0] > 0:
                result[0] = rows[0]
            for i in range(1, rows.shape[0]):
                result[i] = step(result[i - 1], rows[i])
            return back(result, k)
        return along
    return select


def moved_cumsum(a, axis=None, dtype=None, out=None):
    return np.cumsum(a, axis)


overload(moved_cumsum, prefer_literal=True)(_scan("cumsum", np.cumsum,
                                                  lambda running, row: running + row))


# -- np.cumprod and its derivatives --------------------------------------------------------

def moved_cumprod(a, axis=None, dtype=None, out=None):
    return np.cumprod(a, axis)


overload(moved_cumprod, prefer_literal=True)(_scan("cumprod", np.cumprod,
                                                   lambda running, row: running * row))


def cumprod_tangent(x, g, axis):
    """The tangent of np.cumprod(x, axis=axis) along g."""
    raise NotImplementedError  # compiled only: the overload below


def cumprod_adjoint(x, g, axis):
    """x's adjoint from the adjoint g of np.cumprod(x, axis=axis)."""
    raise NotImplementedError  # compiled only: the overload below


@register_jitable
def _rows_and_seed(x, g, axis):
    """(the axis, x's rows along it, the rows of the seed g broadcast to x's shape): what
    cumprod's tangent and adjoint step through."""
    k = axis % x.ndim
    return k, _front(x, k), _front(np.asarray(g) * np.ones_like(x), k)


@overload(cumprod_tangent)
def _cumprod_tangent(x, g, axis):
    _array(x, "cumprod")
    back = _back(x.ndim)

    def tangent(x, g, axis):
        k, rows, seed = _rows_and_seed(x, g, axis)
        t = np.empty(rows.shape)
        if rows.shape[0] > 0:
            t[0] = seed[0]
            running = rows[0].copy()
        for i in range(1, rows.shape[0]):
            t[i] = t[i - 1] * rows[i] + running * seed[i]
            running = running * rows[i]
        return back(t, k)
    return tangent


@overload(cumprod_adjoint)
def _cumprod_adjoint(x, g, axis):
    _array(x, "cumprod")
    back = _back(x.ndim)

    def adjoint(x, g, axis):
        k, rows, seed = _rows_and_seed(x, g, axis)
        n = rows.shape[0]
        before = np.ones(rows.shape)  # before[i]: the product of x[:i]
        for i in range(1, n):
            before[i] = before[i - 1] * rows[i - 1]
        out = np.empty(rows.shape)
        if n > 0:
            after = seed[n - 1].copy()  # S_i = g_i + x_(i+1) S_(i+1)
            out[n - 1] = before[n - 1] * after
        for i in range(n - 2, -1, -1):
            after = seed[i] + rows[i + 1] * after
            out[i] = before[i] * after
        return back(out, k)
    return adjoint


# -- np.diff -------------------------------------------------------------------------------

def moved_diff(a, n=1, axis=-1, prepend=None, append=None):
    return np.diff(a, n, axis)


@overload(moved_diff, prefer_literal=True)
def _diff(a, n=1, axis=-1, prepend=None, append=None):
    _array(a, "diff")
    if not (omitted_argument(n) or int_type(n)):
        raise TypingError("srcad compiles np.diff with an int n")
    for end in (prepend, append):
        if not (omitted_argument(end) or isinstance(end, (types.Float, types.Integer))):
            raise TypingError("srcad compiles np.diff with prepend= and append= numbers")
    before, after = int(not omitted_argument(prepend)), int(not omitted_argument(append))
    back = _back(a.ndim)

    def differences(a, n=1, axis=-1, prepend=None, append=None):
        k = axis % a.ndim
        rows = _front(a, k)
        length = rows.shape[0] + before + after
        work = np.empty((length,) + rows.shape[1:])
        if before:
            work[0] = prepend
        work[before:before + rows.shape[0]] = rows
        if after:
            work[length - 1] = append
        if n < 0:
            raise ValueError("order must be non-negative")
        for _ in range(n):
            if length == 0:
                break
            for i in range(length - 1):
                work[i] = work[i + 1] - work[i]
            length -= 1
        return back(np.ascontiguousarray(work[:length]), k)
    return differences


# -- np.trapezoid, np.gradient -------------------------------------------------------------

def moved_trapezoid(y, x=None, dx=1.0, axis=-1):
    return np.trapezoid(y, x, dx, axis)


@overload(moved_trapezoid, prefer_literal=True)
def _trapezoid(y, x=None, dx=1.0, axis=-1):
    _array(y, "trapezoid")
    if not omitted_argument(x):
        raise TypingError("srcad compiles np.trapezoid with a spacing dx=, not sample points")
    if y.ndim == 1:
        def of_vector(y, x=None, dx=1.0, axis=-1):
            total = 0.0
            for i in range(y.shape[0] - 1):
                total += (y[i] + y[i + 1]) * dx / 2.0
            return total
        return of_vector

    def along(y, x=None, dx=1.0, axis=-1):
        rows = _front(y, axis % y.ndim)
        total = np.zeros(rows.shape[1:])
        for i in range(rows.shape[0] - 1):
            total += (rows[i] + rows[i + 1]) * dx / 2.0
        return total
    return along


def moved_gradient(f, axis=None, edge_order=1):
    return np.gradient(f, axis=axis)


@overload(moved_gradient)
def _gradient(f, axis=None, edge_order=1):
    if not isinstance(f, types.Array) or (f.ndim != 1 and omitted_argument(axis)):
        raise TypingError("srcad compiles np.gradient of a vector, or along one axis")
    back = _back(f.ndim)

    def along(f, axis=None, edge_order=1):
        k = 0 if f.ndim == 1 else axis % f.ndim
        rows = _front(f, k)
        n = rows.shape[0]
        if n < 2:
            raise ValueError("Shape of array too small to calculate a numerical gradient, "
                             "at least (edge_order + 1) elements are required.")
        out = np.empty(rows.shape)
        out[0] = rows[1] - rows[0]
        out[n - 1] = rows[n - 1] - rows[n - 2]
        for i in range(1, n - 1):
            out[i] = (rows[i + 1] - rows[i - 1]) / 2.0
        return back(out, k)
    return along


# -- np.average ----------------------------------------------------------------------------

def _literal(t, default):
    """The Python value of a literal argument type (`default` when left out), or raise
    _NotLiteral (numba then asks again with literals: prefer_literal)."""
    if omitted_argument(t):
        return getattr(t, "value", default) if isinstance(t, types.Omitted) else default
    if isinstance(t, types.Literal):
        return t.literal_value
    if isinstance(t, types.BaseTuple) and all(isinstance(e, types.IntegerLiteral) for e in t):
        return tuple(e.literal_value for e in t)
    raise _NotLiteral


class _NotLiteral(Exception):
    pass


def moved_average(a, axis=None, weights=None, returned=False, keepdims=False):
    return np.average(a, axis, weights, returned, keepdims=keepdims)


@overload(moved_average, prefer_literal=True)
def _average(a, axis=None, weights=None, returned=False, keepdims=False):
    _array(a, "average")
    try:
        axes, keep = _literal(axis, None), bool(_literal(keepdims, False))
        if _literal(returned, False):
            raise TypingError("srcad compiles np.average with returned=False")
    except _NotLiteral:
        return None
    total = reducer("sum", axes, keep)
    if omitted_argument(weights):
        return lambda a, axis=None, weights=None, returned=False, keepdims=False: \
            total(a) / total(np.ones_like(a))
    if not isinstance(weights, types.Array):
        raise TypingError("srcad compiles np.average with weights= an array")
    if weights.ndim == a.ndim:
        return lambda a, axis=None, weights=None, returned=False, keepdims=False: \
            total(a * weights) / total(weights * np.ones_like(a))
    if weights.ndim != 1 or not isinstance(axes, int):
        raise TypingError("srcad compiles np.average with weights shaped like the array, "
                          "or a vector along the one axis given")
    laid = tuple(-1 if k == axes % a.ndim else 1 for k in range(a.ndim))

    def along(a, axis=None, weights=None, returned=False, keepdims=False):
        w = np.ascontiguousarray(weights).reshape(laid)
        return total(a * w) / total(w * np.ones_like(a))
    return along


# -- np.linspace ---------------------------------------------------------------------------

def moved_linspace(start, stop, num=50, endpoint=True, retstep=False, dtype=None, axis=0):
    return np.linspace(start, stop, num, endpoint)


@register_jitable
def _fractions(num, endpoint):
    """(the steps i, their divisor) of np.linspace: NumPy's arithmetic."""
    return np.arange(num) * 1.0, float(num - 1 if endpoint else num)


@overload(moved_linspace, prefer_literal=True)
def _linspace(start, stop, num=50, endpoint=True, retstep=False, dtype=None, axis=0):
    for keyword, value in (("retstep", retstep), ("dtype", dtype), ("axis", axis)):
        if not omitted_argument(value) and not (
                isinstance(value, types.Literal) and not value.literal_value):
            raise TypingError(f"srcad compiles np.linspace without {keyword}=")
    if isinstance(start, types.Array) or isinstance(stop, types.Array):
        def of_arrays(start, stop, num=50, endpoint=True, retstep=False, dtype=None, axis=0):
            delta = stop - start  # NumPy's: start + i * (stop - start) / div, broadcast
            base, end = start + np.zeros_like(delta), stop + np.zeros_like(delta)
            steps, div = _fractions(num, endpoint)
            step = delta / div
            zero = np.any(step == 0.0)
            out = np.empty((num,) + delta.shape)
            for i in range(num):
                if div == 0.0:
                    out[i] = steps[i] * delta + base
                elif zero:
                    out[i] = steps[i] / div * delta + base
                else:
                    out[i] = steps[i] * step + base
            if endpoint and num > 1:
                out[num - 1] = end
            return out
        return of_arrays

    def of_numbers(start, stop, num=50, endpoint=True, retstep=False, dtype=None, axis=0):
        delta = stop - start
        steps, div = _fractions(num, endpoint)
        if div == 0.0:
            out = steps * delta + start
        elif delta / div == 0.0:
            out = steps / div * delta + start
        else:
            out = steps * (delta / div) + start
        if endpoint and num > 1:
            out[num - 1] = stop
        return out
    return of_numbers
