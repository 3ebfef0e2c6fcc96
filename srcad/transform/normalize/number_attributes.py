"""`x.ndim`, `x.shape` and `x.size` of a number, as NumPy answers them for a NumPy float
(numba backend).

f may be written for arrays and numbers alike (`x ** 3 if x.ndim == 0 else np.sum(x)`). A
NumPy float argument reaches f as it is on the python backend, where `x.ndim` is 0; numba
compiles a number as a machine float, which has no attributes, and refused the whole
function. A number's `ndim`, `shape` and `size` do not depend on its value: they are written
as the constants 0, () and 1 before numba sees the code.
"""

from __future__ import annotations

import gast

from srcad.analysis.value_types import FLOAT, INT

_CONSTANTS = {"ndim": 0, "shape": (), "size": 1}


def number_attributes(norm, types) -> bool:
    """Rewrite, in place in `norm.body`, each `x.ndim`, `x.shape`, `x.size` read of a name
    typed a float or an int; True if one was (the types are then inferred again)."""
    rewriter = _Rewriter(types)
    norm.body = [rewriter.visit(stmt) for stmt in norm.body]
    return rewriter.changed


class _Rewriter(gast.NodeTransformer):
    def __init__(self, types):
        self.types = types
        self.changed = False

    def visit_Attribute(self, node):
        self.generic_visit(node)
        if node.attr in _CONSTANTS and isinstance(node.ctx, gast.Load) \
                and isinstance(node.value, gast.Name) \
                and self.types.of(node.value) in (FLOAT, INT):
            self.changed = True
            value = _CONSTANTS[node.attr]
            made = gast.Tuple(elts=[], ctx=gast.Load()) if value == () else \
                gast.Constant(value=value, kind=None)
            return gast.copy_location(made, node)
        return node
