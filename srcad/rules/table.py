"""Calls srcad knows, keyed by the Python object called (so `np.exp`, `math.exp` and
`from math import exp` all find the same rule).

Differentiable calls map to a `Rule`; the rest are known to be non-differentiable (`len`,
`range`, `int`, array constructors) and carry only the type of what they return.

| primitive            | partial applied to seed g (forward: g = tangent; reverse: g = adjoint) |
|----------------------|-------------------------------------------------------------------------|
| exp(x)               | g * ans                                                                 |
| log(x)               | g / x                                                                   |
| ...                  | see srcad/rules/scalar_rules.py, one line each                          |
"""

from __future__ import annotations

import builtins
import math
import types

import numpy as np

from srcad.errors import SrcadError
from srcad.rules import (
    convolution,
    generated_code,
    interpolation,
    library_families,
    linalg,
    math_functions,
    movement,
    selection,
    spectral,
)
from srcad.rules import rule_type as _r
from srcad.rules.building import (
    at_least,
    c_columns,
    column_stack,
    concatenate,
    hstack,
    stack,
    vstack,
)
from srcad.rules.call_info import ANY, ELEMENTWISE, CallInfo
from srcad.rules.decompositions import (
    cholesky,
    det,
    inv,
    logabsdet,
    sign_of_det,
    solve,
)
from srcad.rules.elementwise import (
    divmod_entries,
    elementwise,
    operator,
    operator_module_selects,
)
from srcad.rules.linalg import inner, matmul, outer, transpose
from srcad.rules.numpy_entries import METHOD_CALLS as NUMPY_METHOD_CALLS
from srcad.rules.numpy_entries import METHODS as NUMPY_METHODS
from srcad.rules.numpy_entries import entries as numpy_entries
from srcad.rules.reductions import cumsum, extremum, norm, reduction
from srcad.rules.scalar_rules import MATH_NAMES, NUMPY_ALIASES, RULES_BY_NAME
from srcad.rules.shapes import (
    broadcast_to,
    expand_dims,
    full,
    full_like,
    ravel,
    reshape,
    squeeze,
    unbroadcast,
)
from srcad.runtime import movement_runtime
from srcad.runtime.array_runtime import (
    cholesky_adjoint,
    cholesky_tangent,
    diagonal_adjoint,
    einsum_adjoint,
    grown,
    reshaped,
    view_element,
    view_size,
    view_start,
)
from srcad.runtime.array_runtime import unbroadcast as unbroadcast_function
from srcad.runtime.convolution_runtime import convolved_shape, full_seed
from srcad.runtime.cross_runtime import cross_length, cross_of
from srcad.runtime.index_tricks import c_columns as c_columns_function
from srcad.runtime.movement_runtime import MOVEMENT_RUNTIME_NAMES

_PARTS: dict = {}  # (id(function), part): (function, CallInfo): spectral.ENTRIES' parts


