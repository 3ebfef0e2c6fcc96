"""What numba-compiled generated code calls where numba's own arithmetic differs from NumPy's
and Python's (srcad/transform/numba_compat.py spells the calls; imported by the generated
modules, never by srcad itself):

* `unshared(t, v)`: the right side `v` of `t += v` (any augmented assignment), copied when
  `v` is an array whose memory may overlap the array `t` (their address ranges meet), else
  `v` itself: NumPy reads the whole right side before writing, numba's loop does not
  (`y[1:] += y[:-1]` added values already written).
* `int_power(a, b, where)`: `a ** b`; of two ints, refused (a ValueError "srcad: `where`
  ...", which srcad raises as it is) where Python's is not an int64: a negative exponent
  (Python's is a float, numba's an int, 0 for `2 ** -2`) or a power beyond int64 (Python's
  ints have no bound, numba's wrap).
* `int_product(a, b, where)`, `int_factor(a, b, where)`: `a * b` and `b`, where `a` is a
  product kept across statements (`n = n * k`, `n *= k`: its factor `b`); of two ints,
  refused where the product leaves int64 (Python's ints have no bound, numba's wrap:
  22! came back as a wrapped int64).

* `added_into(t, v)`: `t += v` returning `t` (srcad/transform/numba_accumulate.py spells each
  `t += unshared(t, v)` of a name so): a float64 array `t` has `v` (or its copy where they
  overlap) added in one loop nest of its own; anything else is numba's `t += unshared(t, v)`.
* `matmul_added_into(t, a, b)`: `t += a @ b` returning `t` (numba_accumulate.py spells each
  `t += unshared(t, array_matmul(a, b))` of a name so): where `t`, `a` and `b` are float64
  matrices, `t` of the product's shape and apart from both operands, one BLAS dgemm adds the
  product into `t` itself (beta = 1: no product matrix made, then added); anything else is
  `added_into(t, array_matmul(a, b))`.
* `assigned_adjoint(v, e)`, `copied_adjoint(v, e)`: `np.zeros_like(v) + e`, an adjoint's
  first contribution (srcad/transform/numba_first_adjoints.py): `e` itself (a new array the
  code made) or a copy of it (an array other code holds) where it is a float64 array of v's
  shape, so no zeros are written and added to; `np.full` of a number `e` (the adjoint of
  `np.sum`); the zeros and the sum otherwise.
* `zeros_into(v, shape)`: `np.zeros(shape)`, written into `v` itself where `v` is a float64
  array of that shape: a loop's array made anew each iteration, whose name owns its array
  (srcad/transform/numba_array_reuse.py).
* `scatter_add(a, index, v)`: `np.add.at(a, index, v)`, which numba lacks
  (srcad/runtime/numba_scatter.py).

Each is a plain Python function (the reference, run by the interpreter) with a numba
`overload` that numba compiles for the operand types.
"""

from __future__ import annotations

import numba
import numpy as np
from numba import types
from numba.extending import overload, register_jitable

from srcad.runtime.numba_arrays import array_matmul
from srcad.runtime.numba_broadcast import broadcast_view
from srcad.runtime.numba_cache import runtime_cache_in_srcad_folder
from srcad.runtime.numba_gemm import BLAS, MIN_WORK, gemm_into
from srcad.runtime.numba_scatter import scatter_add  # noqa: F401 - np.add.at, for numba
from srcad.runtime.numba_sum_to import compiled, loops, pad

runtime_cache_in_srcad_folder()  # before its cached functions (srcad/runtime/numba_cache.py)


def unshared(t, v):
    return v


@overload(unshared)
def _unshared(t, v):
    """Straight-line code for the ranks (jitted helpers were each compiled again, machine code
    and all, for every combination of array types)."""
    if isinstance(t, types.Array) and isinstance(v, types.Array):
        lines = ["def impl(t, v):", *extent_lines("t", t.ndim), *extent_lines("v", v.ndim),
                 "    overlap = (t.size > 0) & (v.size > 0) & (t_low < v_high) & (v_low < t_high)",
                 "    return v.copy() if overlap else v"]
        return compiled(lines)
    return lambda t, v: v


def added_into(t, v):
    t += v
    return t


