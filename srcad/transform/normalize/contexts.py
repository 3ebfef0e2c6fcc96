"""Context managers that only change how floating-point errors and warnings are reported:
`with np.errstate(divide="ignore"):`, `with warnings.catch_warnings():` and
`with contextlib.nullcontext():` around differentiable code (runs first in lowering, before
the fence).

The `with` goes and its body stays; the context expressions are kept in `parsed.contexts`, and
the generated code runs inside them on every call (srcad/build/running.py `inside_contexts`),
so the body (and its derivative) runs with the reporting the user asked for. Allowed: a call
of one of those on constants (no local name), without `as`; np.errstate's settings "ignore",
"warn" or "print" (with "raise", "call" or "log" an error changes the control flow, and the
derivative code's own infinities would raise too). Any other `with` stays for the fence to
refuse by line. A helper's context expressions are evaluated in the helper's own namespace
(`helper_contexts`): the caller's module may not import `warnings`, or bind `np` to
something else.
"""

from __future__ import annotations

import contextlib
import functools
import warnings

import gast
import numpy as np

from srcad.frontend import syntax as S
from srcad.frontend.parse import resolve_callee

_CONTEXTS = (np.errstate, warnings.catch_warnings, contextlib.nullcontext)
_QUIET = ("ignore", "warn", "print")


def strip_contexts(parsed, body: list) -> list:
    """`body` with each allowed `with` replaced by its body; `parsed.contexts` lists their
    context expressions."""
    locals_ = {n.id for s in body for n in S.walk(s) if isinstance(n, gast.Name)
               and not isinstance(n.ctx, gast.Load)} | {a.id for a in parsed.tree.args.args}
    parsed.contexts = []
    return _block(parsed, body, locals_)


def _block(parsed, stmts, locals_) -> list:
    out = []
    for stmt in stmts:
        for field in ("body", "orelse", "finalbody"):
            if isinstance(getattr(stmt, field, None), list):
                setattr(stmt, field, _block(parsed, getattr(stmt, field), locals_))
        if isinstance(stmt, gast.With) and all(_allowed(parsed, item, locals_)
                                               for item in stmt.items):
            parsed.contexts.extend(item.context_expr for item in stmt.items)
            out.extend(stmt.body)
        else:
            out.append(stmt)
    return out


def _allowed(parsed, item, locals_) -> bool:
    call = item.context_expr
    if item.optional_vars is not None or not isinstance(call, gast.Call):
        return False
    if resolve_callee(parsed, call.func, {}) not in _CONTEXTS:
        return False
    if any(isinstance(n, gast.Name) and n.id in locals_ for n in S.walk(call)):
        return False
    for keyword in call.keywords:
        value = keyword.value
        if resolve_callee(parsed, call.func, {}) is np.errstate and not (
                isinstance(value, gast.Constant) and value.value in _QUIET):
            return False
    return not (resolve_callee(parsed, call.func, {}) is np.errstate and call.args)


def helper_contexts(parsed, helper) -> list:
    """The context expressions of an inlined helper (`helper.contexts`) as calls the caller's
    code evaluates: each call, of a function bound in `parsed.namespace`, makes the context
    manager from its expression in the helper's namespace, anew at every call."""
    calls = []
    for expr in helper.contexts:
        code = compile(S.unparse_expr(expr), helper.filename, "eval")
        name_, k = "srcad_helper_context", 0
        while name_ in parsed.namespace:
            k += 1
            name_ = f"srcad_helper_context_{k}"
        parsed.namespace[name_] = functools.partial(eval, code, helper.namespace)
        calls.append(S.call(name_))
    return calls
