"""What the derivatives of np.convolve, np.correlate, scipy.signal.convolve and
scipy.signal.correlate call besides NumPy and SciPy (srcad/rules/convolution.py): the result's
shape, and the seed of a `mode='valid'` or `'same'` result put back where that result sits in
the `'full'` one (zeros elsewhere), so that each adjoint is one correlation of the full seed
with the other operand. Vectorized: no Python loop over elements.

Where each mode's result sits in the full one, per axis (a: the first operand's length, b:
the second's), as NumPy and SciPy compute them:

| kind                        | valid          | same                                   |
|-----------------------------|----------------|----------------------------------------|
| scipy.signal.convolve / correlate | min(a, b) - 1 | (b - 1) // 2 (length a)          |
| np.convolve                 | min(a, b) - 1  | (min(a, b) - 1) // 2 (length max(a, b)) |
| np.correlate                | min(a, b) - 1  | a >= b: (b - 1) // 2; else a - 1 - (a - 1) // 2 |
"""

from __future__ import annotations

import numpy as np


def _start_and_length(a: int, b: int, mode: str, kind: str) -> tuple[int, int]:
    """Where the result of `mode` starts in the full result along one axis, and its length.

    >>> _start_and_length(5, 3, "same", "scipy"), _start_and_length(2, 4, "same", "np.correlate")
    ((1, 5), (1, 4))
    """
    if mode == "full":
        return 0, a + b - 1
    if mode == "valid":
        return min(a, b) - 1, max(a, b) - min(a, b) + 1
    if kind == "scipy":
        return (b - 1) // 2, a
    if kind == "np.correlate" and a < b:
        return a - 1 - (a - 1) // 2, b
    return (min(a, b) - 1) // 2, max(a, b)


def convolved_shape(x_shape, y_shape, mode, kind):
    """The shape of the result of `mode` (`kind`: 'scipy', 'np.convolve', 'np.correlate').

    >>> convolved_shape((4, 3), (2, 2), "valid", "scipy")
    (3, 2)
    >>> convolved_shape((2,), (5,), "same", "np.convolve")
    (5,)
    """
    return tuple(_start_and_length(a, b, mode, kind)[1] for a, b in zip(x_shape, y_shape))


def full_seed(g, x_shape, y_shape, mode, kind):
    """The seed `g` of a `mode` result placed in the full result's shape (zeros elsewhere).

    >>> full_seed(np.array([1.0, 2.0]), (3,), (2,), "valid", "scipy")
    array([0., 1., 2., 0.])
    """
    if mode == "full":
        return g
    windows = [_start_and_length(a, b, mode, kind) for a, b in zip(x_shape, y_shape)]
    seed = np.zeros(tuple(a + b - 1 for a, b in zip(x_shape, y_shape)))
    seed[tuple(slice(start, start + length) for start, length in windows)] = g
    return seed


CONVOLUTION_RUNTIME_NAMES = ("convolved_shape", "full_seed")
__all__ = list(CONVOLUTION_RUNTIME_NAMES)
