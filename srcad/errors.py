"""Errors srcad raises instead of returning a derivative it cannot vouch for.

Every refusal names the file, the line and the construct, and says what to do instead.
"""

from __future__ import annotations


class SrcadError(Exception):
    """srcad refuses to differentiate something (never a silently wrong answer).

    >>> str(SrcadError("no rule for 'foo'", filename="m.py", line=3, construct="call"))
    "m.py:3: call: no rule for 'foo'"
    """

    def __init__(self, message, *, filename=None, line=None, construct=None, hint=None):
        self.message = message
        self.filename = filename
        self.line = line
        self.construct = construct
        self.hint = hint
        super().__init__(self._render())

    def at(self, filename, line) -> SrcadError:
        """The same error, located at `filename:line` (when it had no location)."""
        if self.filename is not None:
            return self
        return type(self)(self.message, filename=filename, line=line,
                          construct=self.construct, hint=self.hint)

    def _render(self) -> str:
        where = ""
        if self.filename is not None:
            line = f"{self.line}: " if self.line is not None else " "
            where = f"{self.filename}:{line}"
        what = f"{self.construct}: " if self.construct else ""
        text = f"{where}{what}{self.message}"
        if self.hint:
            text += f"\n({self.hint})" if "\n" in text else f" ({self.hint})"
        return text


class UnsupportedSyntaxError(SrcadError):
    """The function uses a construct srcad does not differentiate."""


class UnsupportedCallError(SrcadError):
    """The function calls something srcad has no derivative rule for."""


class ActivityError(SrcadError):
    """Annotations that would give silently wrong derivatives (e.g. a Const array written with
    values that depend on active inputs)."""


class ArgumentError(SrcadError):
    """Arguments or annotations that do not fit the function or each other."""


class StaleSourceError(SrcadError):
    """The function's source file no longer holds the code the function runs (edited after
    the function was defined, or a function object kept from before a module reload)."""
