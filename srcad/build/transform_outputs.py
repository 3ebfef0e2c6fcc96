"""What a transformed function returns (srcad/api/function_transforms.py): the function's output
checked (a float for `grad`, a float or a float array for the Jacobians; anything else is
refused with the function's file and line), Jacobian blocks shaped `output.shape +
argument.shape` (a float when both are floats), one block for an int `argnums` and a tuple
for a tuple, and `(result, aux)` with `has_aux`. A derivative has its input's float dtype,
as in JAX (`in_input_dtype`: float32 in, float32 out, in every transform and operator).
"""

from __future__ import annotations

import numpy as np

from srcad.annotations import Duplicated
from srcad.errors import ArgumentError


def result(blocks, argnums, value_only, aux):
    """One block for an int argnums, a tuple for a tuple; with has_aux, (result, aux)."""
    combined = blocks[0] if isinstance(argnums, int) else tuple(blocks)
    return (combined, aux) if value_only else combined


def derivative_of(annotation, derivative):
    """A reverse pass's derivative for one argument: its shadow for an array."""
    if isinstance(annotation, Duplicated):
        return annotation.shadow
    return in_input_dtype(float(derivative), annotation.value)


def _where(fun) -> dict:
    """The file and line of `fun`, for a refusal about what it returns."""
    code = getattr(getattr(fun, "__srcad_wrapped__", fun), "__code__", None)
    return {} if code is None else {"filename": code.co_filename, "line": code.co_firstlineno}


def float_output(value, transform, fun) -> float:
    """The value of a function `grad` differentiates, as a float; anything else is refused."""
    if type(value) is float:
        return value
    if isinstance(value, (float, int, np.floating, np.integer)) and not isinstance(value, bool):
        return float(value)
    if isinstance(value, np.ndarray) and value.shape == ():
        return float(value)
    shape = f"an array of shape {value.shape}" if isinstance(value, np.ndarray) \
        else type(value).__name__
    raise ArgumentError(f"{transform} needs a function returning a float, got {shape}",
                        hint="use jacfwd or jacrev for functions returning arrays",
                        **_where(fun))


def checked_output(value, transform, fun):
    """A float or a float array, what the Jacobian transforms accept; else refused."""
    if value is None or not (isinstance(value, (float, int, np.floating, np.integer, np.ndarray))
                             and not isinstance(value, bool)):
        raise ArgumentError(f"{transform} needs a function returning a float or a float array, "
                            f"got {type(value).__name__}", **_where(fun))
    return value


def shaped(block, value, out_shape):
    """A Jacobian block; a float when both the output and the argument are floats."""
    if out_shape == () and not isinstance(value, np.ndarray):
        return in_input_dtype(float(block), value)
    return in_input_dtype(block, value)


def in_input_dtype(result, x):
    """`result`, a derivative with respect to `x` (a float or array, or a tuple of them), in
    x's float dtype when that is not float64 (JAX's rule: float32 in, float32 out).

    >>> in_input_dtype(np.ones(2), np.ones(2, dtype=np.float32)).dtype
    dtype('float32')
    """
    dtype = getattr(x, "dtype", None)
    if dtype is None or dtype == np.float64 or dtype.kind != "f":
        return result
    if isinstance(result, np.ndarray) and result.dtype != dtype and result.dtype.kind == "f":
        return result.astype(dtype)
    if isinstance(result, (float, np.floating)) and type(result) is not dtype.type:
        return dtype.type(result)
    if type(result) is tuple:
        return tuple(in_input_dtype(r, x) for r in result)
    return result


def dtype_of(value):
    """The dtype of a Jacobian block with respect to `value` (float64 for a float)."""
    return value.dtype if isinstance(value, np.ndarray) else getattr(value, "dtype", np.float64)
