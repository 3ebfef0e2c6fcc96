"""Elementwise NumPy functions on arrays: one formula for both modes, as for scalars, with
NumPy in place of `math` (np.cos of an array where math.cos of a float). Operands broadcast
against each other; the transformation undoes broadcasting in adjoints (`unbroadcast`).

| primitive         | partial applied to seed g                     |
|-------------------|-----------------------------------------------|
| np.exp(x)         | g * ans                                       |
| np.maximum(x, y)  | np.where(x > y, g, np.where(x == y, 0.5 * g, 0.0)), ... |
| np.where(c, x, y) | -, np.where(c, g, 0.0), np.where(c, 0.0, g)   |
"""

from __future__ import annotations

import operator as operator_module

import numpy as np

from srcad.errors import SrcadError
from srcad.rules import rule_type as rules
from srcad.rules.rule_type import rule
from srcad.runtime.named_results import Divmod, divmod_parts

ARRAY_RULES = {
    "exp": rule("exp", "x", "g * ans"),
    "log": rule("log", "x", "g / x"),
    "log1p": rule("log1p", "x", "g / (1.0 + x)"),
    "expm1": rule("expm1", "x", "g * (ans + 1.0)"),
    "sqrt": rule("sqrt", "x", "g / (2.0 * ans)"),
    "square": rule("square", "x", "2.0 * x * g"),
    "sin": rule("sin", "x", "g * np.cos(x)"),
    "cos": rule("cos", "x", "-g * np.sin(x)"),
    "tan": rule("tan", "x", "g * (1.0 + ans * ans)"),
    "asin": rule("arcsin", "x", "g / np.sqrt(1.0 - x * x)"),
    "acos": rule("arccos", "x", "-g / np.sqrt(1.0 - x * x)"),
    "atan": rule("arctan", "x", "g / (1.0 + x * x)"),
    "atan2": rule("arctan2", "y x", "g * x / (x * x + y * y)", "-g * y / (x * x + y * y)"),
    "sinh": rule("sinh", "x", "g * np.cosh(x)"),
    "cosh": rule("cosh", "x", "g * np.sinh(x)"),
    "tanh": rule("tanh", "x", "g * (1.0 - ans * ans)"),
    "pow": rule("power", "x y", "g * y * x ** (y - 1)", "g * ans * np.log(x + (x == 0.0))"),
    # at (0, 0): 0.5 each, as jnp.hypot
    "hypot": rule("hypot", "x y",
                  "g * np.where(ans == 0.0, 0.5, x / np.where(ans == 0.0, 1.0, ans))",
                  "g * np.where(ans == 0.0, 0.5, y / np.where(ans == 0.0, 1.0, ans))"),
    # abs'(0) = 1 (as JAX); np.minimum and np.maximum share g equally on a tie and pass
    # nothing at a NaN operand (as JAX)
    "abs": rule("abs", "x", "np.where(x >= 0.0, g, -g)"),
    "minimum": rule("minimum", "x y", "np.where(x < y, g, np.where(x == y, 0.5 * g, 0.0))",
                    "np.where(y < x, g, np.where(x == y, 0.5 * g, 0.0))"),
    "maximum": rule("maximum", "x y", "np.where(x > y, g, np.where(x == y, 0.5 * g, 0.0))",
                    "np.where(y > x, g, np.where(x == y, 0.5 * g, 0.0))"),
    "where": rule("where", "c x y", None, "np.where(c, g, 0.0)", "np.where(c, 0.0, g)"),
    "copy": rule("copy", "x", "g"),
    "logaddexp": rule("logaddexp", "x y", "g * np.exp(x - ans)", "g * np.exp(y - ans)"),
    # np.clip(x, lo, hi) is np.minimum(np.maximum(x, lo), hi), differentiated as such (as
    # JAX): a bound gets g where x is cut off, x and a bound it equals share it
    "clip": rule("clip", "x lo hi",
                 "np.where(x > lo, np.where(x < hi, g, np.where(x == hi, 0.5 * g, 0.0)), "
                 "np.where(x == lo, np.where(lo < hi, 0.5 * g, "
                 "np.where(lo == hi, 0.25 * g, 0.0)), 0.0))",
                 "np.where(lo > x, np.where(lo < hi, g, np.where(lo == hi, 0.5 * g, 0.0)), "
                 "np.where(x == lo, np.where(lo < hi, 0.5 * g, "
                 "np.where(lo == hi, 0.25 * g, 0.0)), 0.0))",
                 "np.where(hi < np.maximum(x, lo), g, "
                 "np.where(hi == np.maximum(x, lo), 0.5 * g, 0.0))"),
}