@overload(added_into)
def _added_into(t, v):
    """A float64 array `t` that code may write: `v` (made unshared first) added in one loop
    nest over `t`, a flat loop where both are C arrays of one shape (numba's own `+=` walks
    the arrays through its broadcasting machinery: 2.5 and 2 times as long for 250,000
    elements, contiguous and a strided view); anything else, `t += unshared(t, v)` as
    numba compiles it."""
    number = isinstance(v, (types.Float, types.Integer, types.Boolean))
    if not (isinstance(t, types.Array) and t.dtype == types.float64 and t.mutable
            and t.ndim > 0 and (number or (isinstance(v, types.Array)
                                           and v.dtype == types.float64
                                           and v.ndim <= t.ndim))):
        def numbas(t, v):
            t += unshared(t, v)
            return t
        return numbas
    rank = t.ndim
    index = ", ".join(f"i{k}" for k in range(rank))
    lines = ["def impl(t, v):"]
    if number:
        lines += ["    w = v"]
        element = "w"
    else:
        lines += ["    v = unshared(t, v)"]
        if t.layout == "C" and v.layout == "C" and v.ndim == rank:
            lines += ["    if v.shape == t.shape:", "        flat_t, flat_v = t.reshape(-1), "
                      "v.reshape(-1)", "        for i in range(flat_t.size):",
                      "            flat_t[i] += flat_v[i]", "        return t"]
        lines += ["    w = broadcast_view(v, t.shape)"]
        element = f"w[{index}]"
    lines += loops(rank, "t.shape")
    lines += [f"{pad(rank + 1)}t[{index}] += {element}", "    return t"]
    return compiled(lines, {"unshared": unshared, "broadcast_view": broadcast_view})


def matmul_added_into(t, a, b):
    return added_into(t, array_matmul(a, b))


@overload(matmul_added_into)
def _matmul_added_into(t, a, b):
    """Float64 matrices: dgemm with beta = 1 into `t` where the shapes are the product's,
    the product is not tiny (`MIN_WORK`) and `t` meets neither operand (BLAS writes `t` while
    it reads them); else, and for any other types, the product made and added."""
    matrices = all(isinstance(x, types.Array) and x.ndim == 2 and x.dtype == types.float64
                   for x in (t, a, b))
    if not (BLAS and matrices and t.mutable):
        return lambda t, a, b: added_into(t, array_matmul(a, b))
    lines = ["def impl(t, a, b):", "    m, k = a.shape", "    n = b.shape[1]",
             *extent_lines("t", 2), *extent_lines("a", 2), *extent_lines("b", 2),
             "    meets = ((t_low < a_high) & (a_low < t_high)) | ((t_low < b_high)"
             " & (b_low < t_high))",
             "    if (b.shape[0] == k and t.shape[0] == m and t.shape[1] == n"
             " and m * k * n >= MIN_WORK and not meets):",
             "        if gemm_into(a, b, t, 1.0):",
             "            return t",
             "    return added_into(t, array_matmul(a, b))"]
    return compiled(lines, {"gemm_into": gemm_into, "MIN_WORK": MIN_WORK,
                            "added_into": added_into, "array_matmul": array_matmul})


def assigned_adjoint(v, e):
    out = np.zeros_like(v)
    out += e
    return out


def copied_adjoint(v, e):
    out = np.zeros_like(v)
    out += e
    return out


def _first_adjoint(copy):
    def typer(v, e):
        if isinstance(v, types.Array) and isinstance(e, types.Array) and v.ndim == e.ndim \
                and e.dtype == types.float64 and np.zeros(0, v.dtype.name).dtype == np.float64:
            if not copy and e.layout == "C" and e.mutable:
                def taken(v, e):
                    if e.shape != v.shape:
                        return _added(v, e)
                    return e
                return taken

            def copied(v, e):  # a C copy: the type of the zeros' sum
                if e.shape != v.shape:
                    return _added(v, e)
                return e.copy()
            return copied
        if isinstance(v, types.Array) and v.ndim > 0 and v.dtype == types.float64 \
                and isinstance(e, (types.Float, types.Integer)):
            # a number spread over v: 0.0 + e, as the zeros plus it (-0.0 becomes 0.0)
            return lambda v, e: np.full(v.shape, 0.0 + e)
        return lambda v, e: _added(v, e)
    return typer


@register_jitable
def _added(v, e):
    out = np.zeros_like(v)
    out += e
    return out


overload(assigned_adjoint)(_first_adjoint(copy=False))
overload(copied_adjoint)(_first_adjoint(copy=True))


