"""The body the later checks see when the syntax check refused something: every statement that
holds a refused construct set aside, and with it every statement that reads a value one of them
makes (or would make), so the later checks report only what is wrong on its own, never a
consequence of a construct already refused (`d = {...}` refused, then `d["a"] * x` reported as
an opaque value). Nothing of this body is differentiated: it exists to be checked.

A refused `try` or `with` leaves what its fix leaves (the `try`'s body, `else` and `finally`,
the `with`'s body); any other statement is set aside whole when it is not an `if`, `for` or
`while`, when it is one refused as a whole (a loop srcad cannot rewrite), or when the header
of one (its test, its target or what it loops over) holds a refused construct or reads such
a value; otherwise its blocks are looked into. The
function's final `return` may go too: the checks that ask what carries a derivative to the
result then find nothing to refuse, which misses refusals but never reports a wrong one.
"""

from __future__ import annotations

import gast

from srcad.errors import SrcadError
from srcad.frontend import syntax as S

_BRANCHING = (gast.If, gast.For, gast.While)


def without_refused(body: list, run, refusals, parsed=None):
    """`run(copy of body)`'s result. A stage that stops at a refusal located at a node of
    `body` has it recorded in `refusals` and runs again on a copy of `body` without the
    statement holding that node and what reads its values (what it recorded before is
    forgotten: it records it again); one at a node a stage made in `parsed`'s function,
    without the statements it was made from (`made_from`). A refusal elsewhere (not at a
    node, in other code) is raised, as it is when `refusals` does not collect."""
    while True:
        attempt = S.clone(body)
        # a copy visits its nodes in the original's order (S.clone keeps the field order)
        copies = [n for stmt in attempt for n in S.nodes(stmt)]  # alive: ids stay theirs
        originals = dict(zip(map(id, copies), (n for stmt in body for n in S.nodes(stmt))))
        mark = refusals.mark()
        try:
            return run(attempt)
        except SrcadError as err:
            node = originals.get(id(getattr(err, "node", None)))
            origin = made_from(body, err, parsed) if node is None else [node]
            if not refusals.collect or not origin:
                raise
            refusals.forget_since(mark)
            body = set_aside_nodes(body, origin, err, refusals)


def made_from(body: list, err: SrcadError, parsed) -> list:
    """The statements of `body` (at any depth) that code srcad made and `err` refuses was
    made from: srcad locates what it makes at the line of the user's statement it makes it
    from (an inlined helper's code at its call, a rewritten loop at its header), so those
    are the statements at the refused node's line. None when the refusal is not located in
    `parsed`'s function (a helper's own line, another file)."""
    node = getattr(err, "node", None)
    line = getattr(node, "lineno", None)
    if parsed is None or line is None or err.filename != parsed.filename \
            or err.line != parsed.line_of(node):
        return []
    found = []

    def visit(stmts):
        for stmt in stmts:
            if getattr(stmt, "lineno", None) == line and not S.is_comment(stmt):
                found.append(stmt)  # a loop or if at that line: set aside whole
            elif isinstance(stmt, _BRANCHING):
                visit(stmt.body)
                visit(stmt.orelse)

    visit(body)
    return found


def set_aside_node(body: list, node, err: SrcadError, refusals) -> list:
    """`body` without the statement holding `node` (refused by `err`, recorded in
    `refusals`) and what reads its values; `err` is raised when `node` would stay (in the
    kept body of a refused `try` or `with`)."""
    return set_aside_nodes(body, [node], err, refusals)


def set_aside_nodes(body: list, nodes: list, err: SrcadError, refusals) -> list:
    """`set_aside_node` of several nodes `err` refuses (the statements code srcad made
    was made from)."""
    kept = set_aside_refused(body, nodes, set())
    if any(n is node for stmt in kept for n in gast.walk(stmt) for node in nodes):
        raise err
    refusals.add(err)
    return kept


def set_aside_refused(body: list, refused: list, names: set) -> list:
    """`body` without the statements holding a node of `refused` or reading a value of one:
    `names` are names the refused constructs make (parameters of a refused signature);
    names the set-aside statements bind are added to them, until nothing more is set aside."""
    refused_ids = {id(node) for node in refused}
    poisoned = set(names)
    while True:
        before = len(poisoned)
        body = _block(body, refused_ids, poisoned)
        if len(poisoned) == before:
            return body


