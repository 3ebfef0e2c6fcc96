"""Refusals that name a list entry as the user wrote it (`xs[0]`), not as the variable srcad
split the list into (`xs_0`, normalize/lists.py)."""

from __future__ import annotations

import re

import gast

from srcad.frontend import syntax as S


def entry_alias_error(norm, node, name: str, array: str):
    """The refusal of `name`, the entry of a list of known length split into variables
    (`xs_0` for `xs = [a]`, normalize/lists.py), bound to the array `array` at `node` (or a
    view of it) while the array is written: in the user's words, None for any other name."""
    entry = _entry(norm, name)
    if entry is None:
        return None
    value = S.unparse_expr(node.value)
    return norm.parsed.error(
        node, "list entry aliasing an array",
        f"the list entry `{entry}` is `{value}`, the array object itself (Python lists hold "
        f"references, not copies), and `{array}` is written in place or rebound while the "
        "list holds it; srcad cannot follow the list entry through the write, so the value "
        "and derivative would be silently wrong",
        hint=f"store a copy in the list (`{value}.copy()`), or build a new array instead of "
        f"writing `{array}` in place")


def _entry(norm, name: str) -> str | None:
    """`xs[0]` for `xs_0`, and for the names later passes give it again (`xs_0_1`, a name of
    the part bound a second time); None for a name of the user's."""
    if not norm.namer.list_parts or any(isinstance(n, gast.Name) and n.id == name
                                        for n in gast.walk(norm.parsed.tree)):
        return None
    while name not in norm.namer.list_parts:
        shorter = re.sub(r"_\d+$", "", name)
        if shorter == name:
            return None
        name = shorter
    return norm.namer.list_parts[name]
