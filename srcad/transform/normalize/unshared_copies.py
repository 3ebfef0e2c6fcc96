"""Second names of arrays whose sharing no execution observes, bound to copies.

Double buffering (`v = np.empty_like(u)`, `v` filled from `u`, then `u = v`, or `u, v = v, u`)
and a view kept for the next iteration (`row = out[t]; row[:] = ...; prev = row`) bind a second
name to an array that the function writes later, which srcad would otherwise refuse
(analysis/writes.py: it follows arrays by name). When analysis/array_sharing.py shows that no
write through one name is ever read through another name still holding the array, the binding
becomes a copy (`u = v.copy()`, `prev = row.copy()`): the same values on every execution, and
an array of its own that srcad follows by its name.

Guarantees: only bindings the old rule refuses (`shared_while_written`) are touched, so the
generated code of everything else is unchanged; a binding whose sharing may be observed stays
as written, for views.py to resolve or the alias check to refuse by line.
"""

from __future__ import annotations

import gast

from srcad.analysis.array_sharing import analyse_sharing
from srcad.analysis.types import Types
from srcad.analysis.writes import shared_while_written


def copy_unshared_aliases(norm, arg_types: dict) -> bool:
    """Bind to copies the second names whose sharing is never observed (module docstring);
    True if any binding was changed."""
    types = Types(norm, arg_types, check=False)
    pending = [(node, target, source) for node, target, source
               in shared_while_written(norm, types) if len(node.targets) == 1]
    if not pending:
        return False
    sharing = analyse_sharing(norm)
    if sharing is None:
        return False
    changed = False
    for node, target, source in pending:
        if sharing.unobservable(node, target, source):
            node.value = gast.Call(func=gast.Attribute(value=node.value, attr="copy",
                                                       ctx=gast.Load()), args=[], keywords=[])
            changed = True
    return changed
