"""The rule-table entries of NumPy's elementwise and reduction families beyond the first
ones (srcad/rules/table.py adds them last, so an entry here replaces one there): the rest of
NumPy's float ufuncs, the ufuncs without derivative, the calls whose values are ints or bools
(constants, whatever their arguments), and the reductions and scans with their keywords in
NumPy's order (a keyword may be passed by position or by name).
"""

from __future__ import annotations

import gast
import numpy as np

from srcad.rules import norms, scans, statistics
from srcad.rules.call_info import CallInfo
from srcad.rules.elementwise import elementwise
from srcad.rules.reductions import extremum, reduction
from srcad.rules.rule_type import rule

# of floats, the rules that select (np.where of arrays) select with Python's `if`, as the
# scalar rules do: np.where of floats would make 0-d arrays
_SCALAR_RULES = {
    "fmax": rule("fmax", "x y", "(g if x > y or math.isnan(y) else 0.0)",
                 "(0.0 if x > y or math.isnan(y) else g)"),
    "fmin": rule("fmin", "x y", "(g if x < y or math.isnan(y) else 0.0)",
                 "(0.0 if x < y or math.isnan(y) else g)"),
    "copysign": rule("copysign", "x y", "(g if x >= 0.0 else -g) * math.copysign(1.0, y)",
                     None),
    "heaviside": rule("heaviside", "x h", None, "(g if x == 0.0 else 0.0)"),
}

# np.<name>: the ARRAY_RULES entry of the same name, or of another spelling
_UFUNCS = {"exp2": "exp2", "log2": "log2", "log10": "log10", "cbrt": "cbrt",
           "reciprocal": "reciprocal", "positive": "positive", "arcsinh": "arcsinh",
           "arccosh": "arccosh", "arctanh": "arctanh", "sinc": "sinc", "deg2rad": "deg2rad",
           "radians": "deg2rad", "rad2deg": "rad2deg", "degrees": "rad2deg",
           "logaddexp2": "logaddexp2", "float_power": "float_power", "fmax": "fmax",
           "fmin": "fmin", "mod": "remainder", "remainder": "remainder", "fmod": "fmod",
           "copysign": "copysign", "heaviside": "heaviside"}
# results without derivative (0 everywhere they have one, as in JAX), floats like x
_STEPS = ("floor", "ceil", "trunc", "rint", "round", "around", "fix", "sign", "floor_divide")
# int or bool results, with the keywords NumPy gives them (by position after the first
# argument); `types.py` reads their ranks (srcad/analysis/integer_calls.py)
INTEGER_CALLS = {"argmax": ("axis", "out", "keepdims"), "argmin": ("axis", "out", "keepdims"),
                 "argsort": ("axis", "kind", "order", "stable"),
                 "searchsorted": ("v", "side", "sorter"), "digitize": ("bins", "right"),
                 "isclose": ("b", "rtol", "atol", "equal_nan"), "flatnonzero": (),
                 "argwhere": ()}
