"""np.interp's derivatives on the numba backend: `interp_slope`, `interp_tangent` and
`interp_adjoint` (srcad/runtime/interp_runtime.py's, the names the rule calls), compiled for a
number x or an array x of any rank, with 1-D knots. The same convention, element by element:
x lies in the interval i = clip(searchsorted(xp, x, 'right'), 1, n - 1) at the fraction
t = (x - xp[i-1]) / (xp[i] - xp[i-1]) (0 on an interval of length 0); the slope is 0 below
xp[0] and above xp[-1], where fp's weight goes to fp[0] and fp[-1] unless left= / right= gave
constants. numba's own np.interp computes the primal (NumPy's values, NaN and inf included).

Imported by generated numba modules only (it imports numba).
"""

from __future__ import annotations

import numpy as np
from numba import types
from numba.extending import overload, register_jitable

from srcad.runtime.interp_runtime import _FLAT, interp_adjoint, interp_slope, interp_tangent

__all__ = ["interp_adjoint", "interp_slope", "interp_tangent"]


@register_jitable
def _place(x, xp):
    """(i, t, below, above) of one number x."""
    n = xp.shape[0]
    i = min(max(np.searchsorted(xp, x, side="right"), 1), n - 1)  # NumPy's clip(., 1, n-1)
    dx = xp[i] - xp[i - 1]
    t = 0.0 if abs(dx) <= _FLAT else (x - xp[i - 1]) / dx
    return i, t, x < xp[0], x > xp[n - 1]


@register_jitable
def _slope(x, xp, fp):
    i, _, below, above = _place(x, xp)
    dx = xp[i] - xp[i - 1]
    if below or above or abs(dx) <= _FLAT:
        return 0.0
    return (fp[i] - fp[i - 1]) / dx


@register_jitable
def _tangent(x, xp, d_fp, left, right):
    i, t, below, above = _place(x, xp)
    if above:
        return 0.0 if right else d_fp[d_fp.shape[0] - 1]
    if below:
        return 0.0 if left else d_fp[0]
    return (1.0 - t) * d_fp[i - 1] + t * d_fp[i]


@register_jitable
def _adjoint_into(out, x, xp, g, left, right):
    i, t, below, above = _place(x, xp)
    if above:
        if not right:
            out[out.shape[0] - 1] += g
    elif below:
        if not left:
            out[0] += g
    else:
        out[i - 1] += g * (1.0 - t)
        out[i] += g * t


@overload(interp_slope)
def _interp_slope(x, xp, fp):
    if isinstance(x, types.Array):
        def impl(x, xp, fp):
            out = np.empty(x.shape)
            flat_x, flat_out = np.ascontiguousarray(x).ravel(), out.reshape(-1)
            for k in range(flat_x.shape[0]):
                flat_out[k] = _slope(float(flat_x[k]), xp, fp)
            return out
        return impl
    return lambda x, xp, fp: _slope(float(x), xp, fp)


@overload(interp_tangent)
def _interp_tangent(x, xp, d_fp, left, right):
    if isinstance(x, types.Array):
        def impl(x, xp, d_fp, left, right):
            out = np.empty(x.shape)
            flat_x, flat_out = np.ascontiguousarray(x).ravel(), out.reshape(-1)
            for k in range(flat_x.shape[0]):
                flat_out[k] = _tangent(float(flat_x[k]), xp, d_fp, left, right)
            return out
        return impl
    return lambda x, xp, d_fp, left, right: _tangent(float(x), xp, d_fp, left, right)


@overload(interp_adjoint)
def _interp_adjoint(x, xp, g, left, right):
    if isinstance(x, types.Array) and isinstance(g, types.Array):
        def impl(x, xp, g, left, right):
            out = np.zeros(xp.shape[0])
            flat_x = np.ascontiguousarray(x).ravel()
            flat_g = np.ascontiguousarray(np.broadcast_to(g, x.shape)).ravel()
            for k in range(flat_x.shape[0]):
                _adjoint_into(out, float(flat_x[k]), xp, float(flat_g[k]), left, right)
            return out
        return impl
    if isinstance(x, types.Array):  # a number seed: the same for every element
        def same_seed(x, xp, g, left, right):
            out = np.zeros(xp.shape[0])
            flat_x = np.ascontiguousarray(x).ravel()
            for k in range(flat_x.shape[0]):
                _adjoint_into(out, float(flat_x[k]), xp, float(g), left, right)
            return out
        return same_seed

    def scalar(x, xp, g, left, right):
        out = np.zeros(xp.shape[0])
        _adjoint_into(out, float(x), xp, float(g), left, right)
        return out
    return scalar
