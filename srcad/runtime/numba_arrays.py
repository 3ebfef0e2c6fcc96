"""What numba-compiled derivative code of array programs calls besides what numba implements
of NumPy (imported by the generated modules, never by srcad itself, so srcad does not need
numba): the same names and meanings as the python backend's runtime, compiled.

* `unbroadcast(g, shape)`: srcad/runtime/array_runtime.py's, `g` summed over the axes broadcasting
  added or stretched; `g` itself when the shapes agree (as there), a new array otherwise.
* `array_matmul(a, b)`, `outer_add(a, x, y)`: products, from srcad/runtime/numba_matmul.py.
* `array_heaviside(x, h0)`: `np.heaviside(x, h0)`, which numba lacks.
* `array_tanh(x)`: `np.tanh(x)`; of a float64 array, a loop of `simd_tanh`
  (srcad/runtime/numba_runtime.py, within 1 ulp) that LLVM vectorizes, where numba's np.tanh calls
  the C library once per element; of anything else, numba's np.tanh.
* `array_exp(x)`: `np.exp(x)` likewise, a loop of `simd_exp` (within 1 ulp).
* `array_log(x)`: `np.log(x)` likewise, a loop of `simd_log` (within 1 ulp).
* `array_stack(parts)`: `np.stack(parts, axis=0)` of a tuple; of numbers (the tangent of
  `np.array([a * a, b, 2.0])`), the vector of them, which numba's np.stack (arrays only) does
  not build.
* `array_copy(x)`: `np.array(x)` of anything but a list written out: of an array, a copy
  (numba's np.array does not take an array); of anything else, numba's np.array.

* `reshaped(shape, new_shape)`: array_runtime's (the shape `np.reshape` gives, one entry may
  be -1), through numba's own reshape of an empty int8 array of that size.
* `cholesky_tangent(L, dA)`, `cholesky_adjoint(L, g)`: srcad/runtime/array_runtime.py's formulas,
  spelled with what numba compiles (`np.tril` and `np.linalg.solve` of contiguous matrices).

Each is a plain Python function (the reference, run by the interpreter) with a numba
`overload` that numba compiles for the operand types; types it does not cover fail to type,
which the caller reports as a refusal.
"""

from __future__ import annotations

import functools

import numba
import numpy as np
from numba import types
from numba.extending import overload

from srcad.errors import LoopShapeError  # noqa: F401 - raised by generated code
from srcad.runtime import array_runtime as _python
from srcad.runtime.array_runtime import unbroadcast as _python_unbroadcast
from srcad.runtime.numba_cache import runtime_cache_in_srcad_folder
from srcad.runtime.numba_matmul import array_matmul, outer_add  # noqa: F401 - generated code
from srcad.runtime.numba_runtime import simd_exp, simd_log, simd_tanh
from srcad.runtime.numba_statistics import statistic_function
from srcad.runtime.numba_sum_to import sum_to

runtime_cache_in_srcad_folder()  # before its cached functions (srcad/runtime/numba_cache.py)


def unbroadcast(g, shape):
    return _python_unbroadcast(g, shape)


@overload(unbroadcast)
def _unbroadcast(g, shape):
    if isinstance(g, types.Number) and isinstance(shape, types.Tuple) and len(shape) == 0:
        return lambda g, shape: g  # a number summed to the shape (): itself
    if not isinstance(g, types.Array) or not isinstance(shape, (types.UniTuple, types.Tuple)):
        return None
    if len(shape) == 0:
        return lambda g, shape: np.sum(g)
    if g.ndim == len(shape) and g.layout == "C":
        def same_or_summed(g, shape):
            if g.shape == shape:
                return g
            return sum_to(g, shape)
        return same_or_summed
    return lambda g, shape: sum_to(g, shape)


def array_heaviside(x, h0):
    return np.heaviside(x, h0)


