"""Calls of the user's recursive helpers: left as calls of the recursion primitive instead of
inlined (srcad inlines its helpers, and a helper that calls itself would inline without end).

A module-level function of the user's that reaches itself through the user's functions it
calls (`det_of_minor -> det_of_minor`, or `even -> odd -> even`) is *recursive*. A call of it
in the differentiated code becomes

    srcad_recursive_call(token, a0, ..., an)

with the arguments bound as Python binds them (keywords and defaults in parameter order),
`token` naming the helper. The primitive (srcad/operators/recursion.py, which registers it
in `PRIMITIVE` when imported) runs the helper itself, and its rule differentiates the helper
as its own function, at run time, with the arguments of that activation: the reverse of a
recursive helper is its own reverse code, which meets the recursive calls again as this
primitive (joint reversal, as Tapenade reverses a call by default). See docs/design.md
("Recursion").

A recursive function defined inside the differentiated one (a nested `def`) reads its
enclosing variables through its closure, which the primitive cannot see: it stays refused
(srcad/transform/normalize/inline.py names the cycle).
"""

from __future__ import annotations

import types
import weakref

import gast

from srcad.frontend import syntax as S
from srcad.frontend.parse import parse_function, resolve_callee
from srcad.runtime.runtime_names import RECURSION_RUNTIME_NAMES

# registered by srcad/operators/recursion.py when imported (srcad's `__init__` imports it):
# "function", the primitive's object, and "token_for", `token_for(helper)`
PRIMITIVE: dict = {}

_CYCLES: weakref.WeakKeyDictionary = weakref.WeakKeyDictionary()  # function -> bool


def _user_callees(func, is_user_function) -> list:
    """The module-level functions of the user's that `func`'s body calls by name."""
    parsed = parse_function(func)
    found = []
    for node in S.walk(parsed.tree):
        if isinstance(node, gast.Call):
            obj = resolve_callee(parsed, node.func, {})
            obj = getattr(obj, "__srcad_wrapped__", obj)
            if isinstance(obj, types.FunctionType) and is_user_function(obj, func):
                found.append(obj)
    return found


def is_recursive(func, is_user_function) -> bool:
    """Does the module-level function `func` call itself, directly or through the user's
    functions it calls? (`is_user_function`: which callees are the user's.)"""
    if not isinstance(func, types.FunctionType) or "<locals>" in func.__qualname__ \
            or not PRIMITIVE:
        return False
    known = _CYCLES.get(func)
    if known is not None:
        return known
    seen, pending, found = {id(func)}, [func], False
    while pending and not found:
        try:
            callees = _user_callees(pending.pop(), is_user_function)
        except Exception:  # noqa: BLE001  (no source: the inliner says why when it gets there)
            continue
        for callee in callees:
            if callee is func:
                found = True
                break
            if id(callee) not in seen:
                seen.add(id(callee))
                pending.append(callee)
    _CYCLES[func] = found
    return found


def opened_helper(function):
    """The recursive helper whose body `function` (a shim srcad made to differentiate that
    helper, srcad/operators/recursion.py) inlines once, or None."""
    return getattr(function, "srcad_recursive_body", None)


def kept_as_call(callee, stack, is_user_function) -> bool:
    """Is a call of `callee`, inlined inside the functions `stack` (the differentiated one
    first), kept as a call of the recursion primitive? Yes for a recursive helper, but in
    the shim that differentiates that very helper, whose body is inlined once."""
    return is_recursive(callee, is_user_function) and not (
        callee is opened_helper(stack[-1]) and callee not in stack)


def recursion_refused(parsed, stack, callee, call):
    """The refusal of a call of `callee` that closes a cycle of the functions `stack` being
    inlined (a recursive local function): srcad inlines the user's functions, and a recursive
    derivative would need a tape per call depth. The message names the cycle and the call
    that closes it; the hint gives the loop form."""
    chain = list(stack[stack.index(callee):]) + [callee]
    cycle = " -> ".join(getattr(f, "__name__", "?") for f in chain)
    how = "calls itself" if len(chain) == 2 else "calls itself indirectly"
    return parsed.error(
        call, "recursion", f"{callee.__name__} {how} ({cycle}); recursion is not "
        "supported", hint=f"write {callee.__name__} as a loop: keep the pending "
        "sub-problems in an explicit stack (an array and a counter) or visit them in a "
        "fixed order with nested loops; a determinant by expansion in minors, for "
        "instance, becomes elimination in loops, or np.linalg.det, which srcad "
        "differentiates")


def recursive_call(parsed, helper, call, bound: list, helper_parsed):
    """The call of the recursion primitive for the call `call` (in `parsed`) of `helper`,
    with the arguments `bound` ([(parameter, expression)] in parameter order)."""
    if helper_parsed.tree.args.kwonlyargs:
        raise parsed.error(call, "recursion", f"the recursive helper {helper.__name__} has "
                           "keyword-only parameters", hint="make them positional parameters")
    name = RECURSION_RUNTIME_NAMES[0]
    parsed.namespace[name] = PRIMITIVE["function"]
    token = PRIMITIVE["token_for"](helper)
    parsed.expressions[f"{name}#{token}"] = S.clone(call.func)  # messages say `det(a, n)`
    new = gast.Call(func=S.name(name), args=[S.const(token)] + [expr for _, expr in bound],
                    keywords=[])
    return gast.copy_location(new, call)
