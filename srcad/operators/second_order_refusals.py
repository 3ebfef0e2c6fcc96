"""A second-order refusal suggests another backend or mode only when srcad has checked that
it takes this f: a suggestion in a refusal is one that works.

Second order differentiates srcad's own generated code again, so whether another backend or
mode takes f is not known from the refusal itself (the numba backend once suggested
`backend='python', mode='reverse-over-forward'`, which refused the same f again). The
operators (srcad/operators/second_order_setup.py) pass the alternatives to try in order; the
first one that prepares is the hint, and with none the refusal suggests no other backend or
mode.
"""

from __future__ import annotations

from collections.abc import Callable

from srcad.errors import ArgumentError, SrcadError


def with_checked_suggestion(err: SrcadError,
                            alternatives: list[tuple[str, Callable[[], object]]]) -> SrcadError:
    """`err`, its problems' hints completed by the first alternative `(hint, prepare)` whose
    `prepare()` succeeds (the preparation is cached, so following the hint is quick), or
    `err` itself when none does. An ArgumentError (f's arguments, f writing its input) is
    about f whatever the backend: returned as it is.

    >>> err = SrcadError("no", construct="call", hint="write a loop")
    >>> print(with_checked_suggestion(err, [("use backend='python'", lambda: None)]))
    call: no (write a loop; or use backend='python')
    >>> both = SrcadError.combine([SrcadError("a", line=1), SrcadError("b", line=2)])
    >>> print(with_checked_suggestion(both, [("use backend='python'", lambda: None)]))
    srcad refuses 2 constructs:
      a
      b
    (use backend='python')
    >>> def refuses():
    ...     raise SrcadError("no again")
    >>> print(with_checked_suggestion(err, [("use backend='python'", refuses)]))
    call: no (write a loop)
    """
    if isinstance(err, ArgumentError):
        return err
    for hint, prepare in alternatives:
        try:
            prepare()
        except SrcadError:
            continue
        return _hinted(err, hint)
    return err


def _hinted(err: SrcadError, hint: str) -> SrcadError:
    """`err` with `hint` added: to its one problem, or once after the list of several."""
    if len(err.problems) == 1:
        p = err.problems[0]
        told = type(p)(p.message, filename=p.filename, line=p.line, construct=p.construct,
                       hint=f"{p.hint}; or {hint}" if p.hint else hint, column=p.column,
                       context=p.context)
        told.node = p.node
        return told
    told = type(err)(err.message, hint=hint)
    told.filename, told.line, told.column = err.filename, err.line, err.column
    told.problems = err.problems
    return told
