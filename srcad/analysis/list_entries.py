"""List entries that are arrays: Python lists hold references, srcad's lists hold copies.

A list of arrays grown by `append` (or stored into: `ys[k] = a`, a literal `[a, b]` that is
appended to later, `insert`, `extend`) becomes an array with one row per entry
(transform/normalize/list_appends.py, list_writes.py): each entry is copied into its row
where it is stored. Python's list holds the array object itself: an entry that is an array
variable, or a view of one (`A[i]`, `a[1:]`, `a.T`), sees every later in-place write of that
array (`h[:] = h + x`, `a[0] = 5.0`, `x *= 3.0`), including a write in a later iteration of
a loop around the store and writes of an argument. The copy would then be a silently wrong
value and derivative, so such a store is refused with its line, suggesting a copy
(`hs.append(h.copy())`), which is what the derivative code does and what makes the program
mean the same in both readings. A store of a fresh value (`hs.append(h + x)`,
`hs.append(h.copy())`), or of an array the function rebinds before any later write
(`h = np.zeros(n); h[0] = ...; hs.append(h)` in a loop: each iteration a new array), is a
copy in both readings and stays as it is.

A list of known length split into one variable per entry (`xs = [a]; ... xs[0]`,
normalize/lists.py) keeps the array itself (`xs_0 = a`), and views.py follows the writes
through it as through any other second name of the array.
"""

from __future__ import annotations

import gast

from srcad.analysis.array_bindings import viewed_array
from srcad.analysis.types import Array
from srcad.frontend import syntax as S


def refuse_aliased_entries(norm, types) -> None:
    """Refuse (into `norm.refusals`) each store of an array variable, or a view of one, into
    a list buffer when the array may be written in place afterwards (module docstring)."""
    if not norm.namer.list_buffers:
        return
    paths = _paths(norm.body)
    for buffer, list_name in norm.namer.list_buffers.items():
        for stmt, path in paths:
            if not _stores_into(stmt, buffer) or not isinstance(types.of(stmt.value), Array):
                continue
            array = viewed_array(norm, stmt.value)
            if array is None or array == buffer or not _written_later(path, array, norm):
                continue
            norm.refusals.add(_refusal(norm, stmt, list_name, array))


def _refusal(norm, stmt, list_name, array):
    entry = S.unparse_expr(stmt.value)
    user_names = {n.id for n in gast.walk(norm.parsed.tree) if isinstance(n, gast.Name)}
    if any(isinstance(n, gast.Name) and n.id not in user_names for n in gast.walk(stmt.value)):
        # made by srcad (`A[v_index]` for the row `v` of `for v in A`): not the user's words
        stored, copy = "the array stored here", "the entry's `.copy()`"
        if array in user_names:
            stored += f" (a view of `{array}`)"
        else:
            array = "that array"
    else:
        stored = f"`{entry}`"
        copy = f"`{list_name}.append({entry}.copy())`, or `{entry}.copy()` wherever the list " \
            "is given it"
    return norm.parsed.error(
        stmt, "list entry aliasing an array",
        f"{stored} is stored in the list `{list_name}` as the array object itself (Python "
        f"lists hold references, not copies), and the elements of {_quoted(array)} are written in "
        "place afterwards while the list holds it; srcad's lists hold copies, so the value "
        "and derivative would be silently wrong",
        hint=f"store a copy ({copy}), or build a new array instead of writing "
        f"{_quoted(array)} in place")


def _quoted(array: str) -> str:
    return array if array == "that array" else f"`{array}`"


def _stores_into(stmt, buffer) -> bool:
    return isinstance(stmt, gast.Assign) and len(stmt.targets) == 1 \
        and isinstance(stmt.targets[0], gast.Subscript) \
        and isinstance(stmt.targets[0].value, gast.Name) and stmt.targets[0].value.id == buffer


def _paths(body) -> list:
    """(statement, path) for every statement; path: [(block, position, owner)] from the
    function body down to the statement, owner the statement whose block it is (None for
    the body)."""
    out = []

    def walk(block, path, owner):
        for k, stmt in enumerate(block):
            here = path + [(block, k, owner)]
            out.append((stmt, here))
            for field in ("body", "orelse"):
                sub = getattr(stmt, field, None)
                if isinstance(sub, list):
                    walk(sub, here, stmt)
    walk(body, [], None)
    return out