def _build() -> dict[int, CallInfo]:
    table: dict[int, tuple[object, CallInfo]] = {}

    def add(obj, info):
        table[id(obj)] = (obj, info)

    for fname in MATH_NAMES:
        add(getattr(math, fname), CallInfo(fname, RULES_BY_NAME[fname], "float"))
    add(math.fabs, CallInfo("fabs", RULES_BY_NAME["abs"], "float"))
    for entry in math_functions.ENTRIES:
        add(entry.function, CallInfo(entry.rule.name, entry.rule, "float",
                                     numba_refusal=math_functions.numba_refusal(entry.function)))
    add(math.hypot, CallInfo("hypot", RULES_BY_NAME["hypot"], "float",
                             select=math_functions.hypot,
                             numba_refusal=math_functions.numba_hypot))
    add(math.log, CallInfo("log", RULES_BY_NAME["log"], "float", select=math_functions.log,
                           numba_refusal=math_functions.numba_log))
    # NumPy functions map over arrays: np.exp(x) of an array is an array (its array rule,
    # chosen by `select`), never a float
    for np_name, rname in NUMPY_ALIASES.items():
        scalar = RULES_BY_NAME[rname]
        add(getattr(np, np_name), CallInfo(rname, scalar, "float", arrays=ELEMENTWISE,
                                           select=elementwise(scalar, rname)))
    add(np.square, CallInfo("square", None, "float", select=elementwise(None, "square")))
    add(np.where, CallInfo("where", None, "float", select=elementwise(None, "where")))
    for fn, name in ((np.sum, "sum"), (np.mean, "mean")):
        add(fn, CallInfo(name, None, "float", select=reduction(name),
                         keywords=("axis", "keepdims")))
    add(np.dot, CallInfo("dot", None, "float", select=matmul("dot")))
    add(np.matmul, CallInfo("matmul", None, "float", select=matmul("matmul")))
    add(np.transpose, CallInfo("transpose", None, "float", select=transpose,
                               keywords=("axes",)))
    for fn, name in ((np.max, "max"), (np.min, "min"), (np.amax, "max"), (np.amin, "min")):
        add(fn, CallInfo(name, None, "float", select=extremum(name),
                         keywords=("axis", "keepdims")))
    add(np.linalg.norm, CallInfo("norm", None, "float", select=norm))
    add(np.cumsum, CallInfo("cumsum", None, "float", select=cumsum))
    add(np.outer, CallInfo("outer", None, "float", select=outer))
    add(np.inner, CallInfo("inner", None, "float", select=inner))
    for fn, info in convolution.table_entries(CallInfo, convolution.ENTRIES):
        add(fn, info)  # np.convolve, np.correlate
    for fn, select, fields in linalg.ENTRIES:  # einsum, tensordot, kron, ...
        add(fn, CallInfo(fn.__name__, None, "float", select=select, **fields))
    for fn, select, keywords, count, parts in spectral.ENTRIES:  # eigh, svd, pinv, ...
        fields = {"keywords": keywords, "operand_count": count,
                  "numba_refusal": spectral.numba_refusal(fn)}
        add(fn, CallInfo(fn.__name__, None, "other" if parts else "float", select=select,
                         **fields))
        for key, part in parts.items():  # np.linalg.eigh(A).eigenvectors, lstsq(A, b)[0]
            _PARTS[id(fn), key] = (fn, CallInfo(fn.__name__, None, "float", select=part,
                                                **fields))
    for fn, select in ((np.linalg.solve, solve), (np.linalg.inv, inv), (np.linalg.det, det),
                       (np.linalg.cholesky, cholesky)):
        add(fn, CallInfo(fn.__name__, None, "float", select=select))
    for fn, select in ((np.concatenate, concatenate), (np.stack, stack), (np.hstack, hstack),
                       (np.vstack, vstack)):
        add(fn, CallInfo(fn.__name__, None, "float", select=select, keywords=("axis",),
                         sequence=True))
    add(np.column_stack, CallInfo("column_stack", None, "float", select=column_stack,
                                  sequence=True))
    add(c_columns_function, CallInfo("c_", None, "float", select=c_columns, sequence=True,
                                     numba_refusal="srcad differentiates `np.c_` on the "
                                     "python backend"))
    for ndim in (1, 2, 3):
        fn = getattr(np, f"atleast_{ndim}d")
        add(fn, CallInfo(fn.__name__, None, "float", select=at_least(ndim)))
    # a tuple: only its parts `.sign` and `.logabsdet` are values (SLOGDET_PARTS)
    add(np.linalg.slogdet, CallInfo("slogdet", None, "other"))
    for fn, rule_ in ((np.add, _r.ADD), (np.subtract, _r.SUB), (np.multiply, _r.MUL),
                      (np.divide, _r.DIV), (np.true_divide, _r.DIV), (np.negative, _r.NEG)):
        add(fn, CallInfo(fn.__name__, None, "float", select=operator(rule_)))
    for name in ("logaddexp", "clip"):
        add(getattr(np, name), CallInfo(name, None, "float", select=elementwise(None, name)))
    # np.array(x) of an array is a copy (an allocation, like np.copy), np.asarray(x) the array
    add(np.array, CallInfo("array", None, "array", constructor=True,
                           select=elementwise(None, "copy")))
    add(np.asarray, CallInfo("asarray", None, "float", select=elementwise(None, "copy")))
    add(np.reshape, CallInfo("reshape", None, "float", select=reshape, shape_arguments=True))
    add(np.ravel, CallInfo("ravel", None, "float", select=ravel))
    for fn, select in ((np.expand_dims, expand_dims), (np.squeeze, squeeze)):
        add(fn, CallInfo(fn.__name__, None, "float", select=select, keywords=("axis",)))
    # what srcad's generated array code calls, differentiated again by hessian and hvp:
    # broadcasts and their sums have rules, a shape has no derivative, and the rest is
    # refused by name instead of inlining NumPy's own Python
    add(unbroadcast_function, CallInfo("unbroadcast", None, "float", select=unbroadcast))
    add(np.broadcast_to, CallInfo("broadcast_to", None, "float", select=broadcast_to))
    add(np.broadcast_shapes, CallInfo("broadcast_shapes", None, "shape", arrays=ANY))
    for fn in (diagonal_adjoint, cholesky_tangent, cholesky_adjoint):
        add(fn, CallInfo(fn.__name__, None, "float", select=_not_yet(fn.__name__)))
    for name_ in MOVEMENT_RUNTIME_NAMES:  # the shape family's adjoints and result shapes
        fn = getattr(movement_runtime, name_)
        add(fn, CallInfo(name_, None, "shape", arrays=ANY) if name_.endswith("_shape")
            else CallInfo(name_, None, "float", select=_not_yet(name_)))
    add(cross_of, CallInfo("cross", None, "float", select=linalg.cross, operand_count=2,
                           keywords=("axisa", "axisb", "axisc")))  # np.cross's derivative
    add(cross_length, CallInfo("cross_length", None, "int", arrays=ANY))
    add(convolved_shape, CallInfo("convolved_shape", None, "shape", arrays=ANY))
    add(full_seed, CallInfo("full_seed", None, "float", select=_not_yet("full_seed")))
    for fn, select in generated_code.ENTRIES:  # second order through them
        add(fn, CallInfo(fn.__name__, None, "float", select=select))
    add(einsum_adjoint, CallInfo("einsum_adjoint", None, "float",
                                select=generated_code.einsum_adjoint_rule,
                                leading=("subscripts", "k"), operand_count=-1))
    add(reshaped, CallInfo("reshaped", None, "shape", arrays=ANY))  # np.reshape's shape
    for fn, select, keywords, operand_keywords in movement.ENTRIES + selection.ENTRIES:
        add(fn, CallInfo(fn.__name__, None, "float", select=select, keywords=keywords,
                         operand_keywords=operand_keywords,
                         numba_refusal=movement.numba_refusal(fn)))
    add(np.interp, CallInfo("interp", None, "float", select=interpolation.interp,
                            keywords=("left", "right"), operand_count=3,
                            numba_refusal=interpolation.numba_refusal,
                            operand_names=("x", "xp", "fp"),
                            refused_operands=(("xp", interpolation.XP_REFUSAL),)))
    fn, select, keywords, operand_keywords = movement.LINSPACE  # a constructor with a rule
    add(fn, CallInfo("linspace", None, "array", constructor=True, arrays=ANY, select=select,
                     keywords=keywords, operand_keywords=operand_keywords,
                     numba_refusal=movement.numba_refusal(fn)))
    add(builtins.abs, CallInfo("abs", RULES_BY_NAME["abs"], "same", arrays=ELEMENTWISE))
    add(builtins.min, CallInfo("min", RULES_BY_NAME["min"], "same"))
    add(builtins.max, CallInfo("max", RULES_BY_NAME["max"], "same"))
    add(builtins.pow, CallInfo("pow", RULES_BY_NAME["pow"], "same", arrays=ELEMENTWISE))
    add(builtins.float, CallInfo("float", RULES_BY_NAME["float"], "float"))
    # np.float64(x) of a number: NumPy's float (the partials of NumPy's functions of numbers
    # divide through it: srcad/rules/numpy_division.py; second order reads them)
    add(np.float64, CallInfo("float64", RULES_BY_NAME["float"], "float"))
    # Known, no derivative.
    add(builtins.int, CallInfo("int", None, "int"))
    add(builtins.round, CallInfo("round", None, "int", arrays=ELEMENTWISE))
    add(builtins.len, CallInfo("len", None, "int", arrays=ANY))
    for fn in (view_element, view_size, view_start):  # normalize/view_indices.py's checks
        add(fn, CallInfo(fn.__name__, None, "int"))
    # a list's buffer made longer (normalize/unbounded_lists.py): the transformations grow
    # its tangents and adjoints alongside (forward/styles.py, reverse/arrays.py), no rule
    add(grown, CallInfo("grown", None, "first", arrays=ANY))
    add(builtins.range, CallInfo("range", None, "range"))
    add(builtins.reversed, CallInfo("reversed", None, "range"))
    add(builtins.bool, CallInfo("bool", None, "bool"))
    add(math.floor, CallInfo("floor", None, "int"))
    add(math.ceil, CallInfo("ceil", None, "int"))
    add(math.trunc, CallInfo("trunc", None, "int"))
    add(math.isnan, CallInfo("isnan", None, "bool"))
    add(math.isinf, CallInfo("isinf", None, "bool"))
    add(math.isfinite, CallInfo("isfinite", None, "bool"))
    add(np.floor, CallInfo("floor", None, "float", arrays=ELEMENTWISE))
    add(np.ceil, CallInfo("ceil", None, "float", arrays=ELEMENTWISE))
    add(np.sign, CallInfo("sign", None, "float", arrays=ELEMENTWISE))
    add(math.copysign, CallInfo("copysign", RULES_BY_NAME["copysign"], "float"))
    add(np.copysign, CallInfo("copysign", RULES_BY_NAME["copysign"], "float",
                              arrays=ELEMENTWISE))
    # constructors: their arguments are sizes and fill values (a fill value that carries a
    # derivative is refused where the call is typed)
    for ctor in (np.zeros, np.empty, np.ones, np.zeros_like, np.empty_like, np.ones_like,
                 np.eye, np.identity, np.arange):
        add(ctor, CallInfo(ctor.__name__, None, "array", constructor=True, arrays=ANY))
    # constructors with a rule: their fill value is an operand (srcad/rules/shapes.py)
    add(np.full, CallInfo("full", None, "array", constructor=True, arrays=ANY, select=full,
                          keywords=("dtype", "order"), operand_count=2))
    add(np.full_like, CallInfo("full_like", None, "array", constructor=True, arrays=ANY,
                               select=full_like, operand_count=2,
                               keywords=("dtype", "order", "subok", "shape")))
    add(np.copy, CallInfo("copy", None, "array", constructor=True, arrays=ANY,
                          select=elementwise(None, "copy")))
    # np.divmod: a pair, read through srcad's divmod_parts (desugar.py) part by part
    calls, parts = divmod_entries(CallInfo)
    for fn, info in calls:
        add(fn, info)
    _PARTS.update(parts)
    # NumPy's elementwise and reduction families (srcad/rules/numpy_entries.py), last: they
    # replace the entries above of np.floor, np.sign, np.copysign, np.cumsum, np.linalg.norm
    for fn, info in numpy_entries(CallInfo, ELEMENTWISE, ANY):
        add(fn, info)
    for fn, select in operator_module_selects():  # operator.mul(x, y) is x * y
        add(fn, CallInfo(fn.__name__, None, "float", select=select))
    return table


