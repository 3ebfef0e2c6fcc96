"""np.broadcast_arrays written out as the tuple of its parts, so that each part is a
broadcast with a rule (np.broadcast_to, srcad/rules/shapes.py):

    np.broadcast_arrays(a, b)  ->  (np.broadcast_to(a, np.broadcast_shapes(a.shape, b.shape)),
                                    np.broadcast_to(b, np.broadcast_shapes(a.shape, b.shape)))

Unpacking it (`a2, b2 = np.broadcast_arrays(a, b)`) and reading a part
(`np.broadcast_arrays(a, b)[0]`) then read as any tuple written out; the parts are marked
`droppable` (no effect: a part not read is dropped). Only arrays named or read without a
call are written out (each is read once per part); `subok=` and any other form is left as it
is (refused as a call without a rule when its argument carries a derivative).
"""

from __future__ import annotations

import gast
import numpy as np

from srcad.frontend import syntax as S


def droppable(node) -> bool:
    """Is `node` a part of a tuple written out here or in factor_calls.py, with no effect?"""
    return getattr(node, "droppable", False)


def broadcast_arrays_call(node, function):
    """The call `node` of `function` written out, or None to leave it as it is."""
    if function is not np.broadcast_arrays or node.keywords or not node.args or any(
            isinstance(n, (gast.Call, gast.Starred)) for a in node.args for n in gast.walk(a)):
        return None
    shapes = [gast.Attribute(value=S.clone(a), attr="shape", ctx=gast.Load())
              for a in node.args]
    parts = []
    for array in node.args:
        shape = gast.Call(func=_np("broadcast_shapes"), args=[S.clone(s) for s in shapes],
                          keywords=[])
        part = gast.Call(func=_np("broadcast_to"), args=[S.clone(array), shape], keywords=[])
        part.droppable = True
        parts.append(S.relocated(part, node))
    return gast.copy_location(gast.Tuple(elts=parts, ctx=gast.Load()), node)


def _np(name):
    return gast.Attribute(value=S.name("np"), attr=name, ctx=gast.Load())