def extent_lines(a, rank):
    """`{a}_low`, `{a}_high`: the addresses [low, high) the elements of the array `a` of `rank`
    occupy (when it is not empty)."""
    steps = [f"({a}.shape[{k}] - 1) * {a}.strides[{k}]" for k in range(rank)]
    lines = [f"    {a}_{k} = {step}" for k, step in enumerate(steps)]
    low = "".join(f" + min({a}_{k}, 0)" for k in range(rank))
    high = "".join(f" + max({a}_{k}, 0)" for k in range(rank))
    return lines + [f"    {a}_low = {a}.ctypes.data{low}",
                    f"    {a}_high = {a}.ctypes.data + {a}.itemsize{high}"]


def int_power(a, b, where):
    return a ** b


_INT64_MAX = np.iinfo(np.int64).max


@numba.njit(cache=True)
def _int_power(a, b):
    """(a ** b, True) of ints with b >= 0; (0, False) where it leaves int64."""
    result, base = 1, a
    while b > 0:
        if b & 1:
            if base != 0 and abs(result) > _INT64_MAX // abs(base):
                return 0, False
            result *= base
        b >>= 1
        if b > 0:
            if abs(base) > 3037000499:  # the largest int whose square is an int64
                return 0, False
            base *= base
    return result, True


@overload(int_power, prefer_literal=True)
def _int_power_overload(a, b, where):
    if not (isinstance(a, types.Integer) and isinstance(b, types.Integer)):
        return lambda a, b, where: a ** b
    at = getattr(where, "literal_value", "an int power")
    negative = (f"srcad: {at}: an int to a negative int power is a float in Python and an "
                "int in numba (write the base as a float, e.g. 2.0 ** -k, or use "
                "backend='python')")
    overflow = (f"srcad: {at}: this int power is beyond int64, where numba's ints wrap and "
                "Python's do not (compute it in floats, or use backend='python')")

    def power(a, b, where):
        if b < 0:
            raise ValueError(negative)
        value, ok = _int_power(a, b)
        if not ok:
            raise ValueError(overflow)
        return value
    return power


def int_product(a, b, where):
    return a * b


def int_factor(a, b, where):
    return b


_INT64_MIN = np.iinfo(np.int64).min


@numba.njit(cache=True)
def _fits(a, b):
    """Is the product of the ints a and b within int64 (by bounds: LLVM folds a check of the
    wrapped product, `a * b // b == a`, to True)? -2**63 itself only as a product with 1."""
    if a == 0 or b == 0:
        return True
    if a == _INT64_MIN or b == _INT64_MIN:
        return a == 1 or b == 1
    return abs(a) <= _INT64_MAX // abs(b)


# `where` is not specialized on (no prefer_literal): one compilation serves every site, the
# message is built when it is raised
_BEYOND = ": this int product is beyond int64, where numba's ints wrap and Python's do not " \
    "(compute it in floats, or use backend='python')"


def _checked_product(result):
    """The overload returning `result(a, b)` (the product, or the factor b), refused where the
    product of two ints leaves int64; of floats and arrays, as they multiply."""
    value = register_jitable(result)

    def select(a, b, where):
        if not (isinstance(a, types.Integer) and isinstance(b, types.Integer)):
            return lambda a, b, where: value(a, b)

        def checked(a, b, where):
            if not _fits(a, b):
                raise ValueError("srcad: " + where + _BEYOND)
            return value(a, b)
        return checked
    return select


overload(int_product)(_checked_product(lambda a, b: a * b))
overload(int_factor)(_checked_product(lambda a, b: b))


def zeros_into(v, shape):
    return np.zeros(shape)


@overload(zeros_into)
def _zeros_into(v, shape):
    """`v` filled with zeros where it is a float64 array of `shape` (a tuple, or an int for
    a vector), else new zeros of `shape`."""
    if not (isinstance(v, types.Array) and v.dtype == types.float64 and v.mutable):
        return lambda v, shape: np.zeros(shape)
    if isinstance(shape, types.Integer) and v.ndim == 1:
        def vector(v, shape):
            if v.shape[0] != shape:
                return np.zeros(shape)
            v[:] = 0.0
            return v
        return vector
    if isinstance(shape, types.UniTuple) and shape.count == v.ndim:
        def filled(v, shape):
            if v.shape != shape:
                return np.zeros(shape)
            v[...] = 0.0
            return v
        return filled
    return lambda v, shape: np.zeros(shape)
