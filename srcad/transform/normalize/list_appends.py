"""Appends to a list of known length at the top of the body: `xs = [1.0, a]` (or `xs = []`)
followed by `xs.append(e)` in straight-line code becomes `xs = [xs[0], xs[1], e]`, a list
literal one longer, which srcad/transform/lists.py splits into variables like any list of
known length. Appends inside loops and branches are left as written (a list grown by one
append per iteration of a loop becomes an array, srcad/transform/lists.py; others are
refused with their line). A list used any other way anywhere in the body (`ys = xs`,
`helper(xs)`, `xs.pop()`, an append in a loop) keeps all its appends as written.
"""

from __future__ import annotations

import gast

from srcad.frontend import syntax as S


def appends_to_literals(body: list) -> list:
    """`body` with the straight-line appends to known-length lists written as literals.

    >>> import gast
    >>> body = gast.parse("xs = [a]\\nxs.append(b)\\n").body
    >>> print(S.unparse_expr(appends_to_literals(body)[1]).strip())
    xs = [xs[0], b]
    """
    eligible = _only_read_and_appended(body)
    known: dict = {}  # list name -> its length
    out = []
    for stmt in body:
        name_ = _appended(stmt)
        if name_ is not None and name_ in known:
            elements = [gast.Subscript(value=S.name(name_), slice=S.const(k), ctx=gast.Load())
                        for k in range(known[name_])]
            literal = gast.List(elts=elements + [stmt.value.args[0]], ctx=gast.Load())
            new = gast.copy_location(S.assign(S.name(name_), literal), stmt)
            for node in gast.walk(new):
                if not hasattr(node, "lineno"):
                    gast.copy_location(node, stmt)
            known[name_] += 1
            out.append(new)
            continue
        literal = _literal_binding(stmt)
        if literal in eligible:
            known[literal] = len(stmt.value.elts)
        out.append(stmt)
    return out


def _literal_binding(stmt):
    """The name `xs` of `xs = [...]`, else None."""
    if isinstance(stmt, gast.Assign) and len(stmt.targets) == 1 \
            and isinstance(stmt.targets[0], gast.Name) and isinstance(stmt.value, gast.List):
        return stmt.targets[0].id
    return None


def _only_read_and_appended(body) -> set:
    """Names bound only by top-level list literals and otherwise only read (indexed, looped
    over, reduced) or appended to by top-level statements: nothing else (`xs.pop()`, an
    append in a loop, `ys = xs`, `helper(xs)`) sees the list, so its appends can be literals."""
    names = {_literal_binding(stmt) for stmt in body} - {None}
    for stmt in body:
        literal, appended = _literal_binding(stmt), _appended(stmt)
        for name_ in list(names):
            if name_ == literal:
                if _reads_whole(stmt.value, name_):
                    names.discard(name_)
            elif name_ == appended:
                if _reads_whole(stmt.value.args[0], name_):
                    names.discard(name_)
            elif name_ in S.stored_names(stmt) or _reads_whole(stmt, name_):
                names.discard(name_)
    return names


def _appended(stmt):
    """The list name of `xs.append(e)` (one argument, no keywords), else None."""
    if isinstance(stmt, gast.Expr) and isinstance(stmt.value, gast.Call) \
            and isinstance(stmt.value.func, gast.Attribute) \
            and stmt.value.func.attr == "append" and isinstance(stmt.value.func.value, gast.Name) \
            and len(stmt.value.args) == 1 and not stmt.value.keywords:
        return stmt.value.func.value.id
    return None


_READERS = {"len", "sum", "max", "min", "np.sum", "np.max", "np.min", "np.mean", "np.array"}


def _reads_whole(tree, name_) -> bool:
    """Does `tree` use `name_` other than by indexing it (`xs[0]`), looping over it or
    giving it to a reduction (`len(xs)`, `sum(xs)`, `np.sum(xs)`)? Any other use (`ys = xs`,
    `helper(xs)`) may keep the list under another name."""
    read = set()
    for n in gast.walk(tree):
        if isinstance(n, gast.Subscript):
            read.add(id(n.value))
        elif isinstance(n, gast.For):
            read.add(id(n.iter))
        elif isinstance(n, gast.Call) and S.unparse_expr(n.func).strip() in _READERS:
            read.update(id(a) for a in n.args)
    return any(isinstance(n, gast.Name) and n.id == name_ and id(n) not in read
               and not isinstance(n.ctx, gast.Store) for n in gast.walk(tree))
