"""gast trees as the standard library's `ast` trees (for printing), as `gast.gast_to_ast`
makes them, at a fraction of its cost.

gast's converter builds each node through a generic visitor (a class lookup by name, a
keyword dict, `hasattr` per field and `copy_location`): on the long generated code of a vector
mode it took most of the printing stage. Here the nodes whose fields are the same in gast and
in `ast` on the running Python (names, constants, operators, calls, subscripts, assignments,
loops: nearly all of generated code) are copied field by field with their positions; every
other node (a function's signature, an exception handler, anything a Python version spells
differently) goes through gast's own conversion, whose children come back here.

>>> import ast, gast
>>> ast.unparse(to_ast(gast.parse("y = f(x[1:2], a=-3.0) if x else None")))
'y = f(x[1:2], a=-3.0) if x else None'
"""

from __future__ import annotations

import ast

import gast
from gast.ast3 import GAstToAst3

_COMMON = (
    "Expr", "Assign", "AugAssign", "Return", "Pass", "Break", "Continue", "If", "For",
    "While", "BinOp", "UnaryOp", "BoolOp", "Compare", "Call", "keyword", "Attribute",
    "Subscript", "Slice", "Tuple", "List", "Dict", "Set", "IfExp", "Constant", "Starred",
    "Load", "Store", "Del", "Add", "Sub", "Mult", "Div", "FloorDiv", "Mod", "Pow", "MatMult",
    "LShift", "RShift", "BitOr", "BitXor", "BitAnd", "USub", "UAdd", "Not", "Invert", "And",
    "Or", "Eq", "NotEq", "Lt", "LtE", "Gt", "GtE", "Is", "IsNot", "In", "NotIn",
)

# gast class -> ast class, where both have the same fields on this Python
_SAME_FIELDS = {getattr(gast, n): getattr(ast, n) for n in _COMMON
                if hasattr(gast, n) and hasattr(ast, n)
                and getattr(gast, n)._fields == getattr(ast, n)._fields}


class _Converter(GAstToAst3):
    def visit(self, node):
        target = _SAME_FIELDS.get(type(node))
        if target is not None:
            return self._same_fields(node, target)
        if type(node) is gast.Name:
            new = ast.Name.__new__(ast.Name)
            new.id, new.ctx = node.id, self.visit(node.ctx)
            _locate(new, node)
            return new
        return super().visit(node)  # gast's conversion; the children come back to visit

    def _same_fields(self, node, target):
        new = target.__new__(target)
        fields = new.__dict__
        for key, value in node.__dict__.items():
            if type(value) is list:
                fields[key] = [self.visit(v) if isinstance(v, ast.AST) else v for v in value]
            elif isinstance(value, ast.AST):
                fields[key] = self.visit(value)
            else:
                fields[key] = value  # a field's value, or a position (line, column)
        return new


def _locate(new, node) -> None:
    fields = node.__dict__
    for attribute in ("lineno", "col_offset", "end_lineno", "end_col_offset"):
        if attribute in fields:
            setattr(new, attribute, fields[attribute])


def to_ast(tree: gast.AST) -> ast.AST:
    """The `ast` tree of the gast tree `tree` (what `gast.gast_to_ast` returns)."""
    return _Converter().visit(tree)
