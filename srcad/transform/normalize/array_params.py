"""Array names made plain values before differentiation.

Array arguments rebound in the body (`h = np.tanh(W @ h + b)` with `h` an argument): the
argument takes a new name, and the body's `h` is a local bound to it at entry (`h = h_in`,
no copy), so the body and its `# line N:` comments read as written.

The adjoint of an array argument is the caller's shadow, added into; a rebinding would make
the name's adjoint a new array and lose the caller's. With the local name, the argument is
read once, at entry, and its adjoint is what flows back through that first binding.

An array expression returned (`return np.sin(x) * x`) is bound to a name first
(`result_array = np.sin(x) * x; return result_array`): the return value's tangent and
adjoint are those of an array variable, and the expression is differentiated as any
array assignment.
"""

from __future__ import annotations

import gast

from srcad.analysis.array_bindings import is_allocation, viewed_array
from srcad.analysis.types import Array
from srcad.frontend import syntax as S


def localize_rebound_array_arguments(norm, arg_types: dict) -> None:
    """Rename every array argument that some assignment binds to a whole-array expression
    (in `norm.params`, by position), and bind the old name to it first."""
    bound = _bound_values(norm.body)  # one walk for every argument
    for k, param in enumerate(norm.params):
        if not isinstance(arg_types.get(param), Array) or all(
                is_allocation(norm, value) for value in bound.get(param, ())):
            continue
        renamed = norm.namer.fresh(f"{param}_in")
        norm.params[k] = renamed
        entry = gast.copy_location(S.assign(S.name(param), S.name(renamed)), norm.parsed.tree)
        norm.body.insert(0, entry)


def _bound_values(body) -> dict:
    """name -> the values of the assignments `name = value` in `body`."""
    out: dict = {}
    for node in S.nodes(gast.Module(body=body, type_ignores=[])):
        if isinstance(node, gast.Assign) and isinstance(node.targets[0], gast.Name):
            out.setdefault(node.targets[0].id, []).append(node.value)
    return out


def rebind_in_place_updates(norm, types, active: set) -> None:
    """`acc += x` on an active local array that no other name can share (each of its
    bindings makes a new array: an allocation or an expression, never a view or a name) is
    `acc = acc + x`: NumPy updates in place, but nothing else can see the difference. Updates
    of arguments and of possible aliases stay as written (and are refused as in-place), and
    so do inactive ones (nothing to differentiate: no allocation added)."""
    candidates = {p for p in {t.target.id for stmt in norm.body for t in S.walk(stmt)
                              if isinstance(t, gast.AugAssign)
                              and isinstance(t.target, gast.Name)}
                  if isinstance(types[p], Array) and p in active and p not in norm.params}
    for stmt in norm.body:
        for node in S.walk(stmt):
            if isinstance(node, gast.Assign) and isinstance(node.targets[0], gast.Name) \
                    and node.targets[0].id in candidates and _shares(norm, node.value):
                candidates.discard(node.targets[0].id)
    norm.body = [_InPlace(candidates).visit(stmt) for stmt in norm.body]


def _shares(norm, value) -> bool:
    """Might `value` be an array some other name also refers to (a name, a view)?"""
    return viewed_array(norm, value) is not None


class _InPlace(gast.NodeTransformer):
    def __init__(self, names):
        self.names = names

    def visit_AugAssign(self, node):
        if isinstance(node.target, gast.Name) and node.target.id in self.names:
            value = gast.BinOp(left=S.name(node.target.id), op=node.op, right=node.value)
            return gast.copy_location(S.assign(S.name(node.target.id), value), node)
        return node


def name_array_returns(norm, types) -> bool:
    """Bind each returned array expression (not a name) to a fresh name just before its
    `return`. True when the body changed (the types are then computed again)."""
    changed = False

    def block(body):
        nonlocal changed
        out = []
        for stmt in body:
            for field in ("body", "orelse"):
                if isinstance(getattr(stmt, field, None), list):
                    setattr(stmt, field, block(getattr(stmt, field)))
            if isinstance(stmt, gast.Return) and stmt.value is not None \
                    and not isinstance(stmt.value, gast.Name) \
                    and isinstance(types.of(stmt.value), Array):
                name = norm.namer.fresh("result_array")
                out.append(gast.copy_location(S.assign(S.name(name), stmt.value), stmt))
                stmt.value = S.name(name)
                changed = True
            out.append(stmt)
        return out

    norm.body = block(norm.body)
    return changed
