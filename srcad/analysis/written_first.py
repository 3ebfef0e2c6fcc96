"""Which tangent arrays generated vector-mode code overwrites in full before it reads them.

A prepared jacobian zeroes the tangents of its Cache and Output arguments before every call:
their content on entry is the tangent of whatever the array held, and that must be zero. When
the code provably writes every element of such a tangent (every lane) before reading any,
the content on entry never shows and the zeroing is wasted work (two 100 x 100 arrays: about
4 us a call, a quarter of a numba jacobian of n = 100).

The proof is syntactic over the generated function and conservative: the tangent `s` of a
1-D array of length L is overwritten first when the first top-level statement naming `s` is

    for i in range(B):                  # B: a number, len(p) or p.shape[k], p an argument
        <statements not naming s>       # no break, continue or return (nor after the write)
        s[:, i] = <expression without s>             # lanes stacked in NumPy vectors
    or
        for lane in range(lanes):       # lanes: bound once to the lane count W
            <statements not naming s>
            s[lane, i] = <expression without s>      # lanes looped over (numba)

with B >= L at the preparation's shapes (which every prepared call has; `lanes` is a number
or `p.shape[0]` equal to the tangent's first axis), no statement before it returns, and the
loop names `s` nowhere else except as that same element. Anything else (a tangent read,
written conditionally, partly, through another name, or never) keeps its zeroing.

>>> source = '''
... def f(y, y_dot, x, x_dot):
...     for i in range(len(x)):
...         y_dot[:, i] = x_dot[:, i] * 2.0
...         y[i] = 2.0 * x[i]
...     return None, ()
... '''
>>> sorted(overwritten_first(source, {"y_dot": 3}, {"x": (3,), "y_dot": (2, 3)}))
['y_dot']
>>> sorted(overwritten_first(source, {"y_dot": 4}, {"x": (3,), "y_dot": (2, 4)}))
[]
"""

from __future__ import annotations

import ast
import functools

from srcad.analysis.lifted_loops import as_loops

_EXITS = (ast.Return, ast.Break, ast.Continue, ast.Yield, ast.YieldFrom)


def overwritten_first(source: str, candidates: dict, shapes: dict) -> set:
    """The names among `candidates` (tangent parameter -> its array's length L) that the
    first function of `source` writes in full, every lane, before reading any element.
    `shapes`: parameter -> shape at the preparation (the bounds `len(p)`, `p.shape[k]`)."""
    function = _first_function(source)
    params = {a.arg for a in function.args.args}
    stored = _stored_names(function)
    fixed = {p: shape for p, shape in shapes.items() if p in params and p not in stored}
    lane_counts = _lane_counts(function, fixed, stored)
    return {name for name, length in candidates.items() if name in fixed
            and _first_use_overwrites(function.body, name, length, fixed, lane_counts)}


def parameters(source: str) -> list:
    """The parameter names of the first function of `source`, in order."""
    function = _first_function(source)
    return [a.arg for a in function.args.args]


def indexed_only(source: str, name: str) -> bool:
    """Does the first function of `source` use `name` only as `name[...]` or `name.shape`?
    Then the code reads and writes it element by element, whatever its memory layout (a
    transposed view passed in its place is written through, never copied)."""
    function = _first_function(source)
    allowed = {id(node.value) for node in ast.walk(function)
               if isinstance(node, (ast.Subscript, ast.Attribute))
               and isinstance(node.value, ast.Name) and node.value.id == name
               and (isinstance(node, ast.Subscript) or node.attr == "shape")}
    return all(id(node) in allowed for node in ast.walk(function)
               if isinstance(node, ast.Name) and node.id == name
               and isinstance(node.ctx, ast.Load))


@functools.lru_cache(maxsize=8)
def _first_function(source: str) -> ast.FunctionDef:
    """The first function of `source`, its loops run on all iterations at once read as the
    loops they are (srcad/analysis/lifted_loops.py). Kept for the next question about the
    same source (a preparation asks three; nothing here changes the tree)."""
    return as_loops(next(node for node in ast.parse(source).body
                         if isinstance(node, ast.FunctionDef)))


