"""Writes to lists of floats, in the forms the buffer lowering takes (conditional_lists.py).

* `ys.extend([a, b])`, `ys += [a, b]` and `ys = ys + [a, b]`, for a local bound only by list
  literals (never a parameter: `x += [1.0]` of an array adds elementwise), are the appends
  `ys.append(a); ys.append(b)`; when an element reads `ys`, all are evaluated first, as
  Python does (`t0 = ys[-1]; t1 = ys[-1] * a; ys.append(t0); ys.append(t1)`);
* `ys = [e] * n` (or `n * [e]`) is a list of n copies of e (`repeated`): a buffer of n
  elements, then appended to or written like any other;
* `ys[k] = v` and `ys[k] += v` (`item_writes`: one int index, no slice, which could change
  the length) write one element of the list; `ys.pop()` and `v = ys.pop()` (`is_pop`:
  the last element) read it and step the counter back. A list literal never appended to
  is made a buffer only when the variables lists.py makes of its elements would not do:
  it is indexed by a variable, repeated or popped (`needs_buffer`).

Reverse mode keeps what it keeps for any array element write: the old value of an element
written again (after a pop, or by `ys[k] = v`).
"""

from __future__ import annotations

import gast

from srcad.frontend import syntax as S


def extends_as_appends(body: list, namer, params) -> list:
    """`body` with the extensions of list locals (above) written as appends."""
    lists = list_names(body) - set(params)
    return _block(body, lists, namer) if lists else body


def repeated(value):
    """(e, n) of `[e] * n` or `n * [e]` (one element, not starred), else None."""
    if not (isinstance(value, gast.BinOp) and isinstance(value.op, gast.Mult)):
        return None
    for literal, count in ((value.left, value.right), (value.right, value.left)):
        if isinstance(literal, gast.List) and len(literal.elts) == 1 \
                and not isinstance(literal.elts[0], gast.Starred) \
                and not isinstance(count, (gast.List, gast.Tuple)):
            return literal.elts[0], count
    return None


def is_pop(node, name_) -> bool:
    """Is `node` the call `name_.pop()` (the last element)?"""
    return (isinstance(node, gast.Call) and isinstance(node.func, gast.Attribute)
            and node.func.attr == "pop" and isinstance(node.func.value, gast.Name)
            and node.func.value.id == name_ and not node.args and not node.keywords)


def popped(stmt, name_):
    """The pop call of the statement `name_.pop()` or `v = name_.pop()`, else None."""
    value = stmt.value if isinstance(stmt, gast.Expr) or (
        isinstance(stmt, gast.Assign) and len(stmt.targets) == 1) else None
    return value if value is not None and is_pop(value, name_) else None


def item_writes(stmts, name_) -> set:
    """The ids of the uses of `name_` that write one element: `ys[k] = v`, `ys[k] += v`."""
    out = set()
    for stmt in stmts:
        for node in S.nodes(stmt):
            targets = node.targets if isinstance(node, gast.Assign) else \
                [node.target] if isinstance(node, gast.AugAssign) else []
            out.update(id(t.value) for t in targets if _element(t, name_))
    return out


def pop_uses(stmts, name_) -> set:
    """The ids of the uses of `name_` in `ys.pop()` statements (`v = ys.pop()` too)."""
    calls = [popped(n, name_) for s in stmts for n in S.nodes(s)
             if isinstance(n, (gast.Expr, gast.Assign))]
    return {id(c.func.value) for c in calls if c is not None}


def needs_buffer(made, stmts, name_) -> bool:
    """Does the list `made` binds (`ys = [...]`), used in `stmts` and never appended to, need
    the buffer: repeated, popped, or indexed by other than a constant in its range? Not a
    list of int constants (`[2, 0, 1]`, `[0] * n`): the buffer holds floats."""

    elements = [repeated(made.value)[0]] if repeated(made.value) else made.value.elts
    if all(isinstance(e, gast.Constant) and type(e.value) in (int, bool) for e in elements) \
            and not int_list(made, stmts, name_):
        return False  # ints (indices, say) would be floats in the buffer: left refused
    if repeated(made.value) is not None or pop_uses(stmts, name_):
        return True
    size = len(made.value.elts)
    return any(isinstance(n, gast.Subscript) and isinstance(n.value, gast.Name)
               and n.value.id == name_ and S.constant_index(n.slice, size) is None
               for s in stmts for n in S.nodes(s))


def int_list(made, stmts, name_) -> bool:
    """Is the list `made` binds (`ys = [2, 0, 1]`, `ys = [0] * n`) one of ints in `stmts`:
    int constants in the literal, and every value appended or written into it an int
    constant or an element of it (`ys[k] += 1`, `ys[j] = ys[k]`; an int with `+ - * // %`)?
    Its buffer holds ints (ints carry no derivative: an index source, counts)."""
    elements = [repeated(made.value)[0]] if repeated(made.value) else made.value.elts
    if not all(_int_value(e, name_) for e in elements):
        return False
    for stmt in stmts:
        for node in S.nodes(stmt):
            if isinstance(node, gast.Expr) and isinstance(node.value, gast.Call) \
                    and isinstance(node.value.func, gast.Attribute) \
                    and node.value.func.attr == "append" \
                    and isinstance(node.value.func.value, gast.Name) \
                    and node.value.func.value.id == name_ \
                    and not all(_int_value(a, name_) for a in node.value.args):
                return False
            if isinstance(node, gast.Assign) and any(_element(t, name_) for t in node.targets) \
                    and not _int_value(node.value, name_):
                return False
            if isinstance(node, gast.AugAssign) and _element(node.target, name_) and not (
                    isinstance(node.op, (gast.Add, gast.Sub, gast.Mult, gast.FloorDiv,
                                         gast.Mod)) and _int_value(node.value, name_)):
                return False
    return True


