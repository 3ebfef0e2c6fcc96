"""What generated derivative code of array programs calls besides NumPy: undoing
broadcasting, the one place where an adjoint is summed back to its operand's shape.

The generated code names these functions `unbroadcast` and `reshaped` (pipeline.py puts
them in the namespace the code runs in).
"""

from __future__ import annotations

import numpy as np

from srcad.errors import LoopShapeError  # noqa: F401 - raised by generated code
from srcad.runtime.cholesky_derivatives import (  # noqa: F401 - second order calls them
    cholesky_adjoint_tangent,
    cholesky_tangent_adjoint,
    cholesky_tangent_tangent,
    reverse_over_reverse_refused,
)
from srcad.runtime.convolution_runtime import convolved_shape, full_seed  # noqa: F401
from srcad.runtime.cross_runtime import cross_length, cross_of  # noqa: F401 - np.cross
from srcad.runtime.cumprod_runtime import cumprod_adjoint, cumprod_tangent  # noqa: F401
from srcad.runtime.index_tricks import c_columns  # noqa: F401 - np.c_ written out
from srcad.runtime.interp_runtime import (  # noqa: F401 - np.interp's derivatives
    interp_adjoint,
    interp_slope,
    interp_tangent,
)
from srcad.runtime.linalg_runtime import (  # noqa: F401 - generated code calls them too
    det_cofactor,
    einsum_adjoint,
    matrix_power_adjoint,
    matrix_power_tangent,
    stacked_cholesky_adjoint,
    stacked_cholesky_tangent,
)
from srcad.runtime.movement_runtime import *  # noqa: F403 - the shape functions' adjoints
from srcad.runtime.named_results import divmod_parts  # noqa: F401 - np.divmod's parts
from srcad.runtime.scipy_factors import (  # noqa: F401 - scipy.linalg.cho_factor's tuple
    cho_factor_matrix,
    cho_solve_matrix,
)
from srcad.runtime.scipy_lu import (  # noqa: F401 - scipy.linalg.lu_factor's tuple
    lu_factor_adjoint,
    lu_factor_matrix,
    lu_factor_tangent,
    lu_pivots,
    lu_solve_adjoint,
    lu_solve_matrix,
    lu_solve_tangent,
)
from srcad.runtime.spectral_runtime import (  # noqa: F401 - generated code calls them too
    cond_adjoint,
    cond_tangent,
    eigh_adjoint,
    eigh_tangent,
    lstsq_parts,
    qr_adjoint,
    qr_tangent,
    svd_adjoint,
    svd_tangent,
)


def unbroadcast(g, shape):
    """`g`, the adjoint of a broadcast result, summed to the operand's `shape`: over the
    leading axes broadcasting added and over the axes where the operand had length 1.

    >>> unbroadcast(np.ones((2, 3)), (3,))
    array([2., 2., 2.])
    >>> unbroadcast(np.ones((2, 3)), (2, 1))
    array([[3.],
           [3.]])
    >>> float(unbroadcast(np.ones((2, 3)), ()))
    6.0
    """
    gshape = np.shape(g)
    if gshape == shape:
        return g
    if not shape:
        return np.sum(g)
    lead = len(gshape) - len(shape)
    if lead < 0:  # a seed narrower than the operand cannot come from broadcasting
        raise ValueError(f"adjoint of shape {gshape} for an operand of shape {shape}")
    axes = tuple(range(lead)) + tuple(lead + k for k, n in enumerate(shape)
                                      if n == 1 and gshape[lead + k] != 1)
    out = np.sum(g, axis=axes, keepdims=True) if axes else g
    return out.reshape(shape)