def _block(stmts, refused_ids, poisoned) -> list:
    out = []
    for stmt in stmts:
        kept = _kept_blocks(stmt, refused_ids, poisoned)
        if kept is not None:
            out.extend(_block(kept, refused_ids, poisoned))
        elif isinstance(stmt, _BRANCHING) and id(stmt) not in refused_ids \
                and not _taints(_header(stmt), refused_ids, poisoned):
            stmt.body = _block(stmt.body, refused_ids, poisoned)
            stmt.orelse = _block(stmt.orelse, refused_ids, poisoned) if stmt.orelse else []
            out.append(stmt)
        elif _taints([stmt], refused_ids, poisoned):
            partial = _return_of_clean_terms(stmt, refused_ids, poisoned)
            if partial is not None:
                out.append(partial)
                continue
            poisoned |= _made(stmt)
        else:
            out.append(stmt)
    return out or [gast.Pass()]


def _return_of_clean_terms(stmt, refused_ids, poisoned):
    """A `return a + b - c` some of whose terms read a refused value, returning the others
    (None for any other statement, or when no term is clean): the later checks then still
    see what the clean terms compute and that it reaches the result (`w.fill(2.0)` of an
    array the return reads is still refused when another term was), and nothing runs."""
    if not (isinstance(stmt, gast.Return) and isinstance(stmt.value, gast.BinOp)
            and isinstance(stmt.value.op, (gast.Add, gast.Sub))):
        return None
    terms = []

    def flatten(node):
        if isinstance(node, gast.BinOp) and isinstance(node.op, (gast.Add, gast.Sub)):
            flatten(node.left)
            flatten(node.right)
        else:
            terms.append(node)
    flatten(stmt.value)
    clean = [t for t in terms if not _taints([t], refused_ids, poisoned)]
    if not clean or len(clean) == len(terms):
        return None
    value = clean[0]
    for term in clean[1:]:
        value = gast.BinOp(left=value, op=gast.Add(), right=term)
    return gast.copy_location(gast.Return(value=value), stmt)


def _kept_blocks(stmt, refused_ids, poisoned) -> list | None:
    """The statements a refused `try` or `with` leaves when its fix is made (the error
    handling or the resource moved outside): the `try`'s body, `else` and `finally`, the
    `with`'s body. The names only its handlers or its `as` bind are poisoned. None for any
    other statement, or a `with` whose resources hold a refused construct or read a
    poisoned value."""
    if id(stmt) not in refused_ids:
        return None
    if isinstance(stmt, gast.Try):
        kept = stmt.body + stmt.orelse + stmt.finalbody
        bound = set().union(*(_made(k) for k in kept))
        poisoned |= set().union(*(_made(h) for h in stmt.handlers)) - bound
        return kept
    if isinstance(stmt, gast.With) and not _taints(
            [item.context_expr for item in stmt.items], refused_ids, poisoned):
        poisoned |= {n.id for item in stmt.items if item.optional_vars is not None
                     for n in gast.walk(item.optional_vars) if isinstance(n, gast.Name)}
        return stmt.body
    return None


def _header(stmt) -> list:
    if isinstance(stmt, gast.For):
        return [stmt.target, stmt.iter]
    return [stmt.test]


def _taints(parts, refused_ids, poisoned) -> bool:
    return any(id(node) in refused_ids or (isinstance(node, gast.Name) and node.id in poisoned)
               for part in parts for node in gast.walk(part))


def _made(stmt) -> set:
    """Names `stmt` binds or may change: its targets (an element write changes the array),
    definitions and imports, declared names, and everything a call made for its effect
    receives."""
    out = set()
    for node in gast.walk(stmt):
        if isinstance(node, gast.Name) and not isinstance(node.ctx, gast.Load):
            out.add(node.id)
        elif isinstance(node, (gast.FunctionDef, gast.ClassDef, gast.AsyncFunctionDef)):
            out.add(node.name)
        elif isinstance(node, (gast.Import, gast.ImportFrom)):
            out |= {(a.asname or a.name).split(".")[0] for a in node.names}
        elif isinstance(node, (gast.Global, gast.Nonlocal)):
            out |= set(node.names)
        elif isinstance(node, gast.Expr):
            out |= {n.id for n in gast.walk(node) if isinstance(n, gast.Name)}
    for node in gast.walk(stmt):  # `x[i] = v`, `x.a = v`: x changes
        targets = node.targets if isinstance(node, gast.Assign) else \
            [node.target] if isinstance(node, (gast.AugAssign, gast.For)) else []
        for target in targets:
            while isinstance(target, (gast.Subscript, gast.Attribute)):
                target = target.value
            if isinstance(target, gast.Name):
                out.add(target.id)
    return out
