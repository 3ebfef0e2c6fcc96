"""What a function's generated code was built from, outside its own body: the module-level
names it reads, the module attributes its calls go through, and its closure cells.

The cache keeps these (srcad/transform/normalize/inline.py collects them while inlining) and
rebuilds the code when one of them is rebound, as a changed global would change the function.
"""

from __future__ import annotations

import types

import gast

from srcad.frontend import syntax as S
from srcad.frontend.parse import EMPTY_CELL, ParsedFunction, resolve_callee


def global_reads(parsed: ParsedFunction) -> list:
    """(globals dict, name, current object) for each module-level name the function reads
    (by the name the module binds: a global srcad renamed is read under its new name)."""
    original = {new: old for old, new in parsed.renamed.items()}
    names = {original.get(n, n) for n in S.loaded_names(parsed.tree)}
    closure = set(parsed.func.__code__.co_freevars)
    module = parsed.func.__globals__
    return [(module, n, module[n]) for n in sorted(names - closure) if n in module]


def attribute_reads(parsed: ParsedFunction, func_expr, extra: dict) -> list:
    """(module dict, attribute, object) for each module attribute a call's function expression
    reads (`helpers.square`, `package.module.f`): reloading that module rebinds them, which
    must rebuild the code like a rebound global."""
    if not isinstance(func_expr, gast.Attribute):
        return []
    base = resolve_callee(parsed, func_expr.value, extra)
    if not isinstance(base, types.ModuleType):
        return []
    return attribute_reads(parsed, func_expr.value, extra) + [
        (vars(base), func_expr.attr, getattr(base, func_expr.attr, None))]


def closure_reads(parsed: ParsedFunction) -> list:
    """(cell, object it held) for each closure variable of the function: the generated code
    is built from these values, so the cache checks that each cell still holds its object."""
    func = parsed.func
    return [(cell, parsed.namespace.get(name, EMPTY_CELL))
            for name, cell in zip(func.__code__.co_freevars, func.__closure__ or ())]