def _not_yet(name):
    def select(ranks, keywords):
        raise SrcadError(f"`{name}` has no derivative rule yet (srcad's generated array code "
                         "calls it: hessian and hvp, which differentiate that code again, "
                         "do not go through it yet)", construct="call",
                         hint="use gradient or jacobian of this program")
    return select


_TABLE = _build()
# Calls with a rule only of a list written out (math.fsum([a, b * c]): a and b * c are the
# operands); of anything else (math.fsum(values)) they have none: a call on constants runs as
# it is, one on values that carry derivatives is refused (srcad/analysis/primitives.py)
_LISTED = {id(fn): (fn, CallInfo(fn.__name__, None, "float", select=select, sequence=True,
                                 numba_refusal=math_functions.numba_refusal(fn)))
           for fn, select in math_functions.SEQUENCES}


# the same calls of arrays (math.fsum(v) of a vector v): srcad/rules/math_functions.py
_OF_ARRAYS = {id(fn): (fn, CallInfo(fn.__name__, None, "float", select=select,
                                    numba_refusal=math_functions.array_numba_refusal(fn)))
              for fn, select in math_functions.ARRAY_FORMS}


def lookup_of_arrays(obj) -> CallInfo | None:
    """The rule of a call of `obj` on arrays, for a function whose rule is otherwise of a list
    written out (`lookup_listed`), or None.

    >>> lookup_of_arrays(math.fsum).name
    'fsum'
    """
    entry = _OF_ARRAYS.get(id(obj))
    return entry[1] if entry is not None and entry[0] is obj else None


