"""JAX's `jvp` and `vjp`: a function's value with a directional derivative (forward mode) or
with a function pulling cotangents back (reverse mode).

* `jvp(f, primals, tangents) -> (f(*primals), J v)`: one forward pass (ForwardWithPrimal);
  `primals` and `tangents` are tuples (or lists) of the same length, each tangent of its
  primal's structure.
* `vjp(f, *primals) -> (f(*primals), vjp_fun)`: `vjp_fun(cotangent)` returns a tuple with one
  cotangent per primal, each in its primal's structure. The reverse code of f is generated
  and compiled once, at the first call of `vjp_fun`, then reused by every call (and by later
  `vjp` calls of f with arguments of the same kinds); each call of `vjp_fun` is one reverse
  pass, which reruns f's forward sweep to rebuild its tape (the tape of the first sweep is
  not kept between calls).

Neither writes the caller's arrays, as in JAX: a function that writes its input (`x *= 2`)
runs on copies of the primals (and of the tangents, which forward mode updates with them).

Primals are floats, float arrays, or dicts, lists and tuples of them nested to any depth
(srcad/api/primals.py); f returns a float, a float array or a tuple of them, nested tuples
written out on every return (`return y, (u, v)`: srcad/api/nested_results.py) given back
nested (srcad does not differentiate a function building a dict). With `has_aux=True` f
returns `(value, aux)`, only the value is differentiated, and aux (any Python value) is
returned last, as in JAX.
"""

from __future__ import annotations

import functools
from collections.abc import Callable, Sequence
from typing import Any

import numpy as np

from srcad.annotations import ForwardWithPrimal, Reverse
from srcad.api.argnums import numpy_floats
from srcad.api.auxiliary import ValueOnly
from srcad.api.composed import is_composed, jvp_composed, vjp_composed
from srcad.api.kept_sweeps import kept_vjp
from srcad.api.nested_results import tuple_results
from srcad.api.primals import (
    forward_annotation,
    reverse_annotation,
    reverse_derivative,
    tree_copy,
)
from srcad.build.differentiate import autodiff
from srcad.build.transform_outputs import in_input_dtype
from srcad.errors import ArgumentError


def jvp(fun: Callable[..., Any], primals: Sequence[Any], tangents: Sequence[Any], *,
        has_aux: bool = False, backend: str = "python") -> tuple:
    """`(fun(*primals), J v)`, the tangent `J v` of fun's output along `tangents`, as JAX's
    `jax.jvp` (with `has_aux=True`: `(value, J v, aux)`).

    Args:
        fun: a plain Python function srcad can differentiate.
        primals: the point, one value per positional argument of fun (floats, arrays or
            pytrees of them), as a tuple or list.
        tangents: the direction, one value per primal, of the same structure and shapes.
        has_aux: fun returns `(value, aux)`; aux is passed through, not differentiated.
        backend: "python" or "numba".

    Returns:
        `(value, tangent_out)`, or `(value, tangent_out, aux)` with `has_aux=True`;
        tangent_out has the structure and shapes of fun's output.

    >>> def f(x, y):
    ...     return x * x * y
    >>> jvp(f, (3.0, 2.0), (1.0, 0.0))
    (18.0, 12.0)
    """
    primals, tangents = _sequence(primals, "primals"), _sequence(tangents, "tangents")
    # a 0-d float array is read as the NumPy float it holds, as grad reads it
    primals = numpy_floats(primals, range(len(primals)))
    tangents = numpy_floats(tangents, range(len(tangents)))
    if len(primals) != len(tangents):
        raise ArgumentError(f"jvp: {len(primals)} primals and {len(tangents)} tangents; give "
                            "one tangent per primal")
    if is_composed(fun):  # jvp of grad(f), ...: srcad's forward code over the derivative's
        return jvp_composed(fun, primals, tangents, has_aux, backend)
    target, aux = _target(fun, "jvp", has_aux, tree_copy(primals))
    nested = None if has_aux else _nested(fun)
    annotated = [forward_annotation(p, t, i, "jvp")
                 for i, (p, t) in enumerate(zip(primals, tangents))]
    tangent_out, value = autodiff(ForwardWithPrimal, nested.copy if nested else target,
                                  *annotated, backend=backend)
    tangent_out = _like_output(tangent_out, value)
    if nested:
        value, tangent_out = nested.nest(value), nested.nest(tangent_out)
    return (value, tangent_out, aux) if has_aux else (value, tangent_out)


