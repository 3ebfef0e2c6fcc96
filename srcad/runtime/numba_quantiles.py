"""np.median, np.quantile and np.percentile on the numba backend: numba has them of a whole
array only, without `axis=` or `keepdims=`. srcad/transform/numba_movement.py spells each call
`moved_<name>(...)` with the same arguments; their derivative's weights read the elements'
ranks, `np.argsort(np.argsort(x, axis, kind='stable'), axis, kind='stable')`, which that
module spells `sort_order(sort_order(x, axis), axis)` (srcad/runtime/numba_selection.py).

NumPy's values: linear interpolation between the two sorted elements around q (n - 1)
(method='linear', the only method srcad differentiates), NaN for a slice holding NaN; `q` one
number. Within an ulp or two of NumPy's (its interpolation is arranged differently).

Imported by generated numba modules only (it imports numba).
"""

from __future__ import annotations

import math

import numpy as np
from numba import types
from numba.core.errors import TypingError
from numba.extending import overload, register_jitable
from numba.np.unsafe.ndarray import to_fixed_tuple

from srcad.runtime.numba_movement import omitted_argument
from srcad.runtime.numba_selection import lanes


@register_jitable
def _interpolated(values, q):
    """The q-quantile of the 1-D array `values` (NumPy's linear method)."""
    n = values.size
    for v in values:
        if v != v:
            return np.nan
    ordered = np.sort(values)
    position = q * (n - 1)
    low = int(math.floor(position))
    high = min(low + 1, n - 1)
    return ordered[low] + (ordered[high] - ordered[low]) * (position - low)


def moved_median(a, axis=None, out=None, overwrite_input=False, keepdims=False):
    return np.median(a, axis=axis, keepdims=keepdims)


def moved_quantile(a, q, axis=None, out=None, overwrite_input=False, method="linear",
                   keepdims=False):
    return np.quantile(a, q, axis=axis, keepdims=keepdims)


def moved_percentile(a, q, axis=None, out=None, overwrite_input=False, method="linear",
                     keepdims=False):
    return np.percentile(a, q, axis=axis, keepdims=keepdims)


def _source(rank, axis, keepdims, header, q):
    """Source of `impl`: the quantile `q` (an expression) of `a` along `axis` (None: all)."""
    lines = [header]
    if omitted_argument(axis):
        value = f"_interpolated(np.ascontiguousarray(a).reshape(-1), {q})"
        if keepdims:
            lines.append(f"    return np.full(({'1, ' * rank}), {value})")
        else:
            lines.append(f"    return {value}")
        return "\n".join(lines)
    lines += ["    axis = axis % a.ndim", "    moved, rows = lanes(a, axis)",
              "    out = np.empty(rows.shape[0])", "    for r in range(rows.shape[0]):",
              f"        out[r] = _interpolated(rows[r], {q})",
              f"    sizes = np.empty({rank if keepdims else rank - 1}, np.int64)",
              f"    for d in range({rank}):"]
    if keepdims:
        lines.append("        sizes[d] = 1 if d == axis else a.shape[d]")
    else:
        lines += ["        if d != axis:", "            sizes[d - (d > axis)] = a.shape[d]"]
    if rank == 1 and not keepdims:
        lines.append("    return out[0]")
    else:
        lines.append(f"    return out.reshape(to_fixed_tuple(sizes, "
                     f"{rank if keepdims else rank - 1}))")
    return "\n".join(lines)


def _keep(keepdims) -> bool:
    if omitted_argument(keepdims):
        return bool(keepdims) if not isinstance(keepdims, types.Type) else False
    if isinstance(keepdims, types.BooleanLiteral):
        return keepdims.literal_value
    raise TypingError("srcad compiles keepdims= as a literal True or False")


def _compile(source):
    namespace = {"np": np, "lanes": lanes, "_interpolated": _interpolated,
                 "to_fixed_tuple": to_fixed_tuple}
    exec(source, namespace)
    return namespace["impl"]


def _checked(a, axis):
    if not isinstance(a, types.Array):
        raise TypingError("srcad compiles quantiles of arrays")
    if not (omitted_argument(axis) or isinstance(axis, (types.Integer, types.IntegerLiteral))):
        raise TypingError("srcad compiles quantiles along one axis or all of them")


@overload(moved_median, prefer_literal=True)
def _median(a, axis=None, out=None, overwrite_input=False, keepdims=False):
    _checked(a, axis)
    return _compile(_source(a.ndim, axis, _keep(keepdims), "def impl(a, axis=None, out=None, "
                            "overwrite_input=False, keepdims=False):", "0.5"))


@overload(moved_quantile, prefer_literal=True)
def _quantile(a, q, axis=None, out=None, overwrite_input=False, method="linear",
              keepdims=False):
    _checked(a, axis)
    return _compile(_source(a.ndim, axis, _keep(keepdims), "def impl(a, q, axis=None, out=None, "
                            "overwrite_input=False, method='linear', keepdims=False):", "q"))


@overload(moved_percentile, prefer_literal=True)
def _percentile(a, q, axis=None, out=None, overwrite_input=False, method="linear",
                keepdims=False):
    _checked(a, axis)
    return _compile(_source(a.ndim, axis, _keep(keepdims), "def impl(a, q, axis=None, out=None, "
                            "overwrite_input=False, method='linear', keepdims=False):",
                            "q / 100.0"))
