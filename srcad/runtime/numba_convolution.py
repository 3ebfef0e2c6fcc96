"""np.convolve, np.correlate (vectors, mode=) and scipy.signal.convolve, scipy.signal.correlate
(arrays of one rank, mode=, method=) compiled, and what their derivatives call besides them:
`full_seed` and `convolved_shape` (srcad/runtime/convolution_runtime.py's, same names and
values). srcad/transform/numba_movement.py spells `np.convolve(...)` `moved_convolve(...)`
(numba has np.convolve and np.correlate without mode=); scipy.signal's two are numba
`overload`s of the SciPy objects, bound by a generated module that calls them
(srcad/build/numba_constants.py).

Each is the full convolution, computed directly (every product a[i] b[j] added at i + j, as
flat offsets, so one loop serves every rank), then the window of `mode` cut from it where
convolution_runtime.py's table puts it; a correlation is the convolution with the second
operand reversed along every axis. NumPy's and SciPy's values to rounding (their sums run in
another order; SciPy's method='fft' or 'auto' rounds otherwise again: `method=` says how, not
what).

Imported by generated numba modules only (it imports numba).
"""

from __future__ import annotations

import numpy as np
import scipy.signal
from numba import types
from numba.core.errors import TypingError
from numba.cpython.unsafe.tuple import tuple_setitem
from numba.extending import overload, register_jitable

from srcad.runtime.convolution_runtime import _start_and_length, convolved_shape, full_seed

_window = register_jitable(_start_and_length)


@register_jitable
def flat_offsets(shape, strides):
    """The flat offset, with `strides` (in elements), of each element of an array of `shape`
    in C order."""
    size = 1
    for n in shape:
        size *= n
    out = np.zeros(size, np.int64)
    for flat in range(size):
        rest, offset = flat, 0
        for k in range(len(shape) - 1, -1, -1):
            offset += (rest % shape[k]) * strides[k]
            rest //= shape[k]
        out[flat] = offset
    return out


@register_jitable
def c_strides(shape):
    """The C-order strides, in elements, of an array of `shape`."""
    strides = np.ones(len(shape), np.int64)
    for k in range(len(shape) - 2, -1, -1):
        strides[k] = strides[k + 1] * shape[k + 1]
    return strides


@register_jitable
def _full_shape(a_shape, b_shape):
    shape = a_shape
    for k in range(len(a_shape)):
        shape = tuple_setitem(shape, k, a_shape[k] + b_shape[k] - 1)
    return shape


@register_jitable
def _window_shape(a_shape, b_shape, mode, kind):
    shape = a_shape
    for k in range(len(a_shape)):
        shape = tuple_setitem(shape, k, _window(a_shape[k], b_shape[k], mode, kind)[1])
    return shape


@register_jitable
def _window_offsets(a_shape, b_shape, mode, kind):
    """The flat offset in the full result of each element of the result of `mode`."""
    full = _full_shape(a_shape, b_shape)
    strides = c_strides(full)
    shape = _window_shape(a_shape, b_shape, mode, kind)
    start = 0
    for k in range(len(a_shape)):
        start += _window(a_shape[k], b_shape[k], mode, kind)[0] * strides[k]
    return start + flat_offsets(shape, strides), shape


@register_jitable
def _convolved(a, b, mode, kind):
    """The `mode` window of the full convolution of a and b (arrays of one rank)."""
    a, b = np.ascontiguousarray(a * 1.0), np.ascontiguousarray(b * 1.0)
    if a.size == 0 or b.size == 0:
        raise ValueError("convolve: the operands cannot be empty")
    full_shape = _full_shape(a.shape, b.shape)
    strides = c_strides(full_shape)
    at_a, at_b = flat_offsets(a.shape, strides), flat_offsets(b.shape, strides)
    size = 1
    for n in full_shape:
        size *= n
    full = np.zeros(size)
    flat_a, flat_b = a.reshape(-1), b.reshape(-1)
    for i in range(flat_a.size):
        for j in range(flat_b.size):
            full[at_a[i] + at_b[j]] += flat_a[i] * flat_b[j]
    offsets, shape = _window_offsets(a.shape, b.shape, mode, kind)
    out = np.empty(offsets.size)
    for r in range(offsets.size):
        out[r] = full[offsets[r]]
    return out.reshape(shape)