# reductions and scans: (function, select, keywords in NumPy's positional order)
_REDUCTIONS = [
    (np.prod, statistics.prod, ("axis", "dtype", "out", "keepdims")),
    (np.var, statistics.variance("var"), ("axis", "dtype", "out", "ddof", "keepdims")),
    (np.std, statistics.variance("std"), ("axis", "dtype", "out", "ddof", "keepdims")),
    (np.ptp, statistics.ptp, ("axis", "out", "keepdims")),
    (np.nansum, statistics.nan_reduction("nansum"), ("axis", "dtype", "out", "keepdims")),
    (np.nanmean, statistics.nan_reduction("nanmean"), ("axis", "dtype", "out", "keepdims")),
    (np.nanmax, statistics.nan_extremum("nanmax"), ("axis", "out", "keepdims")),
    (np.nanmin, statistics.nan_extremum("nanmin"), ("axis", "out", "keepdims")),
    (np.average, statistics.average, ("axis", "weights", "returned", "keepdims")),
    (np.median, statistics.quantile("median"), ("axis", "out", "overwrite_input", "keepdims")),
    (np.quantile, statistics.quantile("quantile"),
     ("q", "axis", "out", "overwrite_input", "method", "keepdims")),
    (np.percentile, statistics.quantile("percentile"),
     ("q", "axis", "out", "overwrite_input", "method", "keepdims")),
    (np.cumsum, scans.cumulative("cumsum"), ("axis", "dtype", "out")),
    (np.cumprod, scans.cumulative("cumprod"), ("axis", "dtype", "out")),
    (np.diff, scans.diff, ("n", "axis", "prepend", "append")),
    (np.gradient, scans.gradient, ("axis", "edge_order")),
    (np.linalg.norm, norms.norm, ("ord", "axis", "keepdims")),
]
# the first reductions (srcad/rules/reductions.py), with NumPy's positional order: np.sum(x,
# 0, None, None, True) keeps the dimensions
_FIRST_REDUCTIONS = [
    (np.sum, reduction("sum"), ("axis", "dtype", "out", "keepdims", "initial", "where")),
    (np.mean, reduction("mean"), ("axis", "dtype", "out", "keepdims", "where")),
    (np.max, extremum("max"), ("axis", "out", "keepdims", "initial", "where")),
    (np.amax, extremum("max"), ("axis", "out", "keepdims", "initial", "where")),
    (np.min, extremum("min"), ("axis", "out", "keepdims", "initial", "where")),
    (np.amin, extremum("min"), ("axis", "out", "keepdims", "initial", "where")),
]
if hasattr(np, "trapezoid"):
    _REDUCTIONS.append((np.trapezoid, scans.trapezoid, ("x", "dx", "axis")))
# keywords whose values are operands: np.average's weights
_OPERAND_KEYWORDS = {"average": ("weights",)}
# array methods: x.prod(axis=0) is np.prod(x, axis=0)
METHODS = {"prod": np.prod, "var": np.var, "std": np.std, "cumprod": np.cumprod}


def _round_method(ranks, keywords):
    """x.round(decimals=0): a step function, derivative 0 wherever it has one (JAX's
    answer at the steps too). np.round(x, ...) is a call without derivative; the method
    form is an array method, so it gets this zero rule."""
    statistics.refuse_unfollowed("round", keywords, out=None)
    return rule("round", "x", "0.0 * g")


# array methods whose NumPy function has no derivative rule: their CallInfo
METHOD_CALLS = {"round": CallInfo("round", None, "float", select=_round_method,
                                  keywords=("decimals", "out"))}


def _plain(select, name):
    """`select`, refusing by name the keywords it does not read (given by position)."""
    def plain(ranks, keywords):
        statistics.refuse_unfollowed(name, keywords, dtype=None, out=None, initial=None,
                                     where=None)
        return select(ranks, keywords)
    return plain


def entries(call_info, elementwise_kind, any_kind):
    """(function, CallInfo) of each entry; `call_info` is table.py's CallInfo."""
    out = []
    for np_name, rule_name in _UFUNCS.items():
        scalar = _SCALAR_RULES["copysign"] if np_name == "copysign" else None  # as before
        out.append((getattr(np, np_name), call_info(
            np_name, scalar, "float", arrays=elementwise_kind,
            select=elementwise(_SCALAR_RULES.get(rule_name), rule_name))))
    for np_name in _STEPS:
        if hasattr(np, np_name):
            out.append((getattr(np, np_name), call_info(np_name, None, "float",
                                                        arrays=elementwise_kind)))
    for np_name, keywords in INTEGER_CALLS.items():
        out.append((getattr(np, np_name), call_info(np_name, None, "integers", arrays=any_kind,
                                                    keywords=keywords)))
    for fn, select, keywords in _REDUCTIONS:
        out.append((fn, call_info(fn.__name__, None, "float", select=select,
                                  keywords=keywords,
                                  operand_keywords=_OPERAND_KEYWORDS.get(fn.__name__, ()))))
    for fn, select, keywords in _FIRST_REDUCTIONS:
        name = {"amax": "max", "amin": "min"}.get(fn.__name__, fn.__name__)
        out.append((fn, call_info(name, None, "float", select=_plain(select, name),
                                  keywords=keywords)))
    return out


