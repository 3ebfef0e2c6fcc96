"""One element of a fused chain's expression as source: what srcad/runtime/numba_fusion.py's
loop nests compute at each index (an operation with an array operand as NumPy's ufunc of
numbers, one of numbers alone as numba computes it in the unfused code).
"""

from __future__ import annotations

import ast


class Element(ast.NodeVisitor):
    """The source of one element of the expression at `i0, ..., i<rank-1>`: an operation
    with an array operand as NumPy's ufunc of numbers (`np.divide(x, 0.0)` is inf), one of
    numbers alone as numba computes it in today's code (`1.0 / 0.0` raises)."""

    def __init__(self, arrays, rank, read=None):
        self.arrays, self.rank = arrays, rank
        # how array leaf k's element is read: at the full index of its broadcast view
        self.read = read or "b{k}[" + ", ".join(f"i{a}" for a in range(rank)) + "]"

    def visit(self, node):
        element = super().visit(node)
        return None if element is None else element[0]

    def element(self, node):
        """(source, whether an array flows into it); None where it cannot be fused."""
        return super().visit(node)

    def visit_Name(self, node):
        k = int(node.id[1:])
        if k in self.arrays:
            return self.read.format(k=k), True
        return node.id, False

    def visit_Constant(self, node):
        return repr(node.value), False

    def visit_UnaryOp(self, node):
        operand = self.element(node.operand)
        if operand is None:
            return None
        return f"({_UNARY[type(node.op)]}{operand[0]})", operand[1]

    def visit_BinOp(self, node):
        left, right = self.element(node.left), self.element(node.right)
        if left is None or right is None:
            return None
        array = left[1] or right[1]
        if array and isinstance(node.op, (ast.Div, ast.Pow)):  # NumPy's: 1 / 0 is inf
            name = "divide" if isinstance(node.op, ast.Div) else "power"
            return f"np.{name}({left[0]}, {right[0]})", array
        return f"({left[0]} {_BINARY[type(node.op)]} {right[0]})", array

    def visit_Call(self, node):
        operand = self.element(node.args[0])
        if operand is None:
            return None
        function = _SIMD.get(node.func.attr, f"np.{node.func.attr}")
        return f"{function}({operand[0]})", operand[1]

    def generic_visit(self, node):
        raise ValueError(f"not an elementwise expression: {ast.dump(node)}")


# exp, log and tanh in plain arithmetic (srcad/runtime/numba_runtime.py, within 1, 1 and 3
# ulp), as array_exp, array_log and array_tanh compute them outside a chain: the C library's,
# once per element, take several times as long
_SIMD = {"exp": "simd_exp", "log": "simd_log", "tanh": "simd_tanh"}
_UNARY = {ast.USub: "-", ast.UAdd: "+"}
_BINARY = {ast.Add: "+", ast.Sub: "-", ast.Mult: "*", ast.Div: "/", ast.Pow: "**"}
