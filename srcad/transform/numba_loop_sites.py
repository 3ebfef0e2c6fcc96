"""numba rewrites of one loop at a time: every statement list of a tree that holds a `for`
loop, each such loop replaced by the statements a rewrite returns for it (or kept).

>>> import ast, gast
>>> from srcad.frontend import syntax as S
>>> tree = gast.Module(body=S.parse_stmts("for i in range(3):\\n    s += i\\nif c:\\n"
...                                       "    for j in range(2):\\n        t += j\\n"),
...                    type_ignores=[])
>>> def doubled(loop):
...     return None if loop.target.id == "i" else [loop, S.clone(loop)]
>>> print(ast.unparse(gast.gast_to_ast(replace_loops(tree, doubled))))
for i in range(3):
    s += i
if c:
    for j in range(2):
        t += j
    for j in range(2):
        t += j
"""

from __future__ import annotations

import gast

from srcad.frontend import syntax as S


def replace_loops(tree, rewrite):
    """`tree` (changed in place) with each `for` loop of each of its statement lists replaced
    by `rewrite(loop)` (a list of statements), or kept where that is None. The lists are the
    tree's before the rewrite, outer first: a loop is offered once, the statements a rewrite
    returns are not offered again."""
    for holder in list(S.walk(tree)):
        for field in ("body", "orelse"):
            body = getattr(holder, field, None)
            if isinstance(body, list) and any(isinstance(s, gast.For) for s in body):
                out = []
                for stmt in body:
                    new = rewrite(stmt) if isinstance(stmt, gast.For) else None
                    out += [stmt] if new is None else new
                setattr(holder, field, out)
    return tree


def after_docstring(fn) -> int:
    """The index in `fn`'s body where statements made for the whole function go: after its
    docstring, if it has one."""
    return 1 if fn.body and isinstance(fn.body[0], gast.Expr) \
        and isinstance(fn.body[0].value, gast.Constant) else 0
