"""Calls whose derivative rule runs on one backend or in one mode only, refused by name where
they are written: on the numba backend the rules whose table entry declares why numba cannot
run them (`numba_refusal`: the movement family, einsum, the spectral functions, scipy.linalg,
a user's rule of a function that is not plain Python); in forward mode a `custom_vjp`
function (a reverse-mode rule only, as in JAX). A call on constants needs no
rule and is not refused here."""

from __future__ import annotations

import gast

from srcad.frontend import syntax as S
from srcad.frontend.parse import resolve_callee
from srcad.rules import lookup_call
from srcad.rules.table import lookup_listed, lookup_of_arrays


def refuse_rule_backends(norm, varied: set, backend: str, mode: str) -> None:
    """Add a refusal for each call whose argument carries a derivative and whose rule does
    not run on `backend` in `mode`."""
    for node in (n for stmt in norm.body for n in S.walk(stmt) if isinstance(n, gast.Call)):
        callee = resolve_callee(norm.parsed, node.func, norm.extra_names)
        listed = bool(node.args) and isinstance(node.args[0], (gast.List, gast.Tuple))
        info = lookup_call(callee) or (lookup_listed(callee) if listed
                                       else lookup_of_arrays(callee))
        if info is None:
            continue
        arguments = list(node.args) + [k.value for k in node.keywords]
        for argument, reason in refused_operands(node, info):
            if _carries(argument, varied):
                norm.refusals.add(norm.parsed.error(node, "call", reason, hint="pass a "
                                                    "constant there, or write the "
                                                    "function out"))
        numba = info.numba_refusal if backend == "numba" else ""
        reason = numba(len(arguments)) if callable(numba) else numba
        reason = reason or (info.forward_refusal if mode == "forward" else "")
        if not reason:
            continue
        if "{callee}" in reason:  # the function called, as the user wrote it
            reason = reason.replace("{callee}", norm.parsed.spelled(node).split("(")[0])
        if any(_carries(a, varied) for a in arguments):
            hint = "use backend='python'" if backend == "numba" and numba \
                else "use reverse mode (gradient, grad, jacrev, pullback)"
            error = norm.parsed.error(node, "call", reason, hint=hint)
            # a custom_vjp function in forward mode: second order then names the user's call
            # (srcad/operators/second_order_setup.py), not srcad's reverse code of f
            error.forward_refused_rule = not (backend == "numba" and numba)
            norm.refusals.add(error)


def _carries(argument, varied) -> bool:
    return any(isinstance(n, gast.Name) and n.id in varied for n in S.walk(argument))


def refused_operands(node, info):
    """(argument, reason) for each argument of the call `node` whose derivative the rule
    refuses: a keyword (scipy.stats.gamma.cdf(x, a): a), by position or by name, or an
    operand of the rule (scipy.special.iv(v, x): v), by position."""
    reasons = dict(info.refused_operands)
    if not reasons:
        return []
    operands = zip(info.rule.operands if info.rule is not None else info.operand_names,
                   node.args)
    positional = (*operands, *zip(info.keywords, node.args[info.operand_count:]))
    named = ((k.arg, k.value) for k in node.keywords)
    return [(value, reasons[name]) for name, value in (*positional, *named) if name in reasons]