def _int_value(node, name_) -> bool:
    """Is `node` an int constant (`3`, `-1`) or an element of `name_`?"""
    if isinstance(node, gast.UnaryOp) and isinstance(node.op, gast.USub):
        node = node.operand
    return (isinstance(node, gast.Constant) and type(node.value) is int) or (
        isinstance(node, gast.Subscript) and isinstance(node.value, gast.Name)
        and node.value.id == name_ and not isinstance(node.slice, (gast.Slice, gast.Tuple)))


def _element(target, name_) -> bool:
    return (isinstance(target, gast.Subscript) and isinstance(target.value, gast.Name)
            and target.value.id == name_
            and not isinstance(target.slice, (gast.Slice, gast.Tuple)))


def _is_list_value(value) -> bool:
    return isinstance(value, gast.ListComp) or (isinstance(value, gast.List)
            and not any(isinstance(e, gast.Starred) for e in value.elts)) \
        or repeated(value) is not None


def _extension(stmt, lists):
    """(name, elements) when `stmt` extends a list of `lists` by a literal, else None."""
    if isinstance(stmt, gast.Expr) and isinstance(stmt.value, gast.Call) \
            and isinstance(stmt.value.func, gast.Attribute) \
            and stmt.value.func.attr == "extend" \
            and isinstance(stmt.value.func.value, gast.Name) \
            and len(stmt.value.args) == 1 and not stmt.value.keywords:
        name_, added = stmt.value.func.value.id, stmt.value.args[0]
    elif isinstance(stmt, gast.AugAssign) and isinstance(stmt.op, gast.Add) \
            and isinstance(stmt.target, gast.Name):
        name_, added = stmt.target.id, stmt.value
    elif _self_extension(stmt):
        name_, added = stmt.targets[0].id, stmt.value.right
    else:
        return None
    if name_ not in lists or not isinstance(added, gast.List) \
            or any(isinstance(e, gast.Starred) for e in added.elts):
        return None
    return name_, added.elts


def _self_extension(stmt) -> bool:
    """Is `stmt` `ys = ys + [...]`?"""
    return (isinstance(stmt, gast.Assign) and len(stmt.targets) == 1
            and isinstance(stmt.targets[0], gast.Name) and isinstance(stmt.value, gast.BinOp)
            and isinstance(stmt.value.op, gast.Add) and isinstance(stmt.value.left, gast.Name)
            and stmt.value.left.id == stmt.targets[0].id
            and isinstance(stmt.value.right, gast.List))


def list_names(body) -> set:
    """Locals bound only by list literals (extending or slicing themselves aside: `ys += e`
    of any iterable, `ys = ys + [...]`, `ys = ys + zs`, `ys = ys[1:]`)."""
    lists, kept = set(), set()
    for stmt in body:
        for node in S.nodes(stmt):
            if isinstance(node, gast.Assign) and len(node.targets) == 1 \
                    and isinstance(node.targets[0], gast.Name):
                if _is_list_value(node.value):
                    lists.add(node.targets[0].id)
                    kept.add(id(node.targets[0]))
                elif _self_extension(node) or (
                        isinstance(node.value, gast.BinOp) and isinstance(node.value.op, gast.Add)
                        and isinstance(node.value.left, gast.Name)
                        and isinstance(node.value.right, gast.Name)
                        and node.value.left.id == node.targets[0].id) or (
                        isinstance(node.value, gast.Subscript)  # ys = ys[1:] (list_shifts.py)
                        and isinstance(node.value.value, gast.Name)
                        and node.value.value.id == node.targets[0].id
                        and isinstance(node.value.slice, gast.Slice)
                        and node.value.slice.step is None):
                    kept.add(id(node.targets[0]))
            elif isinstance(node, gast.AugAssign) and isinstance(node.target, gast.Name) \
                    and isinstance(node.op, gast.Add):
                kept.add(id(node.target))
    others = {n.id for s in body for n in S.nodes(s) if isinstance(n, gast.Name)
              and isinstance(n.ctx, gast.Store) and id(n) not in kept}
    return lists - others


def _block(stmts, lists, namer) -> list:
    out = []
    for stmt in stmts:
        if isinstance(stmt, (gast.For, gast.While, gast.If)):
            stmt.body = _block(stmt.body, lists, namer)
            stmt.orelse = _block(stmt.orelse, lists, namer)
        extended = _extension(stmt, lists)
        if extended is None:
            out.append(stmt)
            continue
        name_, elements = extended
        if len(elements) > 1 and any(name_ in S.loaded_names(e) for e in elements):
            temps = [namer.fresh(f"{name_}_added") for _ in elements]
            out += [gast.copy_location(S.assign(S.name(t), e), stmt)
                    for t, e in zip(temps, elements)]
            elements = [S.name(t) for t in temps]
        appends = [S.expr_stmt(S.substitute("xs.append(e)", {"xs": S.name(name_), "e": e}))
                   for e in elements] or [gast.Pass()]
        out += S.located(appends, stmt)
    return out
