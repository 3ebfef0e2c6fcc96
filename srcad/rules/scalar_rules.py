"""The rules of the scalar functions of `math`, their NumPy spellings and the builtins
(srcad/rules/table.py keys them by the object called): one line each, the partial applied to
the seed g (forward: g is the tangent; reverse: the adjoint), `ans` the result.
"""

from __future__ import annotations

from srcad.rules import rule_type as _r

RULES_BY_NAME = {
    # math, numpy scalar functions
    "exp": _r.rule("exp", "x", "g * ans"),
    "log": _r.rule("log", "x", "g / x"),
    "log1p": _r.rule("log1p", "x", "g / (1.0 + x)"),
    "expm1": _r.rule("expm1", "x", "g * (ans + 1.0)"),
    "sqrt": _r.rule("sqrt", "x", "g / (2.0 * ans)"),
    "sin": _r.rule("sin", "x", "g * math.cos(x)"),
    "cos": _r.rule("cos", "x", "-g * math.sin(x)"),
    "tan": _r.rule("tan", "x", "g * (1.0 + ans * ans)"),
    "asin": _r.rule("asin", "x", "g / math.sqrt(1.0 - x * x)"),
    "acos": _r.rule("acos", "x", "-g / math.sqrt(1.0 - x * x)"),
    "atan": _r.rule("atan", "x", "g / (1.0 + x * x)"),
    "atan2": _r.rule("atan2", "y x", "g * x / (x * x + y * y)", "-g * y / (x * x + y * y)"),
    "sinh": _r.rule("sinh", "x", "g * math.cosh(x)"),
    "cosh": _r.rule("cosh", "x", "g * math.sinh(x)"),
    "tanh": _r.rule("tanh", "x", "g * (1.0 - ans * ans)"),
    "pow": _r.rule("pow", "x y", "g * y * x ** (y - 1)", "g * ans * math.log(x + (x == 0.0))"),
    # hypot at (0, 0) (no derivative): 0.5 each, as jnp.hypot (its max of |x|, |y| ties)
    "hypot": _r.rule("hypot", "x y", "(0.5 * g if ans == 0.0 else g * x / ans)",
                     "(0.5 * g if ans == 0.0 else g * y / ans)"),
    "abs": _r.rule("abs", "x", "(g if x >= 0.0 else -g)"),
    "erf": _r.rule("erf", "x", "g * 1.1283791670955126 * math.exp(-x * x)"),
    "erfc": _r.rule("erfc", "x", "-g * 1.1283791670955126 * math.exp(-x * x)"),
    # Python's min(x, y) is x unless y < x (max: unless y > x): a tie or a NaN keeps x
    "min": _r.rule("min", "x y", "(0.0 if y < x else g)", "(g if y < x else 0.0)"),
    "max": _r.rule("max", "x y", "(0.0 if y > x else g)", "(g if y > x else 0.0)"),
    # np.maximum(x, y) / np.minimum of floats: a tie shares g equally, a NaN operand passes
    # nothing (as JAX)
    "maximum": _r.rule("maximum", "x y", "(g if x > y else 0.5 * g if x == y else 0.0)",
                       "(g if y > x else 0.5 * g if x == y else 0.0)"),
    "minimum": _r.rule("minimum", "x y", "(g if x < y else 0.5 * g if x == y else 0.0)",
                       "(g if y < x else 0.5 * g if x == y else 0.0)"),
    "float": _r.rule("float", "x", "g"),
    "copysign": _r.rule("copysign", "x y", "g * math.copysign(1.0, x) * math.copysign(1.0, y)",
                        None),
}

MATH_NAMES = ["exp", "log", "log1p", "expm1", "sqrt", "sin", "cos", "tan", "asin", "acos",
               "atan", "atan2", "sinh", "cosh", "tanh", "pow", "hypot", "erf", "erfc"]
NUMPY_ALIASES = {"exp": "exp", "log": "log", "log1p": "log1p", "expm1": "expm1", "sqrt": "sqrt",
                  "sin": "sin", "cos": "cos", "tan": "tan", "arcsin": "asin", "arccos": "acos",
                  "arctan": "atan", "arctan2": "atan2", "sinh": "sinh", "cosh": "cosh",
                  "tanh": "tanh", "power": "pow", "hypot": "hypot", "abs": "abs",
                  "absolute": "abs", "fabs": "abs", "minimum": "minimum", "maximum": "maximum"}
