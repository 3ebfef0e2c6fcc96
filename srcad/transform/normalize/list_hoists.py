"""Pops and slices of lists in expressions bound first, and extensions by any iterable
written as appends, for the buffer lowering (srcad/transform/normalize/conditional_lists.py).

For a local `ys` bound only by list literals (never a parameter):

* `s += ys.pop()` is `ys_popped = ys.pop(); s += ys_popped` (`ys.pop(k)` too), and
  `t = sum(ys[1:])` is `ys_part = ys[1:]; t = sum(ys_part)` (a new list,
  srcad/transform/normalize/list_shifts.py): in the order Python evaluates them, when the
  statement always evaluates them (not in an arm of `a if c else b`, after the first operand
  of `and`/`or`, in a comprehension or a lambda) and reads `ys` otherwise only after the
  last of them. A `while` test is evaluated again each iteration: left as it is;
* `ys.extend(zs)` and `ys += zs` of any iterable other than a literal (which
  srcad/transform/normalize/list_writes.py takes), and `ys = ys + zs` of a list local `zs`,
  are `for e in zs: ys.append(e)`; a comprehension or generator is first made a list
  (`ys_added = [f(v) for v in x]`, as lower.py lowers any), another expression is first bound
  to a name. Not when the iterable reads `ys` (Python's `ys.extend(ys)` doubles the list).

>>> stmts = gast.parse("ys = [a]\\ns = b * ys.pop()").body
>>> print("\\n".join(S.unparse_header(s) for s in hoisted(stmts, Namer(set()), [])))
ys = [a]
ys_popped = ys.pop()
s = b * ys_popped
"""

from __future__ import annotations

import gast

from srcad.frontend import syntax as S
from srcad.transform.names import Namer  # noqa: F401 (the doctest)
from srcad.transform.normalize.list_writes import list_names


def hoisted(body: list, namer, params, as_loop=None) -> list:
    """`body` with the pops and slices above bound first and the extensions as appends.
    `as_loop(stmt)`: the loop nest appending the elements of `ys = [e for ...]` to `ys`
    (lower.py's), or None."""
    lists = list_names(body) - set(params)
    return _Hoists(lists, namer, as_loop).block(body) if lists else body


def _bound(node, lists):
    """The list name when `node` is `ys.pop()`, `ys.pop(k)` or `ys[a:b]` (no step) of a list
    of `lists`, else None."""
    if isinstance(node, gast.Call) and isinstance(node.func, gast.Attribute) \
            and node.func.attr == "pop" and isinstance(node.func.value, gast.Name) \
            and node.func.value.id in lists and len(node.args) <= 1 and not node.keywords:
        return node.func.value.id
    if isinstance(node, gast.Subscript) and isinstance(node.value, gast.Name) \
            and node.value.id in lists and isinstance(node.slice, gast.Slice) \
            and node.slice.step is None and isinstance(node.ctx, gast.Load):
        return node.value.id
    return None


def _in_order(node, lists, always=True):
    """(node, list name, always evaluated) for each pop and slice of a list of `lists` and
    each other read of one (name node), in Python's order."""
    if isinstance(node, gast.Name):
        if node.id in lists:
            yield node, node.id, always
        return
    bound = _bound(node, lists)
    if bound is not None:  # with what it evaluates first (`ys.pop(len(ys) - 1)`)
        yield node, bound, always
        return
    if isinstance(node, (gast.Lambda, gast.ListComp, gast.SetComp, gast.GeneratorExp,
                         gast.DictComp)):
        for child in gast.walk(node):
            if isinstance(child, gast.Name) and child.id in lists:
                yield child, child.id, False
        return
    for field, value in gast.iter_fields(node):
        parts = value if isinstance(value, list) else [value]
        for k, part in enumerate(parts):
            if not isinstance(part, gast.AST):
                continue
            later = (isinstance(node, gast.IfExp) and field != "test") \
                or (isinstance(node, gast.BoolOp) and k > 0)
            yield from _in_order(part, lists, always and not later)


def _evaluated(stmt):
    """The expressions of `stmt` Python evaluates once, before it runs the statement's own
    effect, in order (an assignment's value before its targets)."""
    if isinstance(stmt, (gast.Expr, gast.Return)) and stmt.value is not None:
        return [stmt.value]
    if isinstance(stmt, gast.Assign):
        return [stmt.value] + stmt.targets
    if isinstance(stmt, gast.AugAssign):
        return [stmt.target, stmt.value]
    if isinstance(stmt, gast.If):
        return [stmt.test]
    if isinstance(stmt, gast.For):
        return [stmt.iter]
    return []


