"""`Transformer`: gast.NodeTransformer's behaviour at a fraction of its cost.

`ast.NodeTransformer` finds each node's method by building the string `"visit_" + name` and
looking it up, and walks the fields through `ast.iter_fields` (a generator per node): a
first call runs such walks over tens of thousands of nodes (the simplifier alone, over every
rule instance). `Transformer` finds a method once per (transformer class, node class) and
walks `node.__dict__`; what it returns and how it replaces nodes is NodeTransformer's
(a method returning None removes a node from a list, a list is spliced into one).

>>> import gast
>>> class Doubled(Transformer):
...     def visit_Constant(self, node):
...         return gast.Constant(value=2 * node.value, kind=None)
>>> tree = Doubled().visit(gast.parse("f(1, [2, 3])"))
>>> [n.value for n in gast.walk(tree) if isinstance(n, gast.Constant)]
[2, 4, 6]
"""

from __future__ import annotations

import ast

import gast

# (transformer class, node class) -> the function that visits such a node
_METHODS: dict = {}


class Transformer(gast.NodeTransformer):
    """A gast.NodeTransformer (the same methods and results), with a faster dispatch and
    walk."""

    def visit(self, node):
        key = (type(self), type(node))
        method = _METHODS.get(key)
        if method is None:
            method = _METHODS[key] = getattr(type(self), "visit_" + type(node).__name__,
                                             type(self).generic_visit)
        return method(self, node)

    def generic_visit(self, node):
        fields = node.__dict__
        for name in node._fields:
            value = fields.get(name)
            if type(value) is list:
                new_values = []
                for item in value:
                    if isinstance(item, ast.AST):
                        item = self.visit(item)
                        if item is None:
                            continue
                        if not isinstance(item, ast.AST):
                            new_values.extend(item)
                            continue
                    new_values.append(item)
                value[:] = new_values
            elif isinstance(value, ast.AST):
                new_node = self.visit(value)
                if new_node is None:
                    delattr(node, name)
                else:
                    fields[name] = new_node
        return node