def lookup_listed(obj) -> CallInfo | None:
    """The rule of a call of `obj` on a list written out, or None.

    >>> lookup_listed(math.fsum).name
    'fsum'
    """
    entry = _LISTED.get(id(obj))
    return entry[1] if entry is not None and entry[0] is obj else None


# Array methods, spelled as the NumPy function of the receiver: x.sum(axis=0) is
# np.sum(x, axis=0), x.dot(y) is np.dot(x, y).
_METHODS = {"sum": np.sum, "mean": np.mean, "dot": np.dot, "transpose": np.transpose,
            "copy": np.copy, "max": np.max, "min": np.min, "cumsum": np.cumsum,
            "clip": np.clip, "trace": np.trace, "reshape": np.reshape, "ravel": np.ravel,
            "flatten": np.ravel, "squeeze": np.squeeze, **movement.METHODS}
_METHODS.update(NUMPY_METHODS)  # x.prod(), x.var(), x.round(), x.argmax() ...
# Matrix product operator `x @ y`.
MATMUL_OPERATOR = CallInfo("matmul", None, "float", select=matmul("matmul"))
TRANSPOSE_ATTRIBUTE = CallInfo("transpose", None, "float", select=transpose)
# np.array([a, b * c]) of a list: the listed values stacked (np.array(x) of an array: a copy)
ARRAY_OF_LIST = CallInfo("array", None, "float", select=stack, sequence=True)
# The parts of `np.linalg.slogdet(A)` (desugar unpacks `s, ld = np.linalg.slogdet(A)`)
SLOGDET_PARTS = {"logabsdet": CallInfo("logabsdet", None, "float", select=logabsdet),
                 "sign": CallInfo("sign", None, "float", select=sign_of_det)}


