"""Forward mode of updates of a part of an array, and who owns a tangent array (a mixin of
`ForwardTransform`, transform/forward/transform.py): `p[s] *= c` with c constant scales that
part's tangent in place, and a tangent that would share memory its primal does not (a view
of another tangent bound to a new array, a read-only broadcast written later) gets an array of
its own, so that a later write of one array never changes another's tangent.
"""

from __future__ import annotations

import gast

from srcad.analysis.types import Array
from srcad.frontend import syntax as S
from srcad.transform.forward.views import is_view


class PartUpdates:
    def _shares_memory(self, tname, value, tangent) -> bool:
        """Would `tangent`, bound as the tangent of the array `tname = value`, share memory
        the primal does not, in a function that writes arrays in place? `value` makes a new
        array (`np.copy(a[:])`, `x + 1.0`) while its tangent is an existing one or a view of
        it (`a_dot[:]`, `x_dot`), which a later write of either would change with the other;
        or a broadcast (a read-only view) whose elements are written later. It then gets
        its own copy."""
        if not self.element_written or not isinstance(self.types[tname], Array) \
                or is_view(value):
            return False
        if _is_broadcast_to(tangent):
            return tname in self.element_written
        return is_view(tangent)

    def _scaled_part(self, stmt, target, op, value) -> list:
        """`p[s] *= c` (or `/=`) with c constant: the tangent of that part is scaled the same
        way, in place (`p_dot[s] *= c`), which reverse over forward differentiates again as
        an augmented write, not an element write of an array bound to an expression."""
        line = S.comment(f"line {self.norm.parsed.line_of(stmt)}: {S.unparse_header(stmt)}")
        tangents = [gast.AugAssign(target=self.target_tangent(k, target), op=S.clone(op),
                                   value=S.clone(value)) for k in range(len(self.styles))]
        return [line] + self.styles[0].wrap(tangents) + [stmt]


def _is_broadcast_to(node) -> bool:
    return isinstance(node, gast.Call) and isinstance(node.func, gast.Attribute) \
        and node.func.attr == "broadcast_to"

