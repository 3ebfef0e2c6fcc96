"""The numba backend's module: the source numba compiles and the names its namespace binds.

`assemble` runs after code generation: the source numba compiles is the generated tree after
`compiled_tree`'s rewrites (loop counters index without wraparound), while `srcad.source`, what
later stages rewrite and what the nested kernels are made from, shows the plain subscripts; the
module binds the free names of both. `compile_assembled` compiles it with the nested kernels'
helpers, and wraps it in the over-budget fallback where a loop's tape may not fit.
"""

from __future__ import annotations

import functools
from dataclasses import dataclass

import gast

from srcad.build.checkpoint_fallback import over_budget_fallback
from srcad.build.codegen import to_source
from srcad.build.compiler import compile_numba
from srcad.frontend import syntax as S
from srcad.transform.numba_stage import compiled_tree


@dataclass
class NumbaAssembly:
    """The source numba compiles and the free names of the generated code."""

    source: str
    free: set


def assemble(tree, types, counters, fused, retraced) -> NumbaAssembly:
    """The compiled source of the generated `tree` and the free names of the tree before and
    after `compiled_tree`'s rewrites (nested kernels are made from the code before them)."""
    free = _free_names(tree)
    source = to_source(compiled_tree(tree, types, counters, fused, *retraced))
    free |= _free_names(tree)
    return NumbaAssembly(source, free)


def compile_assembled(assembly: NumbaAssembly, parsed, request, name, namespace, fused,
                      nested, tapes):
    """The numba function of `assembly`, its namespace given the fused loops of the code and
    of the nested kernels' code; behind the over-budget fallback where a loop may be over the
    tape budget."""
    namespace.update(fused)
    namespace.update(nested.fused)  # the fused loops of the nested kernels' code
    free = assembly.free | _free_names(gast.parse(nested.helpers))
    function = compile_numba(assembly.source, name, namespace, free - nested.names,
                             parsed.filename,
                             helpers=nested.helpers,
                             locate=functools.partial(_call_line, parsed),
                             cache=getattr(nested, "cacheable", True))
    if "TapeOverBudget" in free:  # a loop may be over the budget: the fallback's code
        function = over_budget_fallback(function, parsed, request, tapes)
    return function


def _call_line(parsed, callee: str) -> int | None:
    """The line of the first call of `callee` (dotted, as written) in the user's function."""
    for node in S.walk(parsed.tree):
        if isinstance(node, gast.Call) and S.unparse_expr(node.func) == callee:
            return parsed.line_of(node)
    return None


def _free_names(tree) -> set:
    loaded = {n.id for n in S.walk(tree) if isinstance(n, gast.Name)
              and isinstance(n.ctx, gast.Load)}
    bound = {n.id for n in S.walk(tree) if isinstance(n, gast.Name)
             and isinstance(n.ctx, (gast.Store, gast.Param))}
    return loaded - bound