# The rest of NumPy's float ufuncs. At a point where a function is not differentiable the
# derivative is JAX's: cbrt'(0) = inf; sinc'(0) = 0; copysign(x, y) passes g with the sign of
# y times the sign of x, +1 at x = 0 (abs'(0) = 1); fmax and fmin pass g to y on a tie and where
# x is NaN (NumPy's fmax picks y there); mod and remainder: d/dy = -floor(x / y), fmod:
# -trunc(x / y); heaviside(x, h0) passes g to h0 where x == 0 only. floor, ceil, trunc,
# rint, round, sign have no derivative (0 everywhere, as in JAX): table entries without rule.
ARRAY_RULES.update({
    "exp2": rule("exp2", "x", "g * ans * 0.6931471805599453"),
    "log2": rule("log2", "x", "g / (x * 0.6931471805599453)"),
    "log10": rule("log10", "x", "g / (x * 2.302585092994046)"),
    "cbrt": rule("cbrt", "x", "g / (3.0 * ans * ans)"),
    "reciprocal": rule("reciprocal", "x", "-g * ans * ans"),
    "positive": rule("positive", "x", "g"),
    "negative": rule("negative", "x", "-g"),
    "arcsinh": rule("arcsinh", "x", "g / np.sqrt(x * x + 1.0)"),
    "arccosh": rule("arccosh", "x", "g / (np.sqrt(x - 1.0) * np.sqrt(x + 1.0))"),
    "arctanh": rule("arctanh", "x", "g / (1.0 - x * x)"),
    "sinc": rule("sinc", "x", "g * ((np.cos(np.pi * x) - ans) / (x + (x == 0.0)))"),
    "deg2rad": rule("deg2rad", "x", "g * 0.017453292519943295"),
    "rad2deg": rule("rad2deg", "x", "g * 57.29577951308232"),
    "logaddexp2": rule("logaddexp2", "x y", "g * np.exp2(x - ans)", "g * np.exp2(y - ans)"),
    "float_power": rule("float_power", "x y", "g * y * np.float_power(x, y - 1.0)",
                        "g * ans * np.log(x + (x == 0.0))"),
    "fmax": rule("fmax", "x y", "np.where((x > y) | np.isnan(y), g, 0.0)",
                 "np.where((x > y) | np.isnan(y), 0.0, g)"),
    "fmin": rule("fmin", "x y", "np.where((x < y) | np.isnan(y), g, 0.0)",
                 "np.where((x < y) | np.isnan(y), 0.0, g)"),
    "remainder": rule("remainder", "x y", "g", "-g * np.floor(x / y)"),
    "fmod": rule("fmod", "x y", "g", "-g * np.trunc(x / y)"),
    "copysign": rule("copysign", "x y",
                     "g * np.where(x >= 0.0, 1.0, -1.0) * np.copysign(1.0, y)", None),
    "heaviside": rule("heaviside", "x h", None, "np.where(x == 0.0, g, 0.0)"),
})


# np.divmod(x, y)'s parts (`q, r = np.divmod(x, y)`): the quotient floor(x / y) has no
# derivative (a step), the remainder is np.remainder's
DIVMOD_PARTS = {"quotient": rule("floor_divide", "x y", None, None),
                "remainder": ARRAY_RULES["remainder"]}


def operator(rule_):
    """A `select` for the ufunc spelling of an operator (np.add(x, y) is x + y): the
    operator's rule, for floats and arrays alike."""
    def select(ranks, keywords):
        return rule_
    return select


def operator_by_rank(scalar_rule, array_rule):
    """A `select` for Python's operator module (operator.mod(x, y) is x % y): the operator's
    rule for floats, its array form (np.floor for math.floor) when an operand is an array."""
    def select(ranks, keywords):
        return array_rule if any(ranks) else scalar_rule
    return select


def operator_module_selects() -> list:
    """(function, select) for Python's operator module called as functions: operator.mul(x, y)
    is x * y, with the operator's rule of floats or of arrays."""
    r = rules
    return [(fn, operator_by_rank(scalar, array)) for fn, scalar, array in (
        (operator_module.add, r.ADD, r.ADD), (operator_module.sub, r.SUB, r.SUB),
        (operator_module.mul, r.MUL, r.MUL), (operator_module.truediv, r.DIV, r.DIV),
        (operator_module.mod, r.MOD, r.ARRAY_MOD), (operator_module.pow, r.POW, r.ARRAY_POW),
        (operator_module.neg, r.NEG, r.NEG), (operator_module.pos, r.POS, r.POS))]


def elementwise(scalar_rule, name):
    """A `select` for a NumPy function: the scalar rule (math.* formulas, generated code as
    for floats) when every operand is a float, else the array rule."""
    array_rule = ARRAY_RULES[name]

    def select(ranks, keywords):
        if name == "where" and len(ranks) != 3:
            raise SrcadError(  # np.where(c) alone is np.nonzero(c): a tuple of int arrays
                "np.where with one argument gives the indices of the true entries of its "
                "condition (a tuple of int arrays, as np.nonzero)", construct="where",
                hint="np.flatnonzero(c) (a 1-D condition) or np.argwhere(c) give an int array "
                "of them; or index with the condition itself: x[c]")
        if scalar_rule is not None and not any(ranks):
            return scalar_rule
        return array_rule
    return select


def divmod_entries(call_info) -> tuple[list, dict]:
    """np.divmod's table entries: ((function, CallInfo) of the pair's calls, the parts by
    (id(divmod_parts), name or index)). The pair is read through srcad's divmod_parts
    (desugar.py) part by part; each part is its operator's rule."""
    calls = [(fn, call_info("divmod", None, "other")) for fn in (np.divmod, divmod_parts)]
    parts = {}
    for key, part_rule in DIVMOD_PARTS.items():
        for spelled in (key, Divmod._fields.index(key)):
            parts[id(divmod_parts), spelled] = (divmod_parts, call_info(
                "divmod", None, "float", select=operator(part_rule)))
    return calls, parts
