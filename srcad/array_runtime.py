"""What generated derivative code of array programs calls besides NumPy: undoing
broadcasting, the one place where an adjoint is summed back to its operand's shape.

The generated code names these functions `unbroadcast` and `reshaped` (pipeline.py puts
them in the namespace the code runs in).
"""

from __future__ import annotations

import numpy as np


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
