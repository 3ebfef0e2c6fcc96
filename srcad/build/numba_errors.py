"""numba's compilation errors as srcad's: `raise_numba_error` turns an error numba raised while
compiling generated code into a SrcadError quoting numba's own first line of explanation
(`numba_first_line`, without terminal colours), naming the user's line and statement where
numba names a line of a generated module (srcad/build/numba_lines.py)."""

from __future__ import annotations

import re

from srcad.build.numba_lines import user_line
from srcad.errors import SrcadError


def raise_numba_error(err: Exception, origin: str = "") -> None:
    """Raise the SrcadError for an error numba raised, quoting numba's own first line of
    explanation; return for any other error. Where numba names a line of a generated module,
    the error names the user's line and statement (the `# line N:` comment above it) and, for
    a call numba has no implementation of, the call."""
    if not (type(err).__module__.startswith("numba") or _raised_typing(err)):
        return
    text = without_colours(str(err))
    detail = numba_first_line(text) or type(err).__name__
    if _raised_typing(err) and not str(err):  # numba's own assert in its typing of a call
        detail = f"numba's typing failed ({type(err).__name__} in {_last_frame(err)})"
    undefined = any(word in detail for word in ("unify", "Type of variable", "NameError",
                                                  "not defined"))
    missing = re.search(r"No implementation of function Function\(<(?:built-in )?"
                        r"(?:function|method) (\w+)", text)
    if missing:
        detail = f"numba has no `{missing.group(1)}` for these operands ({detail})"
    # srcad/transform/numba_movement.py's spelling of np.diagonal, ...: the user's name
    detail = re.sub(r"\bmoved_(\w+)", r"np.\1", detail)
    detail = re.sub(r"\blinalg_(\w+)", r"np.linalg.\1", detail)  # numba_linalg_calls.py
    called = re.sub(r"\b(?:moved|linalg)_(\w+)", r"np.\1", missing.group(1)) if missing \
        else None
    filename, line, statement = user_line(text, called)
    where = f" of `{statement}`" if statement else ""
    hint = ("make every variable defined on every path, or use backend='python'" if undefined
            else "use backend='python'")
    raise SrcadError(f"numba cannot compile the generated code{where}: {detail}",
                     filename=origin or filename, line=line, construct="backend='numba'",
                     hint=hint) from None


def _numba_frames(err: Exception) -> list:
    frames, tb = [], err.__traceback__
    while tb is not None:
        frames.append(tb.tb_frame.f_code)
        tb = tb.tb_next
    return frames


def _raised_typing(err: Exception) -> bool:
    """An error of another type raised while numba typed the code (an `assert` of numba's
    own typing of np.concatenate), not by the compiled code when it ran."""
    return not type(err).__module__.startswith("numba") and any(
        "typeinfer" in code.co_filename for code in _numba_frames(err))


def _last_frame(err: Exception) -> str:
    frames = _numba_frames(err)
    return f"numba's {frames[-1].co_name}" if frames else "numba"


_COLOUR_CODES = re.compile(r"\x1b\[[0-9;]*m")


def without_colours(message: str) -> str:
    """`message` without terminal colour codes (numba colours its errors when colorama is
    installed; a message srcad quotes must read the same in a log or a notebook)."""
    return _COLOUR_CODES.sub("", message)


def numba_first_line(message: str) -> str:
    """The first line of a numba error that says what went wrong, past the stage headers
    ("Failed in nopython mode pipeline ..."); a line announcing a signature (ending in ':')
    takes the signature with it.

    >>> numba_first_line("Failed in nopython mode pipeline (step: x)\\nNo implementation "
    ...                  "found for signature:\\n \\n >>> empty(float64)\\n")
    'No implementation found for signature: >>> empty(float64)'
    """
    lines = [line.strip() for line in without_colours(message).splitlines()]
    lines = [line for line in lines if line and not line.startswith("Failed in ")]
    if not lines:
        return ""
    first = lines[0]
    if first.endswith(":") and len(lines) > 1:
        first += " " + lines[1]
    return first

