"""The types of a function whose type inference refuses constructs: each refusal is recorded
and the statement holding the refused construct set aside, with every statement that reads a
value it makes (srcad/frontend/refused_code.py), before the inference runs again on
what is left. So one run reports every construct the inference refuses (`x[...]`,
`math.exp(x)` of an array, a call of something that is no function), and nothing that only
follows from one (the name it binds, typed as nothing srcad knows, is not refused again).
The body left is checked, never differentiated: the function has refusals.

When the function's refusals do not collect (a check called on its own), or the refused node
is not a statement's part (an argument), the refusal is raised as it always was.
"""

from __future__ import annotations

import gast

from srcad.analysis.types import Types
from srcad.errors import SrcadError
from srcad.frontend.refused_code import made_from, set_aside_nodes


def inferred_types(norm, arg_types: dict) -> Types:
    """`Types(norm, arg_types)` once what its inference and its checks refuse is set aside
    from `norm.body`. What the checks recorded before one of them stopped at a refusal is
    forgotten: they run again on the body without the refused statement."""
    while True:
        mark = norm.refusals.mark()
        try:
            return Types(norm, arg_types)
        except SrcadError as err:
            norm.refusals.forget_since(mark)
            _set_aside(norm, err)


def set_aside_untyped(norm, arg_types: dict) -> None:
    """Set aside from `norm.body` what the type inference refuses, before the rewrites that
    ask for types as far as they can be inferred (`Types(..., check=False)`): they then see
    every statement typed but the refused ones and what reads their values."""
    while (refusal := Types(norm, arg_types, check=False).refusal) is not None:
        _set_aside(norm, refusal)


def _set_aside(norm, err) -> None:
    node = getattr(err, "node", None)
    found = node is not None and any(n is node for stmt in norm.body for n in gast.walk(stmt))
    origin = [node] if found else made_from(norm.body, err, norm.parsed)
    if not norm.refusals.collect or not origin:
        raise err
    norm.body = set_aside_nodes(norm.body, origin, err, norm.refusals)