class _Hoists:
    def __init__(self, lists, namer, as_loop):
        self.lists = lists
        self.namer = namer
        self.as_loop = as_loop

    def block(self, stmts) -> list:
        out = []
        for stmt in stmts:
            for field in ("body", "orelse"):
                if isinstance(stmt, (gast.For, gast.While, gast.If)):
                    setattr(stmt, field, self.block(getattr(stmt, field)))
            extended = self.extension(stmt)
            out.extend(extended if extended is not None else self.bind_first(stmt))
        return out

    def bind_first(self, stmt) -> list:
        """The bindings of the pops and slices of `stmt` (above), then `stmt`."""
        events = [e for x in _evaluated(stmt) for e in _in_order(x, self.lists)]
        chosen, blocked = [], set()
        for node, name_, always in events:
            if isinstance(node, gast.Name) or not always:
                blocked.add(name_)  # read (or maybe evaluated) here: later ones stay
            elif name_ not in blocked and not self.whole(stmt, node):
                chosen.append(node)
        if not chosen:
            return [stmt]
        out, names = [], {}
        for node in chosen:
            what = "popped" if isinstance(node, gast.Call) else "part"
            temp = self.namer.fresh(f"{_bound(node, self.lists)}_{what}")
            names[id(node)] = temp
            out.append(gast.copy_location(S.assign(S.name(temp), node), stmt))
        return out + [_Replace(names).visit(stmt)]

    @staticmethod
    def whole(stmt, node) -> bool:
        """Is `node` what the statement itself is (`v = ys.pop()`, `ys.pop()`, `zs =
        ys[1:]`): lowered as a statement (conditional_lists.py, list_shifts.py)?"""
        return isinstance(stmt, gast.Expr) and stmt.value is node or (
            isinstance(stmt, gast.Assign) and stmt.value is node and len(stmt.targets) == 1
            and isinstance(stmt.targets[0], gast.Name))

    def extension(self, stmt):
        """`ys.extend(zs)`, `ys += zs`, `ys = ys + zs` (above) as appends, else None."""
        if isinstance(stmt, gast.Expr) and isinstance(stmt.value, gast.Call) \
                and isinstance(stmt.value.func, gast.Attribute) \
                and stmt.value.func.attr == "extend" and len(stmt.value.args) == 1 \
                and isinstance(stmt.value.func.value, gast.Name) and not stmt.value.keywords:
            name_, added = stmt.value.func.value.id, stmt.value.args[0]
        elif isinstance(stmt, gast.AugAssign) and isinstance(stmt.op, gast.Add) \
                and isinstance(stmt.target, gast.Name):
            name_, added = stmt.target.id, stmt.value
        elif isinstance(stmt, gast.Assign) and len(stmt.targets) == 1 \
                and isinstance(stmt.targets[0], gast.Name) and isinstance(stmt.value, gast.BinOp) \
                and isinstance(stmt.value.op, gast.Add) and isinstance(stmt.value.left, gast.Name) \
                and stmt.value.left.id == stmt.targets[0].id \
                and isinstance(stmt.value.right, gast.Name) \
                and stmt.value.right.id in self.lists:  # list + array adds elementwise
            name_, added = stmt.targets[0].id, stmt.value.right
        else:
            return None
        if name_ not in self.lists or isinstance(added, (gast.List, gast.Starred)) \
                or name_ in {n.id for n in gast.walk(added) if isinstance(n, gast.Name)}:
            return None
        out = []
        if isinstance(added, (gast.ListComp, gast.GeneratorExp)):
            # appended as they are made: the same, as they never read `ys`
            loop = self.as_loop(S.assign(S.name(name_), added)) if self.as_loop else None
            added = gast.ListComp(elt=added.elt, generators=added.generators)
            if loop is not None:
                return S.located([loop], stmt)
        if not isinstance(added, gast.Name):
            temp = self.namer.fresh(f"{name_}_added")
            out.append(gast.copy_location(S.assign(S.name(temp), added), stmt))
            added = S.name(temp)
        element = self.namer.fresh(f"{name_}_element")
        loop = gast.For(target=S.name(element, store=True), iter=added, body=[S.expr_stmt(
            S.substitute("ys.append(e)", {"ys": S.name(name_), "e": S.name(element)}))],
            orelse=[], type_comment=None)
        return S.located(out + [loop], stmt)


class _Replace(gast.NodeTransformer):
    """Each node whose id `names` lists replaced by the name it is bound to."""

    def __init__(self, names):
        self.names = names

    def visit(self, node):
        if id(node) in self.names:
            return gast.copy_location(S.name(self.names[id(node)]), node)
        return super().visit(node)
