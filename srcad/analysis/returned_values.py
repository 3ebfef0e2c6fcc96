"""The value a function returns must be one srcad differentiates when it carries a derivative:
a float, a float array, or a flat tuple of them (`return a, b`). A returned tuple holding a
tuple, a list or an empty tuple (`return y, (u, v)`, `return y, ()`) is refused by line when
a derivative reaches it: its derivative would otherwise silently be zero.
"""

from __future__ import annotations

import gast

from srcad.analysis.activity import differentiable_reads
from srcad.analysis.types import is_float_like
from srcad.frontend import syntax as S


def refuse_nested_returns(norm, types, varied: set) -> None:
    """Refuse (to `norm.refusals`) the final `return` whose value is a tuple of a shape srcad
    does not differentiate (a tuple or list inside it) and reads a value carrying a
    derivative (`return y, (u, v)`: write `return y, u, v`).
    """
    if norm.parsed.generated:  # srcad's own code returns (value, (adjoints...))
        return
    last = norm.body[-1] if norm.body else None
    if not (isinstance(last, gast.Return) and isinstance(last.value, gast.Tuple)) \
            or S.is_tuple_return(last) or is_float_like(types.of(last.value)):
        return
    if not differentiable_reads(last.value, norm) & varied:
        return
    norm.refusals.add(norm.parsed.error(
        last, "return", f"`return {S.unparse_expr(last.value)}` returns a tuple holding a "
        "tuple or a list, and a derivative reaches it: srcad differentiates a returned float, "
        "array, or flat tuple of them",
        hint="return a flat tuple (return a, b, c); to pass other values along unchanged, "
        "use has_aux=True and return (value, aux)"))