def _stored_names(function) -> dict:
    """name -> how many times the function binds it (assignments, loop targets, ...)."""
    counts: dict = {}
    for node in ast.walk(function):
        if isinstance(node, ast.Name) and isinstance(node.ctx, (ast.Store, ast.Del)):
            counts[node.id] = counts.get(node.id, 0) + 1
    return counts


def _lane_counts(function, fixed, stored) -> dict:
    """Names bound once, at the top level, to a number or to `<argument>.shape[0]` -> that
    count at the preparation's shapes (a lane loop covers every lane when it equals the
    first axis of the tangent it writes)."""
    counts = {}
    for stmt in function.body:
        if isinstance(stmt, ast.Assign) and len(stmt.targets) == 1 \
                and isinstance(stmt.targets[0], ast.Name) and stored[stmt.targets[0].id] == 1:
            value = stmt.value
            if isinstance(value, ast.Subscript) and not _is_number(value.slice, 0):
                continue  # `p.shape[k]`, k > 0, is no lane count
            count = _known_int(value, fixed)
            if count is not None:
                counts[stmt.targets[0].id] = count
    return counts


def _first_use_overwrites(body, name, length, fixed, lane_counts) -> bool:
    for stmt in body:
        if isinstance(stmt, ast.Assign) and isinstance(stmt.targets[0], ast.Name) \
                and stmt.targets[0].id in lane_counts:
            continue  # `lanes = name.shape[0]` reads a shape, no element
        if not _names(stmt, name):
            if any(isinstance(node, ast.Return) for node in ast.walk(stmt)):
                return False  # the function may end before the tangent is written
            continue
        lanes = {count_name for count_name, count in lane_counts.items()
                 if count == fixed[name][0]}  # the loops over every lane of `name`
        bound = _covering_loop(stmt, name, fixed, lanes)
        return bound is not None and bound >= length
    return False  # never written: its content on entry is the result


def _covering_loop(stmt, name, fixed, lane_counts):
    """B of `for i in range(B)` writing name[:, i] (or name[lane, i] over every lane) before
    any other use of `name`, else None."""
    if not (isinstance(stmt, ast.For) and isinstance(stmt.target, ast.Name)) or stmt.orelse:
        return None
    index = stmt.target.id
    bound = _range_bound(stmt.iter, fixed)
    if bound is None or _binds(stmt.body, index):
        return None
    for position, inner in enumerate(stmt.body):
        if not _names(inner, name):
            if _exits(inner):
                return None
            continue
        if _is_element_write(inner, name, ast.Slice, index) or \
                _is_lane_loop_write(inner, name, index, lane_counts):
            written = _element_dump(inner, name)
            rest = stmt.body[position + 1:]  # a break or return there ends the loop early
            return bound if all(_only_element(s, name, written) and not _exits(s)
                                for s in rest) else None
        return None
    return None


def _is_lane_loop_write(stmt, name, index, lane_counts) -> bool:
    """`for lane in range(lanes): <no name>...; name[lane, index] = <no name>; <name[lane,
    index] only>...`"""
    if not (isinstance(stmt, ast.For) and isinstance(stmt.target, ast.Name)) or stmt.orelse:
        return False
    lane = stmt.target.id
    call = stmt.iter
    if not (_is_range(call) and len(call.args) == 1 and isinstance(call.args[0], ast.Name)
            and call.args[0].id in lane_counts) or _binds(stmt.body, lane):
        return False
    for position, inner in enumerate(stmt.body):
        if not _names(inner, name):
            if _exits(inner):
                return False
            continue
        if not _is_element_write(inner, name, ast.Name, index, lane):
            return False
        written = ast.dump(inner.targets[0].slice)  # a break there would skip later lanes
        return all(_only_element(s, name, written) and not _exits(s)
                   for s in stmt.body[position + 1:])
    return False


