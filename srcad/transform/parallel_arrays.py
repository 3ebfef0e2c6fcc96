"""The expressions of a loop run on all its iterations at once (srcad/transform/
parallel_loops.py): `math` functions as NumPy ufuncs, `a if t else b` as `np.where`, and the
stacked lanes of vector-mode tangents (`A_dot[:, i]`).

A value of the lifted code holds every iteration on its last axis; a vector of lanes (one
tangent per lane, `A_dot[:, 0]` in the loop) holds the lanes on its first axis. `A[:, ...]`
is read as `A[column, ...]`, column the lanes' indices as a column (W, 1): a value of every
lane and every iteration is then (W, p), one of every lane alone (W, 1), and the two broadcast
lane by lane (a vector of W lanes against p = W iterations would otherwise pair lane k with
iteration k). Lane vectors take part only in arithmetic: a `math` call, a comparison or a test
on one would raise in the loop (a vector is no number) and is not lifted.

>>> import gast
>>> from srcad.build.codegen import to_source
>>> tree = gast.parse("y = math.sin(x[i]) * x_dot[:, i] if t else 0.0")
>>> print(to_source(tree.body[0].__class__(targets=tree.body[0].targets,
...       value=mapped([tree.body[0]], "column")[0].value, type_comment=None)).strip())
y = np.where(t, np.sin(x[i]) * x_dot[column, i], 0.0)
"""

from __future__ import annotations

import gast

from srcad.frontend import syntax as S

# math functions with a NumPy ufunc of the same meaning on floats
_UFUNCS = {"sqrt": "sqrt", "sin": "sin", "cos": "cos", "tan": "tan", "exp": "exp",
           "log": "log", "tanh": "tanh", "sinh": "sinh", "cosh": "cosh", "atan": "arctan",
           "log1p": "log1p", "expm1": "expm1", "fabs": "abs"}


def lane_slice(part) -> int:
    """1 when `part` is a bare `:` (the lanes of stacked tangents: `A[:, i]`), else 0."""
    return int(isinstance(part, gast.Slice) and part.lower is None and part.upper is None
               and part.step is None)


def is_lane(node, lanes) -> bool:
    """Whether `node` may hold a vector `A[:, ...]` of lanes (then only arithmetic)."""
    return any((isinstance(n, gast.Name) and n.id in lanes)
               or (isinstance(n, gast.Subscript) and lane_slice(parts_of(n)[0]))
               for n in gast.walk(node))


def lane_names(body) -> set:
    """Names bound anywhere in `body` to a value computed from `A[:, ...]` (fixed point)."""
    lanes: set = set()
    assignments = [n for s in body for n in gast.walk(s)
                   if isinstance(n, (gast.Assign, gast.AugAssign))]
    while True:
        grown = set(lanes)
        for a in assignments:
            targets = a.targets if isinstance(a, gast.Assign) else [a.target]
            if is_lane(a.value, lanes):
                grown |= {t.id for t in targets if isinstance(t, gast.Name)}
        if grown == lanes:
            return lanes
        lanes = grown


def parts_of(subscript):
    index = subscript.slice
    return list(index.elts) if isinstance(index, gast.Tuple) else [index]


def is_math(node) -> bool:
    return isinstance(node.value, gast.Name) and node.value.id == "math" \
        and node.attr in _UFUNCS


def is_ufunc(func) -> bool:
    return isinstance(func, gast.Attribute) and is_math(func)


class _Elementwise(gast.NodeTransformer):
    """math.f(...) as np.f(...), abs as np.abs, `a if t else b` as np.where(t, a, b),
    `A[:, ...]` as `A[column, ...]` (column: the lanes as a column, so that a value of every
    iteration, lanes first, iterations last, broadcasts against one of every lane)."""

    def __init__(self, column):
        self.column = column

    def visit_Subscript(self, node):
        self.generic_visit(node)
        parts = parts_of(node)
        if self.column and lane_slice(parts[0]):
            parts[0] = S.name(self.column)
            node.slice = parts[0] if len(parts) == 1 else gast.Tuple(parts, gast.Load())
        return node

    def visit_Call(self, node):
        self.generic_visit(node)
        if isinstance(node.func, gast.Attribute) and is_math(node.func):
            node.func = S.parse_expr(f"np.{_UFUNCS[node.func.attr]}")
        elif isinstance(node.func, gast.Name) and node.func.id == "abs":
            node.func = S.parse_expr("np.abs")
        return node

    def visit_IfExp(self, node):
        self.generic_visit(node)
        return S.call("np.where", node.test, node.body, node.orelse)


def mapped(statements, column):
    """`statements` written for arrays of iterations (`_Elementwise`)."""
    return [_Elementwise(column).visit(statement) for statement in statements]
