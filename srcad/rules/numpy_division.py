"""NumPy's division (and power) in the derivatives of NumPy's and SciPy's functions of numbers.

NumPy's and SciPy's functions follow NumPy's arithmetic: a float64 divided by zero is inf or
NaN (with NumPy's RuntimeWarning), where Python's `/` of floats raises ZeroDivisionError, and
so does numba's (its error model is Python's). The partials of such a call divide the way the
call computes: where the call's operands are numbers (Python floats or an array's elements,
either backend), each division `a / b` of its rule is written `np.float64(a) / b`, NumPy's
division on the python backend, which srcad/transform/numba_compat.py spells
`np.divide(a, b)` for numba (IEEE's quotient, as NumPy's); each power `a ** b` likewise
`np.float64(a) ** b` (Python's `0.0 ** -0.5` raises, NumPy's and numba's give inf). So
`np.arctan2`'s derivative at (0, 0) is NaN, `np.sqrt`'s and `np.power(x, 0.5)`'s at 0 inf on
both backends, as JAX's and as NumPy computes them for arrays. Python's own functions keep
Python's arithmetic: the derivative of `math.sqrt` at 0 divides by zero and is refused as a
non-finite derivative, as the primal `1.0 / x` raises at 0.

>>> numpy_divisions("g * x / (x * x + y * y)")
'np.float64(g * x) / (x * x + y * y)'
>>> numpy_divisions("g * y * x ** (y - 1)")
'g * y * np.float64(x) ** (y - 1)'
>>> follows_numpy(np.arctan2), follows_numpy(abs)
(True, False)
"""

from __future__ import annotations

import ast
import functools

import numpy as np

_NUMPY_PACKAGES = ("numpy", "scipy")


def follows_numpy(function) -> bool:
    """Does `function` (a called object) compute with NumPy's arithmetic: a ufunc (NumPy's,
    scipy.special's) or a function of NumPy or SciPy?"""
    if isinstance(function, np.ufunc):
        return True
    module = getattr(function, "__module__", None)
    return isinstance(module, str) and module.split(".")[0] in _NUMPY_PACKAGES


class _Divisions(ast.NodeTransformer):
    def visit_BinOp(self, node):
        self.generic_visit(node)
        if isinstance(node.op, (ast.Div, ast.Pow)):
            numpy_float = ast.Attribute(value=ast.Name(id="np", ctx=ast.Load()), attr="float64",
                                        ctx=ast.Load())
            node.left = ast.Call(func=numpy_float, args=[node.left], keywords=[])
        return node


@functools.lru_cache(maxsize=None)
def numpy_divisions(template: str) -> str:
    """`template` (a rule's partial) with each division and power NumPy's:
    `np.float64(a) / b`, `np.float64(a) ** b`."""
    tree = ast.parse(template, mode="eval")
    if not any(isinstance(n, ast.BinOp) and isinstance(n.op, (ast.Div, ast.Pow))
               for n in ast.walk(tree)):
        return template
    return ast.unparse(_Divisions().visit(tree))
