"""Writes into a value defined outside the function (`calls[0] += 1` on a module-level list,
`G[i] = v` on a global array) are refused by line: srcad reads globals as constants of the
derivative code (checked for staleness, srcad/build/pipeline.py), and a derivative may run
the function's code more than once a call, so such a write would not happen as Python does
it.
"""

from __future__ import annotations

import builtins

import gast

from srcad.frontend import syntax as S


def global_write_refusals(parsed, body, local_functions=(), enclosing=()) -> list:
    """(node, refusal) for each assignment in `body` writing an element of a name not bound
    in the function (a global, a closure's variable); `enclosing`: the names bound by the
    function a local function is inlined into, whose arrays it may write (inlined, the write
    is that function's own, run once per call as written)."""
    args = parsed.tree.args
    bound = {a.id for a in list(args.args) + list(args.kwonlyargs)
             + list(getattr(args, "posonlyargs", None) or []) + [args.vararg, args.kwarg]
             if a is not None} | set(local_functions) | set(enclosing)
    bound |= {n.id for stmt in body for n in S.walk(stmt)
              if isinstance(n, gast.Name) and isinstance(n.ctx, gast.Store)}
    out = []
    for stmt in body:
        for node in S.walk(stmt):
            targets = node.targets if isinstance(node, gast.Assign) else \
                [node.target] if isinstance(node, gast.AugAssign) else []
            for target in targets:
                root = _written_root(target)
                if root is None or root.id in bound or hasattr(builtins, root.id):
                    continue
                out.append((node, parsed.error(
                    node, "write to a global", f"`{S.unparse_expr(target)}` writes into "
                    f"`{root.id}`, which is defined outside the function (a global, or a "
                    "variable of an enclosing function): srcad reads such values as constants, "
                    "and its derivative code may run your code more than once per call",
                    hint="pass it as an argument and write it there, or make the write "
                    "outside the differentiated function")))
                break
    return out


def _written_root(target):
    """The name whose element `target` writes (`calls` of `calls[0]`, `G` of `G[i][j]`), or
    None when `target` is not an element write."""
    if not isinstance(target, gast.Subscript):
        return None
    while isinstance(target, gast.Subscript):
        target = target.value
    return target if isinstance(target, gast.Name) else None