@overload(array_heaviside)
def _array_heaviside(x, h0):
    if isinstance(x, types.Number) and isinstance(h0, types.Number):
        return lambda x, h0: 1.0 if x > 0.0 else (0.0 if x < 0.0 else (h0 if x == 0.0 else x))
    # numba's np.where broadcasts; NaN stays NaN, as in NumPy
    return lambda x, h0: np.where(x > 0.0, 1.0, np.where(x < 0.0, 0.0, np.where(
        x == 0.0, h0, x)))


def array_tanh(x):
    return np.tanh(x)


def _elementwise(scalar, numpys):
    """An overload of a float64 array as one loop of srcad's vectorizable `scalar` (numba's
    own calls the C library once per element); of anything else, NumPy's `numpys`."""
    def select(x):
        if isinstance(x, types.Array) and x.dtype == types.float64 and x.ndim == 1:
            # a vector straight (the flat views below cost about as much as 16 elements)
            def vector(x):
                out = np.empty(x.shape[0])
                for i in range(x.shape[0]):
                    out[i] = scalar(x[i])
                return out
            return vector
        if isinstance(x, types.Array) and x.dtype == types.float64 and x.ndim > 0:
            def vectorized(x):
                values = np.ascontiguousarray(x)
                out = np.empty(values.shape)
                flat_values, flat_out = values.reshape(-1), out.reshape(-1)
                for i in range(flat_values.size):
                    flat_out[i] = scalar(flat_values[i])
                return out
            return vectorized
        return lambda x: numpys(x)
    return select


overload(array_tanh)(_elementwise(simd_tanh, np.tanh))


def array_exp(x):
    return np.exp(x)


overload(array_exp)(_elementwise(simd_exp, np.exp))


def array_log(x):
    return np.log(x)


overload(array_log)(_elementwise(simd_log, np.log))


def array_stack(parts):
    return np.stack(parts, axis=0)


@overload(array_stack)
def _array_stack(parts):
    if isinstance(parts, types.BaseTuple) and all(isinstance(t, (types.Number, types.Boolean))
                                                  for t in parts):
        count = len(parts)
        # NumPy's dtype: ints of ints (an index built of them), bools of bools, complex of a
        # complex entry, else floats
        dtype = np.int64 if all(isinstance(t, types.Integer) for t in parts) \
            else np.bool_ if all(isinstance(t, types.Boolean) for t in parts) \
            else np.complex128 if any(isinstance(t, types.Complex) for t in parts) else np.float64
        # each entry by its constant index (a tuple of ints and floats has no iterator)
        lines = "".join(f"    out[{i}] = parts[{i}]\n" for i in range(count))
        namespace = {"np": np, "dtype": dtype}
        exec(f"def numbers(parts):\n    out = np.empty({count}, dtype)\n{lines}    return out\n",
             namespace)
        return namespace["numbers"]
    return lambda parts: np.stack(parts, axis=0)


def array_copy(x):
    return np.array(x)


@overload(array_copy)
def _array_copy(x):
    if isinstance(x, types.Array):
        return lambda x: np.copy(x)
    return lambda x: np.array(x)


# -- reductions with an axis -------------------------------------------------------------------
# numba has np.sum with an int axis only, and no keepdims; srcad's generated code spells
# `np.sum(x, axis=1, keepdims=True)` as `reduce_sum_1_keep(x)` (transform/numba_compat.py), a
# function made here for that reduction and compiled, per rank of x, to a loop nest.
_START = {"sum": "0.0", "mean": "0.0", "max": "-np.inf", "min": "np.inf"}
_STEP = {"sum": "{acc} += {v}", "mean": "{acc} += {v}",
         "max": "if {v} > {acc} or {v} != {v}:\n{pad}    {acc} = {v}",  # NaN propagates
         "min": "if {v} < {acc} or {v} != {v}:\n{pad}    {acc} = {v}"}


def reducer(kind: str, axes, keepdims: bool):
    """`f(x)`: np.<kind>(x, axis=axes, keepdims=keepdims) (axes None, an int or a tuple); one
    function per (kind, axes, keepdims) in the process, so that every generated module and
    runtime overload reducing the same way shares its overload (numba types and lowers it once
    per argument types, not once per module).

    >>> reducer("sum", [1], False) is reducer("sum", (1,), 0)
    True
    """
    return _reducer(kind, tuple(axes) if isinstance(axes, list) else axes, bool(keepdims))