def vjp(fun: Callable[..., Any], *primals: Any, has_aux: bool = False,
        backend: str = "python") -> tuple:
    """`(fun(*primals), vjp_fun)` as JAX's `jax.vjp`: `vjp_fun(u)` is the tuple `u^T J`, one
    entry per primal in its structure (with `has_aux=True`: `(value, vjp_fun, aux)`).

    Args:
        fun: a plain Python function srcad can differentiate.
        *primals: the point, one value per positional argument of fun (floats, arrays or
            pytrees of them).
        has_aux: fun returns `(value, aux)`; aux is passed through, not differentiated.
        backend: "python" or "numba".

    Returns:
        `(value, vjp_fun)`, or `(value, vjp_fun, aux)` with `has_aux=True`; `vjp_fun(u)`,
        for a cotangent u of the output's structure and shapes, returns one cotangent per
        primal; it can be called any number of times.

    >>> def f(x, y):
    ...     return x * x * y
    >>> value, vjp_fun = vjp(f, 3.0, 2.0)
    >>> value, vjp_fun(1.0), vjp_fun(2.0)
    (18.0, (12.0, 9.0), (24.0, 18.0))
    """
    if not primals:
        raise ArgumentError("vjp needs at least one primal to differentiate with respect to")
    primals = numpy_floats(primals, range(len(primals)))  # a 0-d float array: its float
    if is_composed(fun):
        return vjp_composed(fun, primals, has_aux, backend)
    primals = tree_copy(primals)  # kept for every call of vjp_fun, as they are now
    target, aux = _target(fun, "vjp", has_aux, tree_copy(primals))
    nested = None if has_aux else _nested(fun)
    target = nested.copy if nested else target
    kept = kept_vjp(target, primals, backend)  # the forward sweep run once, its tape kept
    if kept is not None:
        value = kept[0]
        pullback = functools.partial(_pull_back_kept, kept[1], value)
    else:
        value = target(*tree_copy(primals))
        pullback = functools.partial(_pull_back, target, primals, value, backend)
    if nested:  # the cotangent comes nested as the result (srcad/api/nested_results.py)
        value, pullback = nested.nest(value), functools.partial(_pull_back_nested, nested,
                                                                pullback)
    functools.update_wrapper(pullback, fun, assigned=("__name__", "__qualname__", "__doc__"))
    pullback.__srcad_transform__ = "vjp"
    return (value, pullback, aux) if has_aux else (value, pullback)


def _pull_back(target, primals, value, backend, cotangent):
    """One reverse pass of `target` at `primals` seeded with `cotangent`."""
    cotangent = _checked_cotangent(cotangent, value)
    # a fresh copy per call: f may write its input
    annotated = [reverse_annotation(p, i, "vjp") for i, p in enumerate(tree_copy(primals))]
    derivatives = autodiff(Reverse, target, *annotated, seed=cotangent, backend=backend)
    return tuple(reverse_derivative(p, a, d)
                 for p, a, d in zip(primals, annotated, derivatives))


def _pull_back_nested(nested, pullback, cotangent):
    return pullback(nested.flatten(cotangent, "vjp: the cotangent"))


def _nested(fun):
    """fun's `TupleResults` when it returns tuples nesting tuples, else None."""
    results = tuple_results(fun)
    return results if results is not None and results.nested else None


def _pull_back_kept(reverse_sweep, value, cotangent):
    """The reverse sweep alone, on what vjp's forward sweep kept, seeded with `cotangent`."""
    return reverse_sweep(_checked_cotangent(cotangent, value))


def _checked_cotangent(cotangent, value):
    """The cotangent of f's output, of the output's structure and shapes."""
    if type(value) is tuple:
        if type(cotangent) not in (tuple, list) or len(cotangent) != len(value):
            raise ArgumentError(f"vjp: f returns a tuple of {len(value)} values; the "
                                "cotangent must be a tuple of as many")
        return tuple(_checked_cotangent(c, v) for c, v in zip(cotangent, value))
    if np.shape(cotangent) != np.shape(value):
        raise ArgumentError(f"vjp: the cotangent has shape {np.shape(cotangent)}, f's output "
                            f"{np.shape(value)}")
    if isinstance(value, np.ndarray):
        return np.asarray(cotangent, dtype=float)
    return float(cotangent)


def _like_output(tangent, value):
    """The tangent in the output's structure: a float for a float output, an array shaped
    like an array output, a tuple for a tuple."""
    if type(value) is tuple:
        return tuple(_like_output(t, v) for t, v in zip(tangent, value))
    if isinstance(value, np.ndarray):
        return np.asarray(tangent, dtype=value.dtype).reshape(value.shape)
    return in_input_dtype(float(tangent), value)  # an np.float32 value: an np.float32 tangent


def _sequence(values, what):
    if type(values) not in (tuple, list):
        raise ArgumentError(f"jvp: {what} must be a tuple or list (one entry per argument of "
                            f"f), got {type(values).__name__}",
                            hint="write jvp(f, (x,), (v,)) for one argument")
    return tuple(values)


def _target(fun, transform, has_aux, primals):
    """(the function to differentiate, aux): fun and None, or fun's value alone and its aux."""
    if not has_aux:
        return fun, None
    value_only = ValueOnly(fun, transform)
    return value_only.function(len(primals)), value_only.aux(primals)
