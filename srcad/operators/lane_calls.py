"""Calls of primal values in batched reverse code: `np.cos(x[i])` in the adjoint of
`np.sin(x[i])` computes a number from primal values only, the same for every lane, so the
reverse code runs on W lanes of adjoints unchanged.

What makes such a call safe is that it reads no adjoint (no name holding lanes, nor a name
computed from one) and returns a number: a number multiplies each lane alike. The same holds
for every primal operand of arithmetic with lanes (`x_bar[i] += c * y_bar_value`): an array
there (`x_bar += y_bar * x` of whole-array code) would broadcast against the lanes axis, right
only by accident, so each such operand is guarded too. Whole-array code
calls the same functions on arrays (`np.exp(x)` of an array x), whose result would broadcast
against the lanes axis instead; which it is shows only at run time, so each such call is
wrapped in `_srcad_scalar(...)`, which raises `LanesUnsupported` on anything but a number
(the caller then sweeps once per cotangent, as for code refused up front).

>>> import ast
>>> tree = ast.parse("def f(x, x_bar):\\n    t = x_bar[0]\\n    u = np.cos(x[0]) * t\\n"
...                  "    x_bar[i] += u\\n    return np.sum(t)")
>>> sorted(lane_names(tree))
['t', 'u', 'x_bar']
>>> calls = primal_calls(tree, lane_names(tree))
>>> [ast.unparse(c.func) for c in calls]
['np.cos']
"""

from __future__ import annotations

import ast

import numpy as np

from srcad.errors import SrcadError

GUARD = "_srcad_scalar"


class LanesUnsupported(SrcadError):
    """A call of batched reverse code returned something else than a number."""


def lane_names(tree) -> set[str]:
    """Names that may hold lanes: adjoints (`..._bar`) and every name assigned from an
    expression reading one (to a fixpoint; flow-insensitive, so it errs on the safe side)."""
    lanes = {n.id for n in ast.walk(tree) if isinstance(n, ast.Name) and n.id.endswith("_bar")}
    bindings = []
    for node in ast.walk(tree):
        if isinstance(node, ast.Assign):
            bindings += [(t, node.value) for t in node.targets]
        elif isinstance(node, (ast.AugAssign, ast.AnnAssign)) and node.value is not None:
            bindings.append((node.target, node.value))
        elif isinstance(node, (ast.For, ast.comprehension)):
            bindings.append((node.target, node.iter))
        elif isinstance(node, ast.NamedExpr):
            bindings.append((node.target, node.value))
    grown = True
    while grown:
        grown = False
        for target, value in bindings:
            if reads_any(value, lanes):
                names = _bound(target)
                if not names <= lanes:
                    lanes |= names
                    grown = True
    return lanes


def _bound(target) -> set[str]:
    """The names a store target binds or writes into (`a` of `a[i]`, not `i`)."""
    if isinstance(target, (ast.Tuple, ast.List)):
        return set().union(*(_bound(e) for e in target.elts))
    while isinstance(target, (ast.Subscript, ast.Attribute, ast.Starred)):
        target = target.value
    return {target.id} if isinstance(target, ast.Name) else set()


def reads_any(node, names) -> bool:
    return any(isinstance(n, ast.Name) and n.id in names for n in ast.walk(node))


def primal_calls(tree, lanes) -> list:
    """The calls of `tree` of a dotted function (`np.cos`, `scipy.special.gammaln`) reading
    no lane name: the calls `wrap_primal_calls` guards."""
    return [n for n in ast.walk(tree) if isinstance(n, ast.Call)
            and isinstance(n.func, ast.Attribute) and _dotted(n.func)
            and not reads_any(n, lanes)]


def _dotted(node) -> bool:
    while isinstance(node, ast.Attribute):
        node = node.value
    return isinstance(node, ast.Name)


def _guarded(node, what: str):
    return ast.copy_location(ast.Call(ast.Name(GUARD, ast.Load()), [node, ast.Constant(what)],
                                      []), node)


_MIXED = "an operand of adjoint arithmetic is"


class _Guard(ast.NodeTransformer):
    def __init__(self, calls, lanes):
        self.calls = {id(c) for c in calls}
        self.lanes = lanes

    def visit_Call(self, node):
        self.generic_visit(node)
        if id(node) in self.calls:
            return _guarded(node, f"{ast.unparse(node.func)} returned")
        return node

    def _primal(self, node) -> bool:
        """A primal operand met by lanes: a number, or an array the lanes would broadcast
        against (whole-array code); literals are numbers."""
        return not isinstance(node, ast.Constant) and not reads_any(node, self.lanes)

    def visit_BinOp(self, node):
        self.generic_visit(node)
        left, right = reads_any(node.left, self.lanes), reads_any(node.right, self.lanes)
        if left and self._primal(node.right):
            node.right = _guarded(node.right, _MIXED)
        elif right and self._primal(node.left):
            node.left = _guarded(node.left, _MIXED)
        return node

    def visit_AugAssign(self, node):
        self.generic_visit(node)
        if reads_any(node.target, self.lanes) and self._primal(node.value):
            node.value = _guarded(node.value, _MIXED)
        return node


def wrap_primal_calls(tree, calls, lanes):
    """`tree` with each of `calls`, and each primal operand of arithmetic on `lanes`, wrapped
    in `_srcad_scalar(...)` (in place): lanes last broadcast right against numbers only."""
    return _Guard(calls, lanes).visit(tree)


def scalar_result(value, what: str):
    """`value` if it is a number (a 0-d array included), else LanesUnsupported saying `what`
    (the function called) gave something else."""
    if isinstance(value, (float, int, np.generic)) or \
            (isinstance(value, np.ndarray) and value.ndim == 0):
        return value
    shape = f" of shape {np.shape(value)}" if isinstance(value, np.ndarray) else ""
    raise LanesUnsupported(
        f"batched reverse mode runs element-by-element code; {what} "
        f"{type(value).__name__}{shape}, not a number", construct="batch",
        hint="leave chunk out: one reverse sweep per row")


def located(function, filename: str, line: int):
    """`function`, whose LanesUnsupported name the user's file and line."""

    def run(*args):
        try:
            return function(*args)
        except LanesUnsupported as err:
            raise err.at(filename, line) from None

    return run
