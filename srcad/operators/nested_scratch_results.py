"""Kernel results in the workspace where the numba code uses them at once.

A nested gradient's kernel returns fresh arrays (srcad/operators/nested_kernels.py): the
caller may keep them. Where every use of a result is consumed on the spot, an operand of
arithmetic (`-1.0 * k(...)`, which makes a new array) or added into an array
(`x_bar += k(...)`, `x_bar += unshared(x_bar, k(...))`), the kernel may return views of the
workspace instead (its `_scratch` variant), and the call allocates nothing:

    xddot = -1.0 * srcad_nested_gradient_1(x, w)
    ->  xddot = -1.0 * srcad_nested_gradient_1_scratch(x, w)

Guarantees: a call is rewritten only when its statement holds no other kernel call, and each
use of its result is one of those forms: directly, or, for a kernel returning a tuple bound
to a name by nested_adjoint_runs.py or nested_gradient_pairs.py, through `name[k]` in the
statements that rewrite made (which hold no other kernel call). A result bound to a name or
passed to anything else keeps the fresh array. The views die before the next kernel call.

>>> import gast
>>> from srcad.build.codegen import to_source
>>> tree = gast.parse("g = -1.0 * srcad_nested_gradient_1(x, w)\\n"
...                   "h = srcad_nested_gradient_1(x, w)")
>>> sorted(scratch_results(tree, {"srcad_nested_gradient_1"}))
['srcad_nested_gradient_1']
>>> print(to_source(tree).strip())
g = -1.0 * srcad_nested_gradient_1_scratch(x, w)
h = srcad_nested_gradient_1(x, w)
"""

from __future__ import annotations

import gast

from srcad.frontend import syntax as S

SUFFIX = "_scratch"


def scratch_results(tree, kernels) -> set:
    """Rename the calls of `kernels` whose results are consumed on the spot (in place);
    the kernels that need a `_scratch` variant."""
    parents = {child: node for node in gast.walk(tree) for child in gast.iter_child_nodes(node)}
    statement_of = {}
    for statement in (n for n in gast.walk(tree) if isinstance(n, gast.stmt)):
        for node in S.statement_expressions(statement):
            statement_of[node] = statement
    calls = [n for n in gast.walk(tree) if isinstance(n, gast.Call)
             and isinstance(n.func, gast.Name) and n.func.id in kernels]
    per_statement: dict = {}
    for call in calls:
        per_statement.setdefault(statement_of.get(call), []).append(call)
    uses = _name_uses(tree)
    renamed = set()
    for call in calls:
        statement = statement_of.get(call)
        if statement is None or len(per_statement[statement]) != 1:
            continue
        parent = parents.get(call)
        if isinstance(parent, gast.Assign) and len(parent.targets) == 1 \
                and isinstance(parent.targets[0], gast.Name) \
                and parent.targets[0].id.startswith(("srcad_pair_", "srcad_adjoints_")):
            reads = uses.get(parent.targets[0].id, [])
            ok = bool(reads) and all(_consumed(read, parents) for read in reads) \
                and all(call is c for read in reads
                        for c in per_statement.get(statement_of.get(read), [call]))
        else:
            ok = _consumed(call, parents)
        if ok:
            renamed.add(call.func.id)
            call.func = gast.Name(call.func.id + SUFFIX, gast.Load(), None, None)
    return renamed


def _name_uses(tree) -> dict:
    """name -> the `name[k]` reads of it (a read of it in any other form: None)."""
    uses: dict = {}
    parents = {child: node for node in gast.walk(tree) for child in gast.iter_child_nodes(node)}
    for node in gast.walk(tree):
        if isinstance(node, gast.Name) and isinstance(node.ctx, gast.Load):
            parent = parents.get(node)
            ok = isinstance(parent, gast.Subscript) and parent.value is node \
                and isinstance(parent.slice, gast.Constant)
            uses.setdefault(node.id, []).append(parent if ok else None)
    return uses


def _consumed(node, parents) -> bool:
    """Is the array `node` used up where it stands: an operand of arithmetic, or added into
    an array (directly or through `unshared`)?"""
    if node is None:
        return False
    parent = parents.get(node)
    if isinstance(parent, (gast.BinOp, gast.UnaryOp)):
        return True
    if isinstance(parent, gast.Call) and isinstance(parent.func, gast.Name) \
            and parent.func.id == "unshared" and len(parent.args) == 2 \
            and parent.args[1] is node:
        node, parent = parent, parents.get(parent)
    return isinstance(parent, gast.AugAssign) and parent.value is node
