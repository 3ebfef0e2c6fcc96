"""Clean-ups of generated code that change nothing a caller can observe."""

from __future__ import annotations

import gast

from srcad import syntax as S


def drop_dead_resets(rev: list, live: set) -> list:
    """Remove top-level `v_bar = 0.0` resets that nothing reads afterwards."""
    out = []
    live = set(live)
    for stmt in reversed(rev):
        if (isinstance(stmt, gast.Assign) and isinstance(stmt.targets[0], gast.Name)
                and isinstance(stmt.value, gast.Constant) and stmt.targets[0].id not in live):
            continue
        live |= S.loaded_names(stmt)
        out.append(stmt)
    out.reverse()
    # a comment left with nothing under it
    return [s for k, s in enumerate(out)
            if not (S.is_comment(s) and (k + 1 == len(out) or S.is_comment(out[k + 1])))]