def reshaped(shape, new_shape):
    """The shape `np.reshape` gives an array of `shape` for `new_shape` (one entry may be -1).

    >>> reshaped((2, 3), (-1, 2))
    (3, 2)
    """
    new_shape = tuple(int(n) for n in new_shape)
    if -1 in new_shape:
        known = int(np.prod([n for n in new_shape if n != -1]))
        new_shape = tuple(int(np.prod(shape)) // known if n == -1 else n for n in new_shape)
    return new_shape


def diagonal_adjoint(g, shape):
    """The adjoint of `np.diag(A)` for a matrix `A` of `shape`: `g` on the main diagonal of a
    zero matrix (the diagonal of a non-square matrix has min(shape) entries).

    >>> diagonal_adjoint(np.array([1.0, 2.0]), (3, 2))
    array([[1., 0.],
           [0., 2.],
           [0., 0.]])
    """
    out = np.zeros(shape)
    k = np.arange(len(g))
    out[k, k] = g
    return out


def _half_diagonal_lower(x):
    """The lower triangle of `x` with its diagonal halved (the map Phi of the Cholesky rules)."""
    return np.tril(x) - 0.5 * np.diag(np.diag(x))


def cholesky_tangent(L, dA):
    """The tangent of `L = np.linalg.cholesky(A)` for a tangent `dA` of `A`. NumPy reads only
    the lower triangle of `A` (the upper one is taken to mirror it), so only the lower triangle
    of `dA` moves `L`: dL = L Phi(L^-1 S L^-T) with S the symmetric matrix of that triangle."""
    sym = np.tril(dA) + np.tril(dA, -1).T
    inner = np.linalg.solve(L, np.linalg.solve(L, sym).T).T  # L^-1 sym L^-T
    return L @ _half_diagonal_lower(inner)


def cholesky_adjoint(L, g):
    """The adjoint of `A` for `L = np.linalg.cholesky(A)` and the seed `g` of `L` (the
    transpose of `cholesky_tangent`): zero above the diagonal, which NumPy never reads."""
    projected = _half_diagonal_lower(L.T @ g)
    left = np.linalg.solve(L.T, projected)  # L^-T P
    sym = np.linalg.solve(L.T, left.T).T  # L^-T P L^-1
    return np.tril(sym) + np.tril(sym.T, -1)


def view_element(index, start, stop, step, length):
    """The position along an axis of `length` that `index` reads in the view
    `start:stop:step` of that axis (step > 0), as NumPy reads `a[start:stop:step][index]`:
    a negative index counts from the view's end, and an index out of the view raises
    IndexError even where the array goes on. srcad/transform/normalize/view_indices.py
    calls it where a view's index composes into an index of its array (numba code calls
    srcad/runtime/numba_runtime.py's, whose message names no numbers).

    >>> view_element(-1, 1, 4, 1, 6)  # a[1:4][-1] is a[3]
    3
    >>> view_element(5, 1, 3, 1, 8)
    Traceback (most recent call last):
    IndexError: index 5 is out of bounds for a view of size 2
    """
    position = view_position(index, start, stop, step, length)
    if position < 0:
        raise IndexError(f"index {index} is out of bounds for a view of size "
                         f"{view_size(start, stop, step, length)}")
    return position


def view_position(index, start, stop, step, length):
    """`view_element`'s position, -1 where the index is out of the view (plain arithmetic:
    numba compiles it too).

    >>> view_position(-1, 1, 4, 1, 6), view_position(3, 1, 4, 1, 6)
    (3, -1)
    """
    size = view_size(start, stop, step, length)
    position = index + size if index < 0 else index
    if position < 0 or position >= size:
        return -1
    return view_start(start, stop, step, length) + position * step


def view_start(start, stop, step, length):
    """The first position of the view `start:stop:step` (step > 0) of an axis of `length`.

    >>> view_start(-3, 10, 1, 6), view_start(8, 10, 1, 6)
    (3, 6)
    """
    return max(start + length, 0) if start < 0 else min(start, length)


def view_size(start, stop, step, length):
    """The number of elements of the view `start:stop:step` (step > 0) of an axis of
    `length`, as `len(range(length)[start:stop:step])`.

    >>> view_size(1, 10, 2, 6), view_size(-3, -1, 1, 6), view_size(4, 2, 1, 6)
    (3, 2, 0)
    """
    first = view_start(start, stop, step, length)
    last = max(stop + length, 0) if stop < 0 else min(stop, length)
    return max(0, (last - first + step - 1) // step)


def grown(a, count, axis=0):
    """`a` when it has room for an element at position `count` along `axis`, else a copy
    with at least twice the room, its new part zero: the buffer of a list appended to in a
    loop whose trip count is not known before it (srcad/transform/normalize/
    unbounded_lists.py) grows this way, and so do its tangents and adjoints (srcad/numba_
    runtime.py's grows along axis 0, where numba code keeps a list's elements).

    >>> grown(np.ones(2), 1)
    array([1., 1.])
    >>> grown(np.ones(2), 2)
    array([1., 1., 0., 0.])
    >>> grown(np.ones((3, 2)), 2, axis=1).shape
    (3, 4)
    """
    length = a.shape[axis]
    if count < length:
        return a
    shape = list(a.shape)
    shape[axis] = max(2 * length, count + 1)
    out = np.zeros(shape, a.dtype)
    out[(slice(None),) * axis + (slice(0, length),)] = a
    return out
