"""Errors srcad raises instead of returning a derivative it cannot vouch for.

Every refusal names the file, the line and the construct, and says what to do instead.
"""

from __future__ import annotations

import os

from srcad.display import error_html, error_lines


def debugging() -> bool:
    """SRCAD_DEBUG=1 (or any value but 0 or empty) keeps srcad's own frames in the
    tracebacks of its errors, for debugging srcad itself."""
    return os.environ.get("SRCAD_DEBUG", "") not in ("", "0")


def surfaced(err: BaseException) -> BaseException:
    """`err` to re-raise (`raise surfaced(err) from None`) at the public API: without srcad's
    inner frames, which say nothing about the user's code (the message names its file and
    line), so the traceback ends at the user's call; SRCAD_DEBUG=1 keeps them."""
    return err if debugging() else err.with_traceback(None)


_PACKAGE = os.path.dirname(os.path.abspath(__file__)) + os.sep


# the file names of the plain functions srcad writes around an f of a float
# (srcad/build/engines.py: scalar_as_array)
WRAPPER = "<srcad wrapper "


def _is_srcads_own(filename) -> bool:
    """Is `filename` a file of srcad's own package (its runtime helpers)?"""
    return bool(filename) and not filename.startswith("<") \
        and os.path.abspath(filename).startswith(_PACKAGE)


class SrcadError(Exception):
    """srcad refuses to differentiate something (never a silently wrong answer).

    >>> str(SrcadError("no rule for 'foo'", filename="m.py", line=3, construct="call"))
    "m.py:3: call: no rule for 'foo'"
    """

    def __init__(self, message, *, filename=None, line=None, construct=None, hint=None,
                 column=None, context=None):
        self.message = message
        self.filename = filename
        self.line = line
        self.column = column  # 1-based, as editors count
        self.problems = [self]  # a combined error lists every problem it stands for
        self.construct = construct
        self.hint = hint
        # where the refused code runs from, when not in the function itself ("in g, called
        # from f at line 12"): told after the message, not part of what is refused
        self.context = context
        self.node = None  # the tree node refused, when known (what is set aside for it)
        super().__init__(self._render())

    def at(self, filename, line) -> SrcadError:
        """The same error, located at `filename:line` (when it had no location)."""
        if self.filename is not None:
            return self
        return type(self)(self.message, filename=filename, line=line,
                          construct=self.construct, hint=self.hint, context=self.context)

    def called_from(self, callee: str, caller: str, filename: str, line: int) -> SrcadError:
        """This error (each of its problems) as met while inlining `callee`, called by
        `caller` at `filename:line`: the context says so (each further call adds its caller).

        >>> e = SrcadError("no", filename="/h.py", line=3, column=5, construct="dict")
        >>> print(e.called_from("g", "f", "/h.py", 9).called_from("f", "main", "/m.py", 2))
        /h.py:3:5: dict: no; in g, called from f at line 9, from main at m.py:2
        """
        problems = []
        for p in self.problems:
            if _is_srcads_own(p.filename) and not _is_srcads_own(filename):
                # srcad's own helper, read as code to inline (second order differentiates
                # srcad's generated code, which calls it): refused at the call, which names
                # the user's line, never srcad's file
                copy = type(p)(p.message, filename=filename, line=line, construct=p.construct,
                               hint=p.hint, context=p.context)
                copy.node = p.node
                problems.append(copy)
                continue
            if filename.startswith(WRAPPER):  # srcad's call of f (a float x as an array):
                problems.append(p)  # the user called f; no caller of theirs to name
                continue
            where = f"line {line}" if filename == p.filename else \
                f"{os.path.basename(filename)}:{line}"
            context = f"{p.context}, from {caller} at {where}" if p.context else \
                f"in {callee}, called from {caller} at {where}"
            copy = type(p)(p.message, filename=p.filename, line=p.line, construct=p.construct,
                           hint=p.hint, column=p.column, context=context)
            copy.node = p.node
            problems.append(copy)
        return problems[0] if len(problems) == 1 else \
            SrcadError.combine(problems, function=callee, filename=self.filename)

    @classmethod
    def combine(cls, problems: list, function: str | None = None,
                filename: str | None = None) -> SrcadError:
        """One error for several problems, listing all in source order (those in the
        function's own file first) so that a single run shows everything to fix; one problem
        is returned as it is. The error is of the most specific class every problem is an
        instance of (at least `cls`'s base, SrcadError), located at the first problem. A
        problem of the batch layout (LaneLayoutError: the default layout runs such code in
        chunks of unrolled lanes instead) is left out when there are others.

        >>> a = SrcadError("no", filename="/m.py", line=3, column=5, construct="with")
        >>> b = SrcadError("no", filename="/m.py", line=2, column=1, construct="del")
        >>> print(SrcadError.combine([a, b], function="f", filename="/m.py"))
        srcad refuses 2 constructs in f (m.py):
          /m.py:2:1: del: no
          /m.py:3:5: with: no
        """
        if len(problems) > 1 and not all(isinstance(p, LaneLayoutError) for p in problems):
            problems = [p for p in problems if not isinstance(p, LaneLayoutError)]
        problems = sorted(problems, key=lambda p: (filename is not None
                                                   and p.filename != filename,
                                                   p.line or 0, p.column or 0))
        if len(problems) == 1:
            return problems[0]
        kind = next(k for k in type(problems[0]).__mro__
                    if all(isinstance(p, k) for p in problems))
        first = problems[0]
        where = os.path.basename(filename or first.filename or "")
        what = f" in {function}" if function else ""
        listing = "\n".join("  " + p._render() for p in problems)
        error = kind(f"srcad refuses {len(problems)} constructs{what}"
                     f"{f' ({where})' if where else ''}:\n{listing}")
        # located at the first problem (for tools), after the header is written without it
        error.filename, error.line, error.column = first.filename, first.line, first.column
        error.problems = problems
        return error

    def _repr_html_(self) -> str:
        return error_html(self)

    def _render_traceback_(self) -> list[str]:
        """IPython shows these lines instead of a traceback (SRCAD_DEBUG=1 keeps it)."""
        if debugging():
            raise NotImplementedError  # IPython then prints the full traceback
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
        if self.context:
            text += f"; {self.context}"
        if self.hint:
            text += f"\n({self.hint})" if "\n" in text else f" ({self.hint})"
        return text