def lookup_part(obj, key) -> CallInfo | None:
    """The rule of part `key` (an attribute name or an index) of the tuple a call of `obj`
    returns, or None.

    >>> lookup_part(np.linalg.eigh, "eigenvalues").name
    'eigh'
    """
    entry = _PARTS.get((id(obj), key))
    return entry[1] if entry is not None and entry[0] is obj else None


def method_function(attr: str):
    """The NumPy function an array method stands for (`x.var` is np.var), or None.

    >>> method_function("var") is np.var
    True
    """
    return _METHODS.get(attr)


def lookup_method(attr: str) -> CallInfo | None:
    """The call an array method stands for (`x.sum()`), or None.

    >>> lookup_method("mean").name
    'mean'
    """
    fn = _METHODS.get(attr)
    return NUMPY_METHOD_CALLS.get(attr) if fn is None else lookup_call(fn)


def lookup_call(obj) -> CallInfo | None:
    """The rule or facts for a called object, or None when srcad does not know it.

    >>> lookup_call(math.exp).rule.partials
    ('g * ans',)
    """
    try:
        entry = USER_RULES.get(id(obj)) or _TABLE.get(id(obj))
    except TypeError:
        return None
    if entry is None and library_families.wanted(obj, register):
        entry = _TABLE.get(id(obj))
    if entry is None and isinstance(obj, types.MethodType):  # scipy.stats.norm.logpdf
        entry = library_families.BOUND.get((id(obj.__self__), obj.__func__.__name__))
        return None if entry is None or entry[0] is not obj.__self__ else entry[1]
    if entry is None or entry[0] is not obj:
        return None
    return entry[1]


def register(obj, info: CallInfo) -> None:
    """Add a call srcad's own runtime defines (the nested gradient of srcad/operators/nested.py);
    done at import, never during a transformation."""
    _TABLE[id(obj)] = (obj, info)


# Rules users give (srcad.custom_jvp / custom_vjp, srcad/api/custom_rules.py), by id of the
# called object: looked up before srcad's own, so a user's rule for a library function
# (`custom_jvp(scipy.special.i0)`) holds even when srcad loads that library's family later
USER_RULES: dict = {}


def register_user(obj, info: CallInfo) -> None:
    """Give calls of `obj` the user's rule `info` (in place of srcad's own, if any)."""
    USER_RULES[id(obj)] = (obj, info)
