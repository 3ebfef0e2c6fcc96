"""The arguments of the function transforms (srcad/api/function_transforms.py): `argnums` checked
and resolved as JAX does (an int or a tuple of ints; negative positions count from the end),
keyword arguments bound to their positions, and the differentiated arguments checked to be
floats or float arrays, and unit-vector lanes for a batched forward pass (a reverse pass's
annotations, pytrees included: srcad/api/primals.py). Every refusal is an `ArgumentError`
naming the transform.
"""

from __future__ import annotations

import inspect

import numpy as np

from srcad.errors import ArgumentError
from srcad.frontend.pytrees import is_container


def looks_like_argnums(value) -> bool:
    """An int or a tuple of ints: never an operator's input (which is a float or an array)."""
    if isinstance(value, (tuple, list)):
        return all(isinstance(v, int) and not isinstance(v, bool) for v in value)
    return isinstance(value, int) and not isinstance(value, bool)


def check_argnums(transform, argnums) -> tuple:
    """The argnums as a tuple of ints, checked when the transform is made."""
    positions = (argnums,) if isinstance(argnums, int) else tuple(argnums) \
        if isinstance(argnums, (tuple, list)) else None
    if not positions or not all(isinstance(p, int) and not isinstance(p, bool)
                                for p in positions):
        raise ArgumentError(f"{transform}: argnums must be an int or a non-empty tuple of "
                            f"ints, got {argnums!r}")
    if len(set(positions)) != len(positions):
        raise ArgumentError(f"{transform}: argnums={argnums!r} names an argument twice")
    return positions


def resolve_argnums(argnums, positions, count) -> tuple:
    """The argnums as non-negative positions among `count` positional arguments."""
    resolved = tuple(p + count if p < 0 else p for p in positions)
    if any(not 0 <= p < count for p in resolved):
        raise ArgumentError(f"differentiating with respect to argnums={argnums!r} needs "
                            f"{max(positions) + 1 if max(positions) >= 0 else -min(positions)} "
                            f"positional arguments, got {count}")
    if len(set(resolved)) != len(resolved):
        raise ArgumentError(f"argnums={argnums!r} names an argument twice")
    return resolved


def bind_keywords(fun, transform, argnums, args, kwargs) -> tuple:
    """`args` with the keyword arguments bound to their positions (srcad takes positional
    arguments only); keyword arguments are constants, as in JAX."""
    if not kwargs:
        return args
    try:
        bound = inspect.signature(fun).bind(*args, **kwargs)
    except TypeError as err:
        raise ArgumentError(f"{transform}: {err}") from None
    bound.apply_defaults()
    return bound.args


def numpy_floats(args, wrt) -> tuple:
    """`args` with each 0-d float array differentiated (a position in `wrt`) read as the NumPy
    float it holds, as JAX reads a 0-d array as a number: f still sees `x.ndim`, `x.shape` and
    `x.dtype` (srcad differentiates no 0-d array: NumPy arithmetic on one returns a scalar)."""
    return tuple(a[()] if k in wrt and isinstance(a, np.ndarray) and a.ndim == 0
                 and a.dtype.kind == "f" else a for k, a in enumerate(args))


def differentiable(value, position, transform):
    """A float or float array to differentiate with respect to, else ArgumentError."""
    if isinstance(value, np.ndarray):
        if value.dtype.kind != "f":
            raise ArgumentError(f"{transform}: argument {position} is an array of dtype "
                                f"{value.dtype}; derivatives need a float array",
                                hint="convert with x.astype(float)")
        return value
    if isinstance(value, (float, np.floating)):
        return value
    if isinstance(value, (int, np.integer)) and not isinstance(value, bool):
        raise ArgumentError(f"{transform}: argument {position} is an integer ({value!r}); "
                            "integers have no derivative", hint=f"pass a float, e.g. "
                            f"{float(value)!r}")
    hint = ("grad and value_and_grad take a dict, list or tuple of parameters; for a "
            "jacobian use srcad.jacobian(f, params, ...)" if is_container(value)
            else "convert with np.asarray(x, dtype=float)")
    raise ArgumentError(f"{transform}: argument {position} must be a float or a float NumPy "
                        f"array, got {type(value).__name__}", hint=hint)


def signature(args) -> tuple:
    """What an output's shape may depend on: each argument's kind, shape and dtype, and the
    value of int and bool arguments."""
    return tuple((a.shape, a.dtype.str) if isinstance(a, np.ndarray)
                 else (type(a), a if isinstance(a, (int, np.integer)) else None)
                 for a in args)


def unit_lanes(value, start, size, width):
    """The seeds of one argument in a batch of `width` lanes: lanes start..start+size-1 are
    its unit vectors, the others zero."""
    if not isinstance(value, np.ndarray):
        return [1.0 if k == start else 0.0 for k in range(width)]
    lanes = np.zeros((width, size), dtype=value.dtype)
    lanes[start:start + size] = np.eye(size, dtype=value.dtype)
    return lanes.reshape((width,) + value.shape)
