"""Errors srcad raises instead of returning a derivative it cannot vouch for.

Every refusal names the file, the line and the construct, and says what to do instead.
"""

from __future__ import annotations

import os


def debugging() -> bool:
    """SRCAD_DEBUG=1 (or any value but 0 or empty) keeps srcad's own frames in the
    tracebacks of its errors, for debugging srcad itself."""
    return os.environ.get("SRCAD_DEBUG", "") not in ("", "0")


def surfaced(err: BaseException) -> BaseException:
    """`err` to re-raise (`raise surfaced(err) from None`) at the public API: without srcad's
    inner frames, which say nothing about the user's code (the message names its file and
    line), so the traceback ends at the user's call; SRCAD_DEBUG=1 keeps them."""
    return err if debugging() else err.with_traceback(None)


class SrcadError(Exception):
    """srcad refuses to differentiate something (never a silently wrong answer).

    >>> str(SrcadError("no rule for 'foo'", filename="m.py", line=3, construct="call"))
    "m.py:3: call: no rule for 'foo'"
    """

    def __init__(self, message, *, filename=None, line=None, construct=None, hint=None,
                 column=None):
        self.message = message
        self.filename = filename
        self.line = line
        self.column = column  # 1-based, as editors count
        self.problems = [self]  # a combined error lists every problem it stands for
        self.construct = construct
        self.hint = hint
        super().__init__(self._render())

    def at(self, filename, line) -> SrcadError:
        """The same error, located at `filename:line` (when it had no location)."""
        if self.filename is not None:
            return self
        return type(self)(self.message, filename=filename, line=line,
                          construct=self.construct, hint=self.hint)

    @classmethod
    def combine(cls, problems: list) -> SrcadError:
        """One error for several problems: located at the first, listing all (in source
        order) so that a single run shows everything to fix."""
        problems = sorted(problems, key=lambda p: (p.line or 0, p.column or 0))
        if len(problems) == 1:
            return problems[0]
        first = problems[0]
        listing = "\n".join("  " + p._render() for p in problems)
        error = cls(f"{len(problems)} constructs srcad does not differentiate:\n{listing}",
                    filename=first.filename, line=first.line, column=first.column,
                    construct=None)
        error.problems = problems
        return error

    def _repr_html_(self) -> str:
        from srcad.display import error_html
        return error_html(self)

    def _render_traceback_(self) -> list[str]:
        """IPython shows these lines instead of a traceback (SRCAD_DEBUG=1 keeps it)."""
        if debugging():
            raise NotImplementedError  # IPython then prints the full traceback
        from srcad.display import error_lines
        return error_lines(self)

    def _render(self) -> str:
        where = ""
        if self.filename is not None:
            line = f"{self.line}: " if self.line is not None else " "
            if self.line is not None and self.column is not None:
                line = f"{self.line}:{self.column}: "
            where = f"{self.filename}:{line}"
        what = f"{self.construct}: " if self.construct else ""
        text = f"{where}{what}{self.message}"
        if self.hint:
            text += f"\n({self.hint})" if "\n" in text else f" ({self.hint})"
        return text


class UnsupportedSyntaxError(SrcadError):
    """The function uses a construct srcad does not differentiate."""


class LaneLayoutError(UnsupportedSyntaxError):
    """Whole-array code refused in a layout of vector lanes (lanes in arrays): srcad's default
    batch layout runs such code in chunks of unrolled lanes instead (api.autodiff)."""


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
