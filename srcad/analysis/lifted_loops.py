"""A loop the python backend runs on all its iterations at once, read as the loop it is.

srcad/transform/parallel_loops.py replaces a loop `for i in range(a, b)` by

    if <the arrays and numbers it needs>:
        <its range and block size>
        for start in range(...):   # the blocks (srcad/transform/parallel_blocks.py)
            stop = ...
            try:
                <pending lists>; with np.errstate(...): <the loop's statements on arrays>
                <the writes>; <the names read after>
            except Exception:
                for i in range(start, stop): <the loop's body>
    else:
        <the loop>

which writes exactly the elements the loop writes and reads the arrays only by indexing
(and their `ndim`, `dtype`, `shape`). Syntactic proofs over generated code (which tangents
are written before read, which arrays are only indexed: srcad/analysis/written_first.py)
read such a block as its loop.

>>> import ast
>>> tree = ast.parse('''
... def f(y, n):
...     if n > 0:
...         blocks = range(n)
...         for start in range(blocks.start, blocks.stop, 256):
...             stop = min(start + 256, blocks.stop)
...             try:
...                 with np.errstate(invalid='raise'):
...                     pass
...                 y[start:stop] = 1.0
...             except Exception:
...                 for i in range(start, stop):
...                     y[i] = 1.0
...     else:
...         for i in range(n):
...             y[i] = 1.0
... ''')
>>> print(ast.unparse(as_loops(tree.body[0])))
def f(y, n):
    for i in range(n):
        y[i] = 1.0
"""

from __future__ import annotations

import ast


def as_loops(function: ast.FunctionDef) -> ast.FunctionDef:
    """`function` (changed in place) with each lifted loop's block replaced by the loop."""
    for node in ast.walk(function):
        for field in ("body", "orelse", "finalbody"):
            block = getattr(node, field, None)
            if isinstance(block, list):
                block[:] = [_loop_of(s) or s for s in block]
    return function


def _loop_of(statement):
    if not (isinstance(statement, ast.If) and statement.body
            and isinstance(statement.body[-1], ast.For) and statement.body[-1].body
            and len(statement.orelse) == 1 and isinstance(statement.orelse[0], ast.For)):
        return None
    loop, attempt = statement.orelse[0], statement.body[-1].body[-1]
    if not (isinstance(attempt, ast.Try) and len(attempt.handlers) == 1
            and not attempt.orelse and not attempt.finalbody
            and any(isinstance(s, ast.With) for s in attempt.body)):
        return None
    fallback = attempt.handlers[0].body
    if len(fallback) == 1 and isinstance(fallback[0], ast.For) \
            and ast.dump(fallback[0].target) == ast.dump(loop.target) \
            and [ast.dump(s) for s in fallback[0].body] == [ast.dump(s) for s in loop.body]:
        return loop
    return None
