"""Writes that move a list's elements, as the appends, pops and element writes the buffer
lowering takes (srcad/transform/normalize/conditional_lists.py, list_writes.py).

For a local `ys` bound only by list literals (never a parameter):

* `v = ys.pop(k)` (and `ys.pop(k)`, `del ys[k]`): `v = ys[k]` (IndexError as Python raises
  it), the elements after it moved one down, then `ys.pop()`;
* `ys.insert(k, v)`: `ys.append(v)` (one more element), the elements from the index (clamped
  as Python clamps it: `insert(-10, v)` inserts at 0) moved one up, then `ys[k] = v`;
* `ys[a:b] = [p, q]` (no step; `del ys[a:b]` assigns `[]`): when the slice (clamped as
  Python clamps it) has as many elements as the literal, element writes; otherwise the
  elements after the slice moved to their new places, through appends and pops;
* `zs = ys[a:b]` (no step): `zs = []` and a loop appending `ys[k]` for k over the clamped
  bounds, a new list (the pops and slices in an expression are bound first:
  srcad/transform/normalize/list_hoists.py); `ys = ys[a:b]`: the elements outside the
  bounds deleted (no other name holds the list: the same).

The index, the value and the bounds are evaluated once, in Python's order. Moving an element
is an element write: reverse mode keeps what it keeps for any array write.

>>> stmts = gast.parse("ys = [a, b]\\nys.insert(0, c)").body
>>> print("\\n".join(S.unparse_header(s) for s in shifted(stmts, Namer(set()), [])[1:]))
ys_inserted = c
ys.append(ys_inserted)
for ys_k in range(len(ys) - 1)
ys[0] = ys_inserted
"""

from __future__ import annotations

import gast

from srcad.frontend import syntax as S
from srcad.transform.names import Namer  # noqa: F401 (the doctest)
from srcad.transform.normalize.list_writes import list_names


def shifted(body: list, namer, params) -> list:
    """`body` with the writes above of its list locals in the forms the buffer takes; the
    lists that slices of lists make (`zs = ys[1:]`) are list locals too."""
    done = set()
    while True:
        lists = list_names(body) - set(params)
        if lists <= done:
            return body
        done |= lists
        body = _Shifts(lists, namer).block(body)


def _at(template: str, mapping: dict, stmt) -> list:
    """The statements of `template` with `mapping`'s placeholders put in, located at `stmt`."""
    made = [S.relocated(s, stmt) for s in S.parse_stmts(template)]  # not the template's lines
    return S.located([S.substitute_stmt(s, mapping) for s in made], stmt)


def _list_call(node, lists, method, count):
    """(name, args) when `node` is `ys.method(...)` with `count` positional arguments for a
    list `ys` of `lists`, else None."""
    if isinstance(node, gast.Call) and isinstance(node.func, gast.Attribute) \
            and node.func.attr == method and isinstance(node.func.value, gast.Name) \
            and node.func.value.id in lists and len(node.args) == count \
            and not node.keywords and not any(isinstance(a, gast.Starred) for a in node.args):
        return node.func.value.id, node.args
    return None


def _sliced(node, lists):
    """(name, lower, upper) when `node` is `ys[a:b]` (no step) of a list of `lists`."""
    if isinstance(node, gast.Subscript) and isinstance(node.value, gast.Name) \
            and node.value.id in lists and isinstance(node.slice, gast.Slice) \
            and node.slice.step is None:
        return node.value.id, node.slice.lower, node.slice.upper
    return None


def _constant_int(node):
    if isinstance(node, gast.UnaryOp) and isinstance(node.op, gast.USub):
        value = _constant_int(node.operand)
        return None if value is None else -value
    if isinstance(node, gast.Constant) and type(node.value) is int:
        return node.value
    return None