@functools.lru_cache(maxsize=None)
def _reducer(kind: str, axes, keepdims: bool):
    def reduction(x):
        return getattr(np, kind)(x, axis=axes, keepdims=keepdims)

    @overload(reduction)
    def _compiled(x):
        if not isinstance(x, types.Array):
            return None
        if kind not in _START:  # np.var, np.prod, np.nanmax, ... (numba_statistics.py)
            return statistic_function(kind, axes, keepdims, x.ndim)
        return _reduction_source(kind, axes, keepdims, x.ndim)
    return reduction


def _reduction_source(kind, axes, keepdims, rank):
    reduced = tuple(range(rank)) if axes is None else tuple(
        a % rank for a in (axes if isinstance(axes, tuple) else (axes,)))
    kept = [a for a in range(rank) if a not in reduced]
    out_dims = [("1" if a in reduced else f"x.shape[{a}]") for a in range(rank)] if keepdims \
        else [f"x.shape[{a}]" for a in kept]
    out_index = [("0" if a in reduced else f"i{a}") for a in range(rank)] if keepdims \
        else [f"i{a}" for a in kept]
    scalar = not out_dims
    acc = "acc" if scalar else f"out[{', '.join(out_index)}]"
    count = " * ".join(f"x.shape[{a}]" for a in reduced) or "1"
    lines = ["def impl(x):", f"    count = {count}"]
    if kind in ("max", "min"):
        lines += ["    if count == 0:",
                  "        raise ValueError('zero-size array to a reduction without identity')"]
    if scalar:
        lines.append(f"    acc = {_START[kind]}")
    else:
        lines.append(f"    out = np.full(({', '.join(out_dims)},), {_START[kind]})")
    pad = "    "
    for a in range(rank):
        lines.append(f"{pad}for i{a} in range(x.shape[{a}]):")
        pad += "    "
    value = f"x[{', '.join(f'i{a}' for a in range(rank))}]"
    lines.append(pad + _STEP[kind].format(acc=acc, v=value, pad=pad))
    result = "acc" if scalar else "out"
    if kind == "mean":
        lines.append(f"    return {result} / count")
    else:
        lines.append(f"    return {result}")
    namespace = {"np": np}
    exec("\n".join(lines), namespace)
    return namespace["impl"]


def cholesky_tangent(L, dA):
    return _python.cholesky_tangent(L, dA)


def cholesky_adjoint(L, g):
    return _python.cholesky_adjoint(L, g)


@numba.njit(cache=True)
def _half_diagonal_lower(x):
    return np.tril(x) - 0.5 * np.diag(np.diag(x))


@numba.njit(cache=True)
def _solve(a, b):
    return np.linalg.solve(np.ascontiguousarray(a), np.ascontiguousarray(b))


@overload(cholesky_tangent)
def _cholesky_tangent(L, dA):
    def impl(L, dA):  # array_runtime.cholesky_tangent
        sym = np.tril(dA) + np.tril(dA, -1).T
        inner = _solve(L, _solve(L, sym).T).T
        return np.dot(np.ascontiguousarray(L), np.ascontiguousarray(_half_diagonal_lower(inner)))
    return impl


@overload(cholesky_adjoint)
def _cholesky_adjoint(L, g):
    def impl(L, g):  # array_runtime.cholesky_adjoint
        projected = _half_diagonal_lower(np.dot(np.ascontiguousarray(L.T),
                                                np.ascontiguousarray(g)))
        left = _solve(L.T, projected)
        sym = _solve(L.T, left.T).T
        return np.tril(sym) + np.tril(sym.T, -1)
    return impl


def reshaped(shape, new_shape):
    return _python.reshaped(shape, new_shape)


@overload(reshaped)
def _reshaped(shape, new_shape):
    def impl(shape, new_shape):  # array_runtime.reshaped
        size = 1
        for n in shape:
            size *= n
        return np.empty(size, np.int8).reshape(new_shape).shape
    return impl
