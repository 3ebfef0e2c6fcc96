"""Instrumentation of a fuzz program for plain runs: every float comparison and every kink
records its margin to the non-differentiable point and the branch taken (fuzz/run.py uses them
to choose inputs away from kinks). Never used for what srcad differentiates.
"""

from __future__ import annotations

import ast

INSTRUMENT_PRELUDE = '''
_MARGINS = []
_DIFFS = []
_TRACE = []


def _is_int(v):
    return isinstance(v, (int, bool)) and not isinstance(v, float)


def _cmp(a, b, op):
    r = {"<": a < b, ">": a > b, "<=": a <= b, ">=": a >= b, "==": a == b, "!=": a != b}[op]
    if hasattr(r, "shape"):  # arrays compared elementwise (np.where's condition): each pair
        for ai, bi in zip(*(e.ravel() for e in np.broadcast_arrays(a, b))):
            _cmp(float(ai), float(bi), op)
        return r
    if not (_is_int(a) and _is_int(b)):
        _MARGINS.append(abs(a - b) / max(1.0, abs(a), abs(b)))
        _DIFFS.append(a - b)
        _TRACE.append(r)
    return r


def _k_abs(a):
    if hasattr(a, "shape"):  # np.abs of an array: each element's kink
        for e in np.ravel(a):
            _k_abs(float(e))
        return abs(a)
    _MARGINS.append(abs(a) / max(1.0, abs(a)))
    _DIFFS.append(a)
    _TRACE.append(a >= 0)
    return abs(a)


def _k_min(a, b):
    _cmp(a, b, "<")
    return min(a, b)


def _k_max(a, b):
    _cmp(a, b, ">")
    return max(a, b)
'''

_OPS = {ast.Lt: "<", ast.Gt: ">", ast.LtE: "<=", ast.GtE: ">=", ast.Eq: "==", ast.NotEq: "!="}


class _Instrument(ast.NodeTransformer):
    def visit_Compare(self, node):
        self.generic_visit(node)
        if len(node.ops) != 1 or type(node.ops[0]) not in _OPS:
            return node
        return ast.Call(ast.Name("_cmp", ast.Load()),
                        [node.left, node.comparators[0], ast.Constant(_OPS[type(node.ops[0])])],
                        [])

    def visit_Call(self, node):
        self.generic_visit(node)
        f = node.func
        name = None
        if isinstance(f, ast.Name) and f.id in ("abs", "min", "max"):
            name = f.id
        elif isinstance(f, ast.Attribute) and isinstance(f.value, ast.Name) and \
                f.value.id in ("math", "np") and f.attr in ("fabs", "abs", "absolute"):
            name = "abs"
        if name is None or len(node.args) != (1 if name == "abs" else 2):
            return node
        node.func = ast.Name(f"_k_{name}", ast.Load())
        return node


def instrument(source: str) -> str:
    """The program with comparisons and kinks recording their margins (in `_MARGINS`) and the
    branch taken (in `_TRACE`); for plain runs only, never for srcad."""
    tree = ast.parse(source)
    tree = ast.fix_missing_locations(_Instrument().visit(tree))
    return INSTRUMENT_PRELUDE + "\n" + ast.unparse(tree) + "\n"
