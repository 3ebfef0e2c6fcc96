"""The user's file, line and statement of an error numba raised while compiling a generated
module (srcad/build/numba_errors.py's `raise_numba_error`).

numba names a line of the generated module. Generated statements carry the user's line in a
`# line N: <statement>` comment above them, except the forward sweep of reverse mode (the
primal, which the reverse sweep's comments name in reverse order): a call numba has no
implementation of there (`np.linalg.matrix_power` or `np.linalg.svd` of a stack) is
found by the comments that call the function numba names, the first in the user's order, as
numba types the sweep. The user's file is the module's first line (`# srcad: generated from
<file>`, written by compile_numba).
"""

from __future__ import annotations

import re
from pathlib import Path

from srcad.build.numba_constants import comment_above

ORIGIN = "# srcad: generated from "
_FORWARD_SWEEP = "# forward sweep:"
_REVERSE_SWEEP = "# reverse sweep:"
_COMMENT = re.compile(r"\s*# line (\d+): (.*)")


def origin_comment(origin: str) -> list:
    """The module's first line naming the user's file (none for an unnamed origin)."""
    return [ORIGIN + origin] if origin else []


def user_line(text: str, missing: str | None = None) -> tuple:
    """(file, line, statement) of the user's code that the first generated line numba names
    in its error `text` comes from, (None, None, None) where it names none. `missing`: the
    function numba has no implementation of, as the user spells it (`np.linalg.svd`)."""
    where = re.search(r'File "([^"]*srcad_[^"]*\.py)", line (\d+)', text)
    if where is None:
        return None, None, None
    try:
        lines = Path(where.group(1)).read_text().splitlines()
    except OSError:
        return None, None, None
    origin = lines[0][len(ORIGIN):] if lines and lines[0].startswith(ORIGIN) else None
    lineno = int(where.group(2))
    if _in_forward_sweep(lines, lineno) and missing:
        line, statement = _calling(lines, missing.rsplit(".", 1)[-1])
        if line is not None:
            return origin, line, statement
    line, statement = comment_above(lines, lineno)
    return origin, line, statement


def _in_forward_sweep(lines, lineno) -> bool:
    """Is generated line `lineno` (1-based) in the forward sweep of a reverse function?"""
    for k in range(min(lineno, len(lines)) - 1, -1, -1):
        text = lines[k].strip()
        if text.startswith(_REVERSE_SWEEP) or text.startswith("def "):
            return False
        if text.startswith(_FORWARD_SWEEP):
            return True
    return False


def _calling(lines, function: str) -> tuple:
    """(line, statement) of the first user line, by number, whose comment calls `function`
    (`np.diagonal(` or a method `.diagonal(`), or (None, None)."""
    call = re.compile(rf"(?<!\w){re.escape(function)}\(")
    found = [(int(m.group(1)), m.group(2).strip()) for m in map(_COMMENT.match, lines)
             if m and call.search(m.group(2))]
    return min(found) if found else (None, None)
