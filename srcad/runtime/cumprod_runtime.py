"""np.cumprod along an axis of an array of any rank (srcad/rules/scans.py): its tangent and
adjoint through the matrix of partials of each lane, vectorized over the other axes.

For a lane x (the axis moved last), others[k, i] is the product of x[:k + 1] but x[i] (0 where
i > k), exact where x has zeros (no division by a zero): the tangent is others @ g, the
adjoint g @ others, as the vector rule's."""

from __future__ import annotations

import numpy as np


def _others(x):
    """others[..., k, i] of each lane x[..., :]."""
    tri = np.tri(x.shape[-1], dtype=bool)
    kept = np.where(tri, x[..., None, :], 1.0)
    zero = kept == 0.0
    nonzero = np.where(zero, 1.0, kept)
    zeros = np.sum(zero, axis=-1, keepdims=True)
    product = np.prod(nonzero, axis=-1, keepdims=True)
    return np.where(zeros == 0, product / nonzero,
                    np.where((zeros == 1) & zero, product, 0.0)) * tri


def cumprod_tangent(x, g, axis):
    """The tangent of np.cumprod(x, axis=axis) along g."""
    lanes = _others(np.moveaxis(x, axis, -1))
    return np.moveaxis(np.einsum("...ki,...i->...k", lanes, np.moveaxis(g, axis, -1)), -1, axis)


def cumprod_adjoint(x, g, axis):
    """x's adjoint from the adjoint g of np.cumprod(x, axis=axis)."""
    lanes = _others(np.moveaxis(x, axis, -1))
    return np.moveaxis(np.einsum("...ki,...k->...i", lanes, np.moveaxis(g, axis, -1)), -1, axis)
