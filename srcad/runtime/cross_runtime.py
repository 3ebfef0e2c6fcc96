"""What np.cross's derivative calls on the python backend (srcad/rules/linalg.py): the
product itself, refusing two 2-vectors (NumPy 2 deprecates them: one number per pair, an
array of a lower rank than srcad's typing of the call). A 2-vector crossed with a 3-vector is
NumPy's (its third coordinate read as 0). The numba backend spells `cross_of(u, v, ...)`
np.cross(u, v) (srcad/transform/numba_compat.py): its np.cross takes no axis keywords.
"""

from __future__ import annotations

import numpy as np

_RUN_TIME_REFUSAL = "srcad: "  # srcad/build/running.py raises such an error as it is


def _planar(w, axis) -> bool:
    """Is `w` a 2-vector along `axis` (or, a derivative of two 2-vectors' product, a
    number without that axis)?"""
    return np.ndim(w) < -axis or np.shape(w)[axis] == 2


def cross_of(u, v, axisa, axisb, axisc):
    """np.cross(u, v, axisa, axisb, axisc), refusing two 2-vectors.

    >>> cross_of(np.array([1.0, 0.0, 0.0]), np.array([0.0, 1.0, 0.0]), -1, -1, -1)
    array([0., 0., 1.])
    """
    if _planar(u, axisa) and _planar(v, axisb):
        raise ValueError(f"{_RUN_TIME_REFUSAL}np.cross of two 2-vectors (deprecated in NumPy 2) "
                         "returns one number per pair, of a rank srcad does not follow: give "
                         "them a third coordinate 0 (np.append(x, 0.0)) and take the product's "
                         "third coordinate")
    return np.cross(u, v, axisa=axisa, axisb=axisb, axisc=axisc)


def cross_length(x_shape, y_shape, a, b) -> int:
    """The length of x's vector axis `a` (its adjoint's), refusing two 2-vectors (x's and
    y's along `b`): the reverse sweep's check, where the seed has the 3-vector shape.

    >>> cross_length((4, 2), (3,), -1, -1)
    2
    """
    if x_shape[a] == 2 and y_shape[b] == 2:
        cross_of(np.zeros(2), np.zeros(2), -1, -1, -1)  # the refusal
    return x_shape[a]


CROSS_RUNTIME_NAMES = ("cross_of", "cross_length")
__all__ = list(CROSS_RUNTIME_NAMES)
