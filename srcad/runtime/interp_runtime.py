"""What the derivatives of np.interp(x, xp, fp) call on the python backend (the rule:
srcad/rules/interpolation.py), JAX's convention (jnp.interp): x lies in the interval
i = clip(searchsorted(xp, x, 'right'), 1, n - 1) (the right-hand interval at a knot, the last
one at xp[-1]) at the fraction t = (x - xp[i-1]) / (xp[i] - xp[i-1]) (0 on an interval of
length 0); below xp[0] the result is `left` (fp[0] if not given), above xp[-1] `right`
(fp[-1]).

>>> float(interp_slope(1.0, np.array([0.0, 1.0, 3.0]), np.array([0.0, 2.0, 3.0])))
0.5
"""

from __future__ import annotations

import numpy as np

_FLAT = float(np.spacing(np.finfo(np.float64).eps))  # jnp.interp's interval of length 0


def _place(x, xp):
    """(i, t, below, above) for each entry of x."""
    x = np.asarray(x, dtype=float)
    i = np.clip(np.searchsorted(xp, x, side="right"), 1, xp.shape[0] - 1)
    dx = xp[i] - xp[i - 1]
    flat = np.abs(dx) <= _FLAT
    t = np.where(flat, 0.0, (x - xp[i - 1]) / np.where(flat, 1.0, dx))
    return i, t, x < xp[0], x > xp[-1]


def _shaped(value):
    return value if value.ndim else float(value)


def interp_slope(x, xp, fp):
    """d np.interp(x, xp, fp) / dx: the slope of x's interval, 0 outside [xp[0], xp[-1]]
    (and on an interval of length 0)."""
    i, _, below, above = _place(x, xp)
    dx = xp[i] - xp[i - 1]
    flat = np.abs(dx) <= _FLAT
    slope = np.where(flat, 0.0, (fp[i] - fp[i - 1]) / np.where(flat, 1.0, dx))
    return _shaped(np.where(below | above, 0.0, slope))


def interp_tangent(x, xp, d_fp, left, right):
    """The tangent of np.interp in fp along d_fp: the same weights applied to d_fp (`left`,
    `right`: whether the call gives them, constants then)."""
    i, t, below, above = _place(x, xp)
    d_fp = np.asarray(d_fp, dtype=float)
    value = (1.0 - t) * d_fp[i - 1] + t * d_fp[i]
    value = np.where(below, 0.0 if left else d_fp[0], value)
    return _shaped(np.where(above, 0.0 if right else d_fp[-1], value))


def interp_adjoint(x, xp, g, left, right):
    """The adjoint of np.interp in fp for the seed g (the transpose of `interp_tangent`)."""
    i, t, below, above = _place(x, xp)
    g = np.broadcast_to(np.asarray(g, dtype=float), i.shape)
    inside = ~(below | above)
    out = np.zeros(xp.shape[0])
    np.add.at(out, i[inside] - 1, (g * (1.0 - t))[inside])
    np.add.at(out, i[inside], (g * t)[inside])
    if not left:
        out[0] += np.sum(g[below])
    if not right:
        out[-1] += np.sum(g[above])
    return out