class _Shifts:
    def __init__(self, lists, namer):
        self.lists = lists
        self.namer = namer

    def block(self, stmts) -> list:
        out = []
        for stmt in stmts:
            if isinstance(stmt, (gast.For, gast.While, gast.If)):
                stmt.body = self.block(stmt.body)
                stmt.orelse = self.block(stmt.orelse)
            new = self.statement(stmt)
            out.extend([stmt] if new is None else new)
        return out

    def statement(self, stmt):
        """The statements `stmt` is lowered to, or None when it stays."""
        value = stmt.value if isinstance(stmt, (gast.Expr, gast.Assign)) else None
        target = stmt.targets[0] if isinstance(stmt, gast.Assign) \
            and len(stmt.targets) == 1 else None
        popped = _list_call(value, self.lists, "pop", 1)
        if popped is not None and (isinstance(stmt, gast.Expr) or target is not None):
            return self.pop_at(stmt, popped[0], popped[1][0], target)
        inserted = _list_call(value, self.lists, "insert", 2)
        if inserted is not None and isinstance(stmt, gast.Expr):
            return self.insert(stmt, inserted[0], *inserted[1])
        if isinstance(stmt, gast.Delete):
            return self.delete(stmt)
        sliced = _sliced(target, self.lists) if target is not None else None
        if sliced is not None and isinstance(value, gast.List) \
                and not any(isinstance(e, gast.Starred) for e in value.elts):
            return self.slice_write(stmt, *sliced, value.elts)
        read = _sliced(value, self.lists) if isinstance(target, gast.Name) else None
        if read is not None and read[0] != target.id:
            return self.slice_read(stmt, target.id, *read)
        if read is not None:
            return self.trimmed(stmt, *read)
        return None

    def fresh(self, name_, what):
        return self.namer.fresh(f"{name_}_{what}")

    def pop_at(self, stmt, name_, index, target):
        """`v = ys.pop(k)`: `v = ys[k]`, the elements after k one down, `ys.pop()`."""
        at = self.fresh(name_, "at")
        value = self.fresh(name_, "popped") if target is None \
            or not isinstance(target, gast.Name) else target.id
        out = _at(f"{at} = _K_\n{value} = {name_}[{at}]", {"_K_": index}, stmt)
        constant = _constant_int(index)
        if constant != -1:  # the last element: nothing moves
            j = self.fresh(name_, "k")
            start = f"len({name_}) + {constant}" if constant is not None and constant < 0 \
                else at if constant is not None else f"{at} % len({name_})"
            out += _at(f"for {j} in range({start}, len({name_}) - 1):\n"
                       f"    {name_}[{j}] = {name_}[{j} + 1]", {}, stmt)
        out += _at(f"{name_}.pop()", {}, stmt)
        if target is not None and not isinstance(target, gast.Name):
            out.append(gast.copy_location(S.assign(target, S.name(value)), stmt))
        return out

    def insert(self, stmt, name_, index, element):
        """`ys.insert(k, v)`: one more element, those from k on one up, then `ys[k] = v`."""
        at, value = self.fresh(name_, "at"), self.fresh(name_, "inserted")
        constant = _constant_int(index)
        out = [] if constant is not None else _at(f"{at} = _K_", {"_K_": index}, stmt)
        out += _at(f"{value} = _V_\n{name_}.append({value})", {"_V_": element}, stmt)
        # the index among the elements before the append (len(ys) - 1 of them), as Python
        # clamps it
        if constant is not None and constant >= 0:
            at = str(constant) if constant == 0 else f"min({constant}, len({name_}) - 1)"
        elif constant is not None:
            at = f"max(len({name_}) - {1 - constant}, 0)"
        else:
            out += _at(f"if {at} < 0:\n    {at} = max({at} + len({name_}) - 1, 0)\n"
                       f"{at} = min({at}, len({name_}) - 1)", {}, stmt)
        j = self.fresh(name_, "k")
        moved = f"len({name_}) - 1" + ("" if at == "0" else f" - {at}")  # the elements after
        out += _at(f"for {j} in range({moved}):\n"
                   f"    {name_}[len({name_}) - 1 - {j}] = {name_}[len({name_}) - 2 - {j}]\n"
                   f"{name_}[{at}] = {value}", {}, stmt)
        return out

    def delete(self, stmt):
        """`del ys[k]` as `ys.pop(k)`, `del ys[a:b]` as `ys[a:b] = []` (each target in turn);
        None when a target is no list element or slice of a list."""
        out = []
        for target in stmt.targets:
            if not (isinstance(target, gast.Subscript) and isinstance(target.value, gast.Name)
                    and target.value.id in self.lists
                    and not isinstance(target.slice, gast.Tuple)):
                return None
            sliced = _sliced(target, self.lists)
            if isinstance(target.slice, gast.Slice) and sliced is None:
                return None  # a step: stays refused
            out += self.slice_write(stmt, *sliced, []) if sliced is not None \
                else self.pop_at(stmt, target.value.id, S.as_load(target.slice), None)
        return out

    def bounds(self, stmt, name_, lower, upper):
        """(statements, start, stop): the bounds of `ys[lower:upper]` clamped as Python
        clamps a slice's (0 <= start, stop <= len(ys)), evaluated in order."""
        out, bounds = [], []
        for bound, default in ((lower, "0"), (upper, f"len({name_})")):
            constant = _constant_int(bound)
            if bound is None:
                bounds.append(default)
            elif constant is not None and constant >= 0:
                bounds.append(f"min({constant}, len({name_}))" if constant else "0")
            elif constant is not None:
                bounds.append(f"max(len({name_}) - {-constant}, 0)")
            else:
                at = self.fresh(name_, "bound")
                out += _at(f"{at} = _B_\nif {at} < 0:\n    {at} = max({at} + len({name_}), 0)\n"
                           f"{at} = min({at}, len({name_}))", {"_B_": bound}, stmt)
                bounds.append(at)
        return out, bounds[0], bounds[1]

    def slice_read(self, stmt, made, name_, lower, upper):
        """`zs = ys[a:b]`: a new list of the elements of the clamped bounds."""
        out, start, stop = self.bounds(stmt, name_, lower, upper)
        j = self.fresh(name_, "k")
        return out + _at(f"{made} = []", {}, stmt) + _at(
            f"for {j} in range({start}, {stop}):\n    {made}.append({name_}[{j}])", {}, stmt)

    def trimmed(self, stmt, name_, lower, upper):
        """`ys = ys[a:b]`: the elements from the clamped b on deleted, then those before a
        (the list is no other name's: the same as a new one)."""
        out, start, stop = self.bounds(stmt, name_, lower, upper)
        lo, hi = self.fresh(name_, "start"), self.fresh(name_, "stop")
        out += _at(f"{lo} = {start}\n{hi} = max({stop}, {lo})", {}, stmt)
        return out + self.slice_write(stmt, name_, S.name(hi), None, []) \
            + self.slice_write(stmt, name_, None, S.name(lo), [])

    def slice_write(self, stmt, name_, lower, upper, elements):
        """`ys[a:b] = [p, q]`: the elements evaluated first (as Python does), then written
        where the slice was, the elements after it moved when the length changes."""
        values = [self.fresh(name_, "new") for _ in elements]
        out = [gast.copy_location(S.assign(S.name(v), e), stmt)
               for v, e in zip(values, elements)]
        stated, start, stop = self.bounds(stmt, name_, lower, upper)
        lo, hi = self.fresh(name_, "start"), self.fresh(name_, "stop")
        out += stated + _at(f"{lo} = {start}\n{hi} = max({stop}, {lo})", {}, stmt)
        m = len(values)
        writes = "".join(f"{name_}[{lo} + {i}] = {v}\n" for i, v in enumerate(values))
        j, tail = self.fresh(name_, "k"), self.fresh(name_, "tail")
        # after m appends, the tail [hi, n) moves to [lo + m, ...): from its end when it
        # moves up, so that no element is overwritten before it moved
        moved = f"{j}" if m == 0 else f"({j} if {lo} + {m} <= {hi} else {tail} - 1 - {j})"
        general = (f"{tail} = len({name_}) - {hi}\n"
                   + "".join(f"{name_}.append({v})\n" for v in values)
                   + f"for {j} in range({tail}):\n"
                   f"    {name_}[{lo} + {m} + {moved}] = {name_}[{hi} + {moved}]\n"
                   + writes
                   + f"for {j} in range({hi} - {lo}):\n    {name_}.pop()\n")
        if m == 0:
            return out + _at(general, {}, stmt)
        return out + _at(f"if {hi} - {lo} == {m}:\n{_indented(writes)}else:\n"
                         f"{_indented(general)}", {}, stmt)


def _indented(lines: str) -> str:
    return "".join(f"    {line}\n" for line in lines.splitlines())