def _modes(mode):
    if not isinstance(mode, (types.UnicodeType, types.StringLiteral, types.Omitted)) \
            and isinstance(mode, types.Type):
        raise TypingError("srcad compiles convolutions with mode= a string")


# -- np.convolve, np.correlate -------------------------------------------------------------

def moved_convolve(a, v, mode="full"):
    return np.convolve(a, v, mode)


def moved_correlate(a, v, mode="valid"):
    return np.correlate(a, v, mode)


def _vectors(a, v, name):
    if not (isinstance(a, types.Array) and isinstance(v, types.Array)
            and a.ndim == 1 and v.ndim == 1):
        raise TypingError(f"srcad compiles np.{name} of two vectors")


@overload(moved_convolve)
def _np_convolve(a, v, mode="full"):
    _vectors(a, v, "convolve")
    _modes(mode)
    return lambda a, v, mode="full": _convolved(a, v, mode, "np.convolve")


@overload(moved_correlate)
def _np_correlate(a, v, mode="valid"):
    _vectors(a, v, "correlate")
    _modes(mode)
    return lambda a, v, mode="valid": _convolved(a, v[::-1], mode, "np.correlate")


# -- scipy.signal.convolve, scipy.signal.correlate -----------------------------------------

@register_jitable
def _signal(in1, in2, mode):
    if in1.ndim != in2.ndim:
        raise ValueError("in1 and in2 should have the same dimensionality")
    if mode == "valid":  # SciPy: one operand at least as large as the other along every axis
        first, second = True, True
        for k in range(in1.ndim):
            first = first and in1.shape[k] >= in2.shape[k]
            second = second and in2.shape[k] >= in1.shape[k]
        if not (first or second):
            raise ValueError("For 'valid' mode, one must be at least as large as the other "
                             "in every dimension")
    elif mode != "full" and mode != "same":
        raise ValueError("acceptable mode flags are 'valid', 'same', or 'full'")


def _arrays(in1, in2, name):
    if not (isinstance(in1, types.Array) and isinstance(in2, types.Array)):
        raise TypingError(f"srcad compiles scipy.signal.{name} of arrays")


@register_jitable
def _as_it_is(b):
    return b


@register_jitable
def _reversed(b):
    return np.flip(b)


def _register_signal(name, second):
    """numba's scipy.signal.<name>: the convolution of in1 and `second(in2)`."""
    def typed(in1, in2, mode="full", method="auto"):
        _arrays(in1, in2, name)
        _modes(mode)

        def implementation(in1, in2, mode="full", method="auto"):
            _signal(in1, in2, mode)
            return _convolved(in1, second(in2), mode, "scipy")
        return implementation
    overload(getattr(scipy.signal, name))(typed)


_register_signal("convolve", _as_it_is)
_register_signal("correlate", _reversed)  # the convolution with in2 reversed on every axis


# -- what the derivatives call -------------------------------------------------------------

@overload(full_seed)
def _full_seed(g, x_shape, y_shape, mode, kind):
    def seed(g, x_shape, y_shape, mode, kind):
        offsets, _ = _window_offsets(x_shape, y_shape, mode, kind)
        full_shape = _full_shape(x_shape, y_shape)
        size = 1
        for n in full_shape:
            size *= n
        out = np.zeros(size)
        flat = np.ascontiguousarray(g * 1.0).reshape(-1)
        for r in range(offsets.size):
            out[offsets[r]] = flat[r]
        return out.reshape(full_shape)
    return seed


@overload(convolved_shape)
def _convolved_shape(x_shape, y_shape, mode, kind):
    return lambda x_shape, y_shape, mode, kind: _window_shape(x_shape, y_shape, mode, kind)