class UnsupportedSyntaxError(SrcadError):
    """The function uses a construct srcad does not differentiate.

    >>> import srcad
    >>> def f(x):
    ...     try:
    ...         return x * x
    ...     except ValueError:
    ...         return 0.0
    >>> try:
    ...     srcad.grad(f)(1.0)
    ... except srcad.UnsupportedSyntaxError as refusal:
    ...     print(refusal.construct)
    try/except
    """


class LaneLayoutError(UnsupportedSyntaxError):
    """Whole-array code refused in a layout of vector lanes (lanes in arrays): srcad's default
    batch layout runs such code in chunks of unrolled lanes instead (api.autodiff)."""


class UnsupportedCallError(SrcadError):
    """The function calls something srcad has no derivative rule for.

    >>> import statistics, srcad
    >>> def f(x):
    ...     return statistics.median_low([x, 1.0, 2.0])
    >>> try:
    ...     srcad.grad(f)(1.0)
    ... except srcad.UnsupportedCallError as refusal:
    ...     print(refusal.construct)
    call
    """


class ActivityError(SrcadError):
    """Annotations that would give silently wrong derivatives (e.g. a Const array written with
    values that depend on active inputs).

    >>> import numpy as np, srcad
    >>> def f(x, buf):
    ...     buf[0] = x * x
    ...     return buf[0]
    >>> try:
    ...     srcad.autodiff(srcad.Reverse, f, srcad.Active(1.0), np.zeros(1))
    ... except srcad.ActivityError as refusal:
    ...     print(refusal.construct)
    write into a Const array
    """


class SecondOrderRefusal(SrcadError):
    """A refusal met only when srcad differentiates its own derivative code again (hessian,
    hvp), already told in the user's words (a custom rule with no second derivative): second
    order puts it at the user's line and keeps its message."""


class RunTimeRefusal(SrcadError, ValueError):
    """A check of generated code refused the values it met when it ran, at the user's line (an
    int power numba cannot compute as Python does, rows of two lengths in one list); a
    ValueError too, as the check raised it."""


class ArgumentError(SrcadError):
    """Arguments or annotations that do not fit the function or each other.

    >>> import srcad
    >>> def f(x):
    ...     return x * x
    >>> try:
    ...     srcad.autodiff(srcad.Reverse, f, srcad.Active(1.0), 2.0)
    ... except srcad.ArgumentError as refusal:
    ...     print(type(refusal).__name__)
    ArgumentError
    """


class LoopShapeError(SrcadError):
    """An array a loop carries changed shape in the loop (`y = y + v` broadcast a (1,) `y`
    to (3,)). Reverse mode takes such an array to keep its shape (the adjoints of what is
    computed from it are then zeroed in place, nothing recorded), so the generated code checks
    that it did, after each binding, and raises this at the user's call instead of returning a
    wrong derivative. Raised by generated code (python and numba): positional arguments."""

    def __init__(self, name, filename, line, old, new):
        super().__init__(f"`{name}` changes shape in the loop, from {tuple(old)} to "
                         f"{tuple(new)}: reverse mode needs an array the loop carries to keep "
                         "its shape across iterations", filename=filename, line=line,
                         construct="array that changes shape in a loop",
                         hint=f"bind `{name}` with its full shape before the loop "
                         f"(`{name} = {name} * np.ones({tuple(new)})`)")


class StaleSourceError(SrcadError):
    r"""The function's source file no longer holds the code the function runs (edited after
    the function was defined, or a function object kept from before a module reload).

    srcad differentiates the text of the function, so it refuses rather than differentiate
    text the function does not run:

    >>> import pathlib, sys, tempfile
    >>> import srcad
    >>> folder = pathlib.Path(tempfile.mkdtemp())
    >>> _ = (folder / "edited_model.py").write_text("def f(x):\n    return x * x\n")
    >>> sys.path.insert(0, str(folder))
    >>> import edited_model
    >>> _ = (folder / "edited_model.py").write_text("def f(x):\n    return x * x * x\n")
    >>> srcad.grad(edited_model.f)(3.0)  # doctest: +ELLIPSIS
    Traceback (most recent call last):
        ...
    srcad.errors.StaleSourceError: ...
    >>> sys.path.remove(str(folder)); del sys.modules["edited_model"]
    """


class PreparationMismatchError(ArgumentError):
    """A preparation used with another function, other argument kinds, shapes or dtypes.

    >>> import numpy as np, srcad
    >>> def f(x):
    ...     return float(np.sum(x * x))
    >>> prep = srcad.prepare_gradient(f, np.zeros(2))
    >>> try:
    ...     srcad.gradient(f, np.zeros(3), prep=prep)
    ... except srcad.PreparationMismatchError as refusal:
    ...     print(type(refusal).__name__)
    PreparationMismatchError
    """