# what the numba backend compiles of these families (srcad/analysis/array_bindings.py): the
# ufuncs numba implements, with their rules; np.linalg.norm in its first form (no keyword: the
# 2-norm); the scans (srcad/runtime/numba_scans.py: np.cumsum and np.cumprod along an axis)
NUMBA_UFUNCS = frozenset(_UFUNCS)  # np.heaviside: srcad/runtime/numba_arrays.py


# the reductions along axes the numba backend compiles (srcad/runtime/numba_statistics.py), with
# their keywords in NumPy's positional order
NUMBA_STATISTICS = {fn.__name__: keywords for fn, _, keywords in _REDUCTIONS
                    if fn.__name__ in ("prod", "var", "std", "ptp", "nansum", "nanmean",
                                       "nanmax", "nanmin")}


# the scans and weighted reductions the numba backend compiles (srcad/runtime/numba_scans.py)
NUMBA_SCANS = frozenset({"average", "cumsum", "cumprod", "diff", "gradient", "trapezoid"})


def numba_compiles(call) -> bool:
    """Does the numba backend compile the derivative of this array call (an ArrayCall)?"""
    if call.info.name == "norm":  # numba's np.linalg.norm takes a number ord=, not axis=
        return not isinstance(call.keywords.get("ord"), str) and all(
            v is None for k, v in call.keywords.items() if k != "ord")
    if call.info.name in NUMBA_STATISTICS:
        ddof = call.keywords.get("ddof", 0)
        return type(ddof) is int and ddof >= 0
    if call.info.name in ("median", "quantile", "percentile"):  # numba_quantiles.py
        return True
    if call.info.name in NUMBA_SCANS:  # srcad/runtime/numba_scans.py
        return True
    return call.info.name not in {fn.__name__ for fn, _, _ in _REDUCTIONS}


# keywords of NumPy calls that srcad does not follow, refused by name where they are written
# (srcad/analysis/fence.py): the fix of each
_UNFOLLOWED = {
    "out": "assign the result instead (`z = np.add(x, y)`): srcad's derivative code does not "
           "follow writes into an array passed as out=",
    "dtype": "convert after the call (`.astype(...)`)",
    "where": "select the elements first (np.where(c, x, 0.0))",
    "initial": "combine the start value after the call",
}


def library_keyword_refusal(node, obj, info):
    """(construct, message, hint) for a keyword of a call of a NumPy function of the rule
    table that srcad does not follow (`out=` of any, `dtype=` of a reduction, a keyword the
    call's rule does not read), or None. `obj`: the function called, `info` its CallInfo."""
    module = getattr(obj, "__module__", None) or ""
    if info is None or not (isinstance(obj, np.ufunc) or module.startswith("numpy")) or (
            info.select is None and info.rule is None and info.result != "integers"):
        return None  # not NumPy's; constructors (dtype=), calls without derivative
    name = f"{'np' if isinstance(obj, np.ufunc) else module.replace('numpy', 'np')}." \
        f"{obj.__name__}"
    for keyword in node.keywords:
        key, value = keyword.arg, keyword.value
        if key is None:
            return ("keyword arguments", f"`**` keywords of {name}", "name each keyword")
        given = not (isinstance(value, gast.Constant) and value.value is None)
        if key == "dtype" and info.constructor:
            continue  # np.full(n, 0, dtype=int): the type analysis follows it
        if key in _UNFOLLOWED and given and (key == "out" or key in info.keywords):
            return ("keyword arguments", f"`{key}=` of {name}: srcad does not follow it",
                    _UNFOLLOWED[key])
        if key not in info.keywords and key not in ("axis", "keepdims"):
            known = ", ".join(k for k in info.keywords if k not in _UNFOLLOWED)
            return ("keyword arguments", f"`{key}=` of {name}: srcad does not follow it",
                    f"srcad reads {known or 'no keyword'} of {name}")
    return None