def _is_element_write(stmt, name, lane_kind, index, lane=None) -> bool:
    """`name[<all lanes>, index] = <expression not naming name>`: all lanes is `:` (stacked)
    or the lane loop's variable."""
    if not (isinstance(stmt, ast.Assign) and len(stmt.targets) == 1):
        return False
    target = stmt.targets[0]
    if not (isinstance(target, ast.Subscript) and isinstance(target.value, ast.Name)
            and target.value.id == name and isinstance(target.slice, ast.Tuple)
            and len(target.slice.elts) == 2):
        return False
    lanes, element = target.slice.elts
    if lane_kind is ast.Slice:
        all_lanes = isinstance(lanes, ast.Slice) and lanes.lower is None \
            and lanes.upper is None and lanes.step is None
    else:
        all_lanes = isinstance(lanes, ast.Name) and lanes.id == lane
    return all_lanes and isinstance(element, ast.Name) and element.id == index \
        and not _names(stmt.value, name)


def _element_dump(stmt, name) -> str:
    """The written element's subscript (ast.dump) of a covering write statement."""
    for node in ast.walk(stmt):
        if isinstance(node, ast.Assign) and isinstance(node.targets[0], ast.Subscript) \
                and isinstance(node.targets[0].value, ast.Name) \
                and node.targets[0].value.id == name:
            return ast.dump(node.targets[0].slice)
    return ""


def _only_element(stmt, name, written) -> bool:
    """`stmt` names `name` only as the element just written (`name[<written>]`)."""
    allowed = set()
    for node in ast.walk(stmt):
        if isinstance(node, ast.Subscript) and isinstance(node.value, ast.Name) \
                and node.value.id == name and ast.dump(node.slice) == written:
            allowed.add(id(node.value))
    return all(id(node) in allowed for node in ast.walk(stmt)
               if isinstance(node, ast.Name) and node.id == name)


def _range_bound(call, fixed):
    """B of `range(B)` / `range(0, B)` with B known at the preparation's shapes, else None."""
    if not _is_range(call) or call.keywords:
        return None
    if len(call.args) == 2 and _is_number(call.args[0], 0):
        return _known_int(call.args[1], fixed)
    return _known_int(call.args[0], fixed) if len(call.args) == 1 else None


def _known_int(node, fixed):
    if isinstance(node, ast.Constant) and type(node.value) is int:
        return node.value
    if isinstance(node, ast.Call) and isinstance(node.func, ast.Name) and node.func.id == "len" \
            and len(node.args) == 1 and isinstance(node.args[0], ast.Name) and not node.keywords:
        shape = fixed.get(node.args[0].id)
        return shape[0] if shape else None
    if isinstance(node, ast.Subscript) and isinstance(node.value, ast.Attribute) \
            and node.value.attr == "shape" and isinstance(node.value.value, ast.Name) \
            and isinstance(node.slice, ast.Constant) and type(node.slice.value) is int:
        shape = fixed.get(node.value.value.id)
        if shape is not None and 0 <= node.slice.value < len(shape):
            return shape[node.slice.value]
    return None


def _is_range(node) -> bool:
    return isinstance(node, ast.Call) and isinstance(node.func, ast.Name) \
        and node.func.id == "range"


def _is_number(node, value) -> bool:
    return isinstance(node, ast.Constant) and type(node.value) is int and node.value == value


def _names(node, name) -> bool:
    return any(isinstance(n, ast.Name) and n.id == name for n in ast.walk(node))


def _binds(statements, name) -> bool:
    return any(isinstance(n, ast.Name) and n.id == name and isinstance(n.ctx, ast.Store)
               for stmt in statements for n in ast.walk(stmt))


def _exits(stmt) -> bool:
    return any(isinstance(n, _EXITS) for n in ast.walk(stmt))