def _written_later(path, array: str, norm) -> bool:
    """May a statement run after the store at the end of `path` write the elements of the
    array object `array` names there? Walks outward: the rest of each block, and for a loop
    the start of its body again (its next iteration), each up to a statement that surely
    rebinds `array` to another object (after it, the name holds a new array). In the next
    iterations of `for i in range(...)`, a write of the row `A[i]` when the entry is the row
    `A[i]` writes another row."""
    innermost = len(path) - 1
    stored = path[-1][0][path[-1][1]].value
    for level in range(innermost, -1, -1):
        block, k, owner = path[level]
        state = _scan(block[k + 1:], array, norm, _same_row)
        if state is not None:
            return state == "written"
        if isinstance(owner, (gast.For, gast.While)):
            again = block[:k] + ([block[k]] if level < innermost else [])
            index = _row_index(stored, owner)
            other_row = (lambda target, i=index: _row_of(target) == i) if index else _same_row
            if _scan(again, array, norm, other_row) == "written":
                return True
    return False


def _same_row(target) -> bool:
    return False


def _row_of(node):
    """`i` for `A[i]`, `A[i, ...]`, `A[i, j] = ...` (the first index a name), else None."""
    if not isinstance(node, gast.Subscript):
        return None
    first = node.slice.elts[0] if isinstance(node.slice, gast.Tuple) and node.slice.elts \
        else node.slice
    return first.id if isinstance(first, gast.Name) else None


def _row_index(stored, loop) -> str | None:
    """The loop's index `i` when `loop` is `for i in range(...)` that never rebinds `i`
    and the entry stored is a row `A[i]` of an array: each iteration stores another row."""
    if not (isinstance(loop, gast.For) and isinstance(loop.target, gast.Name)
            and isinstance(loop.iter, gast.Call) and isinstance(loop.iter.func, gast.Name)
            and loop.iter.func.id == "range"):
        return None
    index = loop.target.id
    if _row_of(stored) != index or not isinstance(stored.value, gast.Name) \
            or any(index in S.bound_names(s) for s in loop.body):
        return None
    return index


def _scan(stmts, array, norm, skipped):
    """"written" if running `stmts` in order may write the elements of `array` (but for
    targets `skipped` accepts) before surely rebinding it, "rebound" if it surely rebinds it
    first, else None."""
    for stmt in stmts:
        state = _from_start(stmt, array, norm, skipped)
        if state is not None:
            return state
    return None


def _from_start(stmt, array, norm, skipped):
    if isinstance(stmt, gast.If):
        arms = {_scan(stmt.body, array, norm, skipped),
                _scan(stmt.orelse, array, norm, skipped)}
        return "written" if "written" in arms else "rebound" if arms == {"rebound"} else None
    if isinstance(stmt, (gast.For, gast.While)):  # may run no iteration: never surely rebinds
        parts = [_scan(stmt.body, array, norm, skipped),
                 _scan(stmt.orelse, array, norm, skipped)]
        return "written" if "written" in parts else None
    if _writes(stmt, array, skipped):
        return "written"
    if isinstance(stmt, gast.Assign) and viewed_array(norm, stmt.value) != array and any(
            isinstance(t, gast.Name) and t.id == array for t in stmt.targets):
        return "rebound"
    return None


def _writes(stmt, array, skipped) -> bool:
    """Does the simple statement `stmt` write elements of `array` in place (`array[...] =`,
    `array += ...`), other than at a target `skipped` accepts?"""
    if isinstance(stmt, gast.AugAssign) and isinstance(stmt.target, gast.Name):
        return stmt.target.id == array
    if any(_call_writes(n, array) for n in gast.walk(stmt) if isinstance(n, gast.Call)):
        return True
    targets = stmt.targets if isinstance(stmt, gast.Assign) else \
        [stmt.target] if isinstance(stmt, gast.AugAssign) else []
    return any(isinstance(t, gast.Subscript) and S.target_name(t) == array and not skipped(t)
               for t in targets)


_WRITING_METHODS = {"fill", "sort", "put", "partition", "resize", "itemset"}
_WRITING_FUNCTIONS = {"copyto", "at", "put", "place", "putmask", "fill_diagonal"}


def _call_writes(call, array) -> bool:
    """Does `call` write `array` for its effect: `array.fill(v)`, `np.copyto(array, v)`,
    `np.add.at(array, ...)`, `out=array`?"""
    def is_array(node):
        return isinstance(node, gast.Name) and node.id == array
    if any(k.arg == "out" and (is_array(k.value) or isinstance(k.value, gast.Tuple)
                               and any(map(is_array, k.value.elts))) for k in call.keywords):
        return True
    func = call.func
    if not isinstance(func, gast.Attribute):
        return False
    if func.attr in _WRITING_METHODS and is_array(func.value):
        return True
    return func.attr in _WRITING_FUNCTIONS and bool(call.args) and is_array(call.args[0])
