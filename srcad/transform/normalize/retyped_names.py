"""A name rebound from an array to a number (or back) becomes one name per binding.

`x = np.sum(x); x = x * x` with `x` an array argument binds `x` to an array and then to
numbers. Every stage types a name once, so each top-level rebinding of such a name gets a
fresh name (`x_1 = np.sum(x)`, `x_2 = x_1 * x_1`, `return x_2`), and the reads after it read
the new name: single assignment for straight-line code, the same program. A name of two
kinds that is bound inside a loop or a branch keeps its refusal (which binding a read sees
would depend on the path taken).

An array name rebound at the top level (`h = x; h = np.tanh(W @ h + b); h = V @ h`) gets
one name per binding too, whatever its types: each binding may have its own shape, and its
tangent and adjoint must have that binding's shape (one adjoint array shared by the
bindings of a name would receive the adjoint of a (3,) value into the (4,) array of the
next one). An array name rebound inside a loop or a branch keeps one name; reverse mode
then resets its adjoint to the shape of the value the binding replaced
(transform/reverse/transform.py).
"""

from __future__ import annotations

import collections

import gast

from srcad.analysis.types import Array, Types
from srcad.frontend import syntax as S


def split_retyped_names(norm, arg_types: dict) -> None:
    """Rename, in `norm.body`, each top-level rebinding of a name bound both to an array and
    to a number (arguments count as the first binding)."""
    types = Types(norm, arg_types, check=False)
    for name in sorted(types.mixed):
        if _only_top_level_bindings(norm.body, name):
            _rename_bindings(norm, name)
    counts = _rebinding_counts(norm)  # renaming one name leaves the others' counts as they are
    for name in sorted(n for n, t in types.env.items()
                       if isinstance(t, Array) and n not in types.mixed):
        if counts.get(name, 0) > 1 and _only_top_level_bindings(norm.body, name):
            _rename_bindings(norm, name)


def _rebinding_counts(norm) -> collections.Counter:
    """Per name, its plain bindings `name = e` in the body, the argument counting as one (one
    walk for every name: a walk per array name made long bodies quadratic)."""
    counts = collections.Counter(norm.params)
    for node in S.nodes(gast.Module(body=norm.body, type_ignores=[])):
        if isinstance(node, gast.Assign):
            counts.update({n.id for t in node.targets for n in S.walk(t)
                           if isinstance(n, gast.Name) and isinstance(n.ctx, gast.Store)})
    return counts


def _binds(node, name) -> bool:
    targets = node.targets if isinstance(node, gast.Assign) else \
        [node.target] if isinstance(node, (gast.AugAssign, gast.For)) else []
    return any(isinstance(n, gast.Name) and n.id == name and isinstance(n.ctx, gast.Store)
               for t in targets for n in S.walk(t))


def _only_top_level_bindings(body, name) -> bool:
    for stmt in body:
        top = isinstance(stmt, (gast.Assign, gast.AugAssign)) and _binds(stmt, name)
        nested = [n for n in S.walk(stmt) if n is not stmt and _binds(n, name)]
        if nested or (isinstance(stmt, gast.Assign) and top and not (
                len(stmt.targets) == 1 and isinstance(stmt.targets[0], gast.Name))):
            return False
    return True


def _rename_bindings(norm, name) -> None:
    current = name
    for stmt in norm.body:
        if isinstance(stmt, gast.Assign) and _binds(stmt, name):
            S.rename(stmt.value, name, current)
            current = norm.namer.fresh(name)
            stmt.targets[0].id = current
        else:  # reads (and `x += e`, which keeps the binding it updates) see the latest
            S.rename(stmt, name, current)


