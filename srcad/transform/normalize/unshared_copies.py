"""Second names of arrays whose sharing no execution observes, bound to copies.

Double buffering (`v = np.empty_like(u)`, `v` filled from `u`, then `u = v`, or `u, v = v, u`)
and a view kept for the next iteration (`row = out[t]; row[:] = ...; prev = row`) bind a second
name to an array that the function writes later, which srcad would otherwise refuse
(analysis/writes.py: it follows arrays by name). When analysis/array_sharing.py shows that no
write through one name is ever read through another name still holding the array, the binding
becomes a copy (`u = v.copy()`, `prev = row.copy()`): the same values on every execution, and
an array of its own that srcad follows by its name.

Guarantees: only bindings the old rule refuses (`shared_while_written`) and views kept from
one iteration for the next of an array the function writes (which views.py refuses) are
touched, so the generated code of everything else is unchanged; a binding whose sharing may
be observed stays as written, for views.py to resolve or the alias check to refuse by line.
"""

from __future__ import annotations

import gast

from srcad.analysis.array_bindings import viewed_array
from srcad.analysis.array_sharing import analyse_sharing
from srcad.analysis.types import Array, Types
from srcad.analysis.writes import shared_while_written
from srcad.frontend import syntax as S


def copy_unshared_aliases(norm, arg_types: dict) -> bool:
    """Bind to copies the second names whose sharing is never observed (module docstring);
    True if any binding was changed."""
    types = Types(norm, arg_types, check=False)
    pending = [(node, target, source) for node, target, source
               in shared_while_written(norm, types) if len(node.targets) == 1]
    carried = [c for c in _carried_views(norm, types) if c[0] not in {p[0] for p in pending}]
    carried_loops = {id(c[0]): c[3] for c in carried}
    if not pending and not carried:
        return False
    sharing = analyse_sharing(norm)
    if sharing is None:
        return False
    changed = False
    for node, target, source in pending + [tuple(c[:3]) for c in carried]:
        loop = carried_loops.get(id(node))
        if loop is not None and not (
                target in sharing.carried.get(id(loop), set())
                and sharing.held_sites(node, source) & sharing.written_sites):
            continue  # a view of an array nothing writes, or not read in a later iteration
        if sharing.unobservable(node, target, source):
            node.value = gast.Call(func=gast.Attribute(value=node.value, attr="copy",
                                                       ctx=gast.Load()), args=[], keywords=[])
            changed = True
    return changed


def _carried_views(norm, types) -> list:
    """[binding, name, array, loop] of the views bound in a loop to a name the loop reads
    (the view of one iteration kept for the next, `layer_output = state[2 * i]`, when the
    name is live at the loop's head): views.py refuses them once the array's other views
    are resolved as writes of the array."""
    out = []

    def walk(stmts, loops):
        for stmt in stmts:
            if isinstance(stmt, gast.Assign) and loops and len(stmt.targets) == 1 \
                    and isinstance(stmt.targets[0], gast.Name):
                name, source = stmt.targets[0].id, viewed_array(norm, stmt.value)
                if source is not None and source != name \
                        and isinstance(types.of(stmt.value), Array) \
                        and name in S.loaded_names(loops[-1]):
                    out.append([stmt, name, source, loops[-1]])
            inner = loops + [stmt] if isinstance(stmt, (gast.For, gast.While)) else loops
            for field in ("body", "orelse"):
                block = getattr(stmt, field, None)
                if isinstance(block, list):
                    walk(block, inner)
    walk(norm.body, [])
    return out
