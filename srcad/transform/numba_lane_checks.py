"""The conditions of numba_outer_lanes.py's rewrite (its module docstring): which nests of a
loop over points running a loop over components may have their points in lanes, and what goes
into lanes."""

from __future__ import annotations

import gast

from srcad.analysis.value_types import FLOAT, INT
from srcad.frontend import syntax as S
from srcad.transform.numba_column_jam import _LIKE, _fresh_call, _fresh_vector
from srcad.transform.numba_extremum_lanes import _is_range, _pure
from srcad.transform.numba_zero_adjoints import dead_after


def nest_parts(fn, outer, env):
    """(the `k` loop, the tail, the names and work vectors in lanes, the result vectors, the
    types with srcad's float temporaries added) when `outer` is a nest to rewrite (the module
    docstring of numba_outer_lanes.py), else None."""
    if outer.orelse or not isinstance(outer.target, gast.Name) \
            or not _is_range(outer.iter) or len(outer.iter.args) != 1:
        return None
    body = [s for s in outer.body if not S.is_comment(s)]
    if not body or not isinstance(body[0], gast.For):
        return None
    inner, tail = body[0], body[1:]
    if not any(isinstance(s, gast.For) for s in inner.body):
        return None  # a point's loop over k would stay innermost: nothing to gain
    if inner.orelse or not isinstance(inner.target, gast.Name) \
            or not _is_range(inner.iter) or len(inner.iter.args) != 1:
        return None
    i, k = outer.target.id, inner.target.id
    assigned = _stored(outer)
    if i == k or _mentions(outer.iter) & assigned or _mentions(inner.iter) & assigned:
        return None
    statements = _statements(inner.body)
    if statements is None:
        return None
    written = _stored(inner) - {k}
    arrays = {n.value.id for s in statements for n in S.walk(s)
              if isinstance(n, gast.Subscript) and isinstance(n.ctx, gast.Store)}
    names = written - arrays
    if i in written or arrays & _stored_names(inner) \
            or not all(_own_vector(fn, a, env) for a in arrays):
        return None
    results = _results(inner, arrays)
    if results is None:
        return None
    vectors = arrays - results
    if not _private(inner, names, vectors, fn) \
            or not _tail_apart(fn, tail, inner, vectors):
        return None
    scalars = _variant(inner, statements, i, vectors)
    if scalars is None or not _covered(fn, inner.body, vectors, scalars):
        return None
    for s in sorted(scalars & names):  # srcad's own temporaries: floats where plainly so
        if _number_type(env, s) is None and _float_values(statements, s, arrays, env):
            env = _Typed(env, s)
    if any(_number_type(env, s) is None for s in scalars & names):
        return None
    return inner, tail, scalars & names, scalars & vectors, results, env


def _mentions(node) -> set:
    return {n.id for n in S.walk(node) if isinstance(n, gast.Name)}


def _stored(node) -> set:
    """The names `node` assigns (loop targets too) and the arrays whose elements it writes."""
    out = set()
    for n in S.walk(node):
        if isinstance(n, gast.Name) and isinstance(n.ctx, gast.Store):
            out.add(n.id)
        elif isinstance(n, gast.Subscript) and isinstance(n.ctx, gast.Store) \
                and isinstance(n.value, gast.Name):
            out.add(n.value.id)
    return out


def _value_reads(node, arrays) -> set:
    """The names `node`'s value depends on: every name it reads, but an array of `arrays`
    only where its elements are read (not in `len(w)`, `w.shape`)."""
    skip = set()
    for n in S.walk(node):
        if isinstance(n, gast.Call) and isinstance(n.func, gast.Name) and n.func.id == "len" \
                and len(n.args) == 1 and isinstance(n.args[0], gast.Name):
            skip.add(id(n.args[0]))
        elif isinstance(n, gast.Attribute) and n.attr in ("shape", "size") \
                and isinstance(n.value, gast.Name):
            skip.add(id(n.value))
    return {n.id for n in S.walk(node) if isinstance(n, gast.Name)
            and isinstance(n.ctx, gast.Load) and not (n.id in arrays and id(n) in skip)}


def _statements(body):
    """The simple statements of `body` (nested loops and `if`s walked) when every statement
    is one the rewrite takes, else None."""
    out = []
    for stmt in body:
        if S.is_comment(stmt):
            continue
        if isinstance(stmt, gast.For):
            if stmt.orelse or not isinstance(stmt.target, gast.Name) or not _is_range(stmt.iter):
                return None
            inner = _statements(stmt.body)
        elif isinstance(stmt, gast.If):
            inner = _statements(stmt.body + stmt.orelse) if _pure(stmt.test) else None
        elif isinstance(stmt, gast.Assign) and len(stmt.targets) == 1 \
                and isinstance(stmt.targets[0], (gast.Name, gast.Subscript)) \
                or isinstance(stmt, gast.AugAssign) \
                and isinstance(stmt.target, (gast.Name, gast.Subscript)):
            target = stmt.targets[0] if isinstance(stmt, gast.Assign) else stmt.target
            if not _pure(stmt.value) or not _pure(S.as_load(target)) \
                    or isinstance(target, gast.Subscript) \
                    and not isinstance(target.value, gast.Name):
                return None
            inner = [stmt]
        else:
            return None
        if inner is None:
            return None
        out += inner
    return out


def _stored_names(node) -> set:
    return {n.id for n in S.walk(node)
            if isinstance(n, gast.Name) and isinstance(n.ctx, gast.Store)}


def _number_type(env, name):
    """FLOAT or INT: `name`'s type, a forward-mode shadow's (`s_dot`) that of its float; else
    None."""
    t = env.get(name)
    if t is None and name.endswith("_dot") and env.get(name[:-4]) == FLOAT:
        return FLOAT
    return t if t in (FLOAT, INT) else None


class _Typed:
    """`env` with one more float name."""

    def __init__(self, env, name):
        self.env, self.name = env, name

    def get(self, name, default=None):
        return FLOAT if name == self.name else self.env.get(name, default)


_FLOAT_MATH = frozenset({"exp", "log", "sqrt", "sin", "cos", "tanh", "log1p", "expm1"})


def _float_values(statements, name, vectors, env) -> bool:
    """Whether every assignment of `name` among `statements` is `name = e` with `e` plainly a
    float: a float literal, float name or element of a work vector, `math.exp(...)` (`log`,
    ...), or arithmetic with such an operand."""

    def floating(node) -> bool:
        if isinstance(node, gast.Constant):
            return type(node.value) is float
        if isinstance(node, gast.Name):
            return _number_type(env, node.id) == FLOAT
        if isinstance(node, gast.Subscript):
            return isinstance(node.value, gast.Name) and node.value.id in vectors
        if isinstance(node, gast.UnaryOp):
            return isinstance(node.op, (gast.USub, gast.UAdd)) and floating(node.operand)
        if isinstance(node, gast.BinOp):
            return isinstance(node.op, (gast.Add, gast.Sub, gast.Mult, gast.Div)) \
                and (floating(node.left) or floating(node.right))
        return (isinstance(node, gast.Call) and isinstance(node.func, gast.Attribute)
                and isinstance(node.func.value, gast.Name) and node.func.value.id == "math"
                and node.func.attr in _FLOAT_MATH)

    assigned = [st for st in statements if name in _stored_names(st)]
    return bool(assigned) and all(isinstance(st, gast.Assign) and floating(st.value)
                                  for st in assigned)


def _own_vector(fn, array, env) -> bool:
    """Whether `array` is a one-dimensional float array of `fn`'s own that no other name sees
    (numba_column_jam's `_fresh_vector`), or bound once to `np.zeros_like(w)` (`empty_like`,
    `ones_like`: a forward-mode shadow) of such a `w`."""
    bindings = [n for n in S.walk(fn) if isinstance(n, gast.Assign)
                and any(isinstance(t, gast.Name) and t.id == array for t in n.targets)]
    if len(bindings) == 1 and _fresh_call(bindings[0].value, _LIKE) \
            and isinstance(bindings[0].value.args[0], gast.Name):
        source = bindings[0].value.args[0].id
        return source != array and _own_vector(fn, source, env) \
            and _fresh_vector(fn, array, like=True)
    t = env.get(array)
    return getattr(t, "ndim", None) == 1 and getattr(t, "is_float", False) \
        and _fresh_vector(fn, array)


def _results(inner, arrays):
    """The arrays written only by `r[k] = e` at the top of the `k` loop's body and not read in
    it (the result vectors), or None when one of them is also read or written otherwise."""
    k = inner.target.id
    results = set()
    for stmt in inner.body:
        if isinstance(stmt, gast.Assign) and isinstance(stmt.targets[0], gast.Subscript) \
                and isinstance(stmt.targets[0].slice, gast.Name) \
                and stmt.targets[0].slice.id == k:
            results.add(stmt.targets[0].value.id)
    for r in list(results):
        stores = [n for n in S.walk(inner) if isinstance(n, gast.Subscript)
                  and isinstance(n.value, gast.Name) and n.value.id == r]
        tops = [s for s in inner.body if isinstance(s, gast.Assign)
                and isinstance(s.targets[0], gast.Subscript) and s.targets[0] in stores]
        if len(stores) != len(tops) or any(r in _mentions(s.value) for s in tops):
            results.discard(r)  # read in the body, or written elsewhere: a work vector
    return results


def _private(inner, names, vectors, fn) -> bool:
    """Whether each iteration of `inner` computes its names afresh (assigned at the top of
    the body before any mention, or a loop target mentioned only in loops over it), they are
    dead after the loop, and its work vectors are mentioned outside it only where bound."""
    loops = [s for s in S.walk(inner) if isinstance(s, gast.For) and s is not inner]
    targets = {s.target.id for s in loops}
    fresh = _fresh(inner.body)
    if (names - targets) - fresh or targets & fresh:
        return False
    for t in targets:
        inside = {id(n) for s in loops if s.target.id == t for n in S.walk(s)}
        if any(isinstance(n, gast.Name) and n.id == t and id(n) not in inside
               for n in S.walk(inner)):
            return False
    if not dead_after(fn, inner):
        return False
    bound = {id(t) for n in S.walk(fn) if isinstance(n, gast.Assign) for t in n.targets}
    bound |= {id(n.args[0]) for n in S.walk(fn) if _fresh_call(n, _LIKE)}  # its shape
    body_names = {id(n) for n in S.walk(inner)}
    return all(id(n) in body_names or id(n) in bound for n in S.walk(fn)
               if isinstance(n, gast.Name) and n.id in vectors)


def _fresh(block) -> set:
    """The names `block` assigns before any mention, at its top or, mentioned nowhere else in
    it, at the top of a nested block."""
    seen, fresh = set(), set()
    for stmt in block:
        if isinstance(stmt, gast.Assign) and isinstance(stmt.targets[0], gast.Name) \
                and stmt.targets[0].id not in seen | _mentions(stmt.value):
            fresh.add(stmt.targets[0].id)
        for field in ("body", "orelse"):
            nested = getattr(stmt, field, None) if isinstance(stmt, (gast.For, gast.If)) \
                else None
            if nested:
                elsewhere = _mentions(gast.Module(body=[s for s in block if s is not stmt],
                                                  type_ignores=[]))
                elsewhere |= _mentions(stmt.test if isinstance(stmt, gast.If) else stmt.iter)
                other = stmt.orelse if field == "body" else stmt.body
                elsewhere |= set().union(*(_mentions(s) for s in other)) if other else set()
                fresh |= _fresh(nested) - elsewhere - seen
        seen |= _mentions(stmt)
    return fresh


def _tail_apart(fn, tail, inner, vectors) -> bool:
    """Whether the tail writes only names the `k` loop does not read (but those it assigns
    afresh in each iteration) and elements of one-dimensional arrays of the function's own
    that the loop does not mention, calls nothing impure, does not mention the loop's work
    vectors, and has no `break`, `return`, `raise` or `try`."""
    mentioned = _mentions(inner)
    free = mentioned - _stored(inner)  # what the loop reads and does not compute afresh
    ranges = {id(n.iter) for s in tail for n in S.walk(s)
              if isinstance(n, gast.For) and _is_range(n.iter)}
    for stmt in tail:
        for n in S.walk(stmt):
            if isinstance(n, (gast.Break, gast.Return, gast.Raise, gast.Try)):
                return False  # the points after it would run their components all the same
            if isinstance(n, gast.Subscript) and isinstance(n.ctx, gast.Store):
                if not isinstance(n.value, gast.Name) or n.value.id in mentioned \
                        or not _fresh_vector(fn, n.value.id):
                    return False
            elif isinstance(n, gast.Name) and isinstance(n.ctx, gast.Store) \
                    and n.id in free:
                return False
            elif isinstance(n, gast.Call) and id(n) not in ranges and not _pure(n):
                return False
        if _mentions(stmt) & vectors:
            return False
    return True


def _variant(inner, statements, i, vectors):
    """The names and work vectors whose values depend on the point `i` (the statements'
    values computed from them), or None when a loop bound, `if` test or written index does."""
    variant = {i}
    changed = True
    while changed:
        changed = False
        for stmt in statements:
            target = stmt.targets[0] if isinstance(stmt, gast.Assign) else stmt.target
            reads = _value_reads(stmt.value, vectors)
            if isinstance(target, gast.Subscript):
                if _value_reads(target.slice, vectors) & variant:
                    return None
                if isinstance(stmt, gast.AugAssign) and target.value.id in variant:
                    reads |= {target.value.id}
                owner = target.value.id
            else:
                owner = target.id
            if reads & variant and owner not in variant:
                variant.add(owner)
                changed = True
    headers = [s.iter for s in S.walk(inner) if isinstance(s, gast.For) and s is not inner]
    headers += [s.test for s in S.walk(inner) if isinstance(s, gast.If)]
    if any(_value_reads(h, vectors) & variant for h in headers):
        return None
    return variant - {i}


def _covered(fn, body, vectors, variant) -> bool:
    """Whether each of `vectors` is first written whole in `body` (the module docstring)."""
    lengths = _lengths(fn)
    for w in vectors:
        first = next((s for s in body if w in _value_reads(s, {w}) | _stored(s)), None)
        if not isinstance(first, gast.For) or len(first.iter.args) != 1:
            return False
        j = first.target.id
        size = lengths["__canonical__"](first.iter.args[0])
        statements = [s for s in first.body if not S.is_comment(s)]
        write = next((s for s in statements if w in _mentions(s)), None)
        if size is None or size != lengths.get(w) or not isinstance(write, gast.Assign) \
                or not isinstance(write.targets[0], gast.Subscript) \
                or not isinstance(write.targets[0].value, gast.Name) \
                or write.targets[0].value.id != w \
                or not isinstance(write.targets[0].slice, gast.Name) \
                or write.targets[0].slice.id != j or w in _mentions(write.value) \
                or j in _stored_names(gast.Module(body=first.body, type_ignores=[])) \
                or variant & _value_reads(first.iter, set()):
            return False
        # in the loop, only the element just written: the others are the last component's
        if any(isinstance(n, gast.Subscript) and isinstance(n.value, gast.Name)
               and n.value.id == w and not (isinstance(n.slice, gast.Name) and n.slice.id == j)
               for n in S.walk(first)):
            return False
    return True


def _lengths(fn) -> dict:
    """{name bound once: what it is bound to}, names of parameters never bound mapped to
    themselves, and a work vector's `np.zeros(n)` to `n`'s (as strings)."""
    bindings = {}
    for n in S.walk(fn):
        heads = n.targets if isinstance(n, gast.Assign) else [n.target] \
            if isinstance(n, (gast.AugAssign, gast.For, gast.AnnAssign)) else []
        for name in {m for h in heads for m in _stored_names(h)}:
            bindings.setdefault(name, []).append(n)
    single = {name: b[0].value for name, b in bindings.items()
              if len(b) == 1 and isinstance(b[0], gast.Assign) and len(b[0].targets) == 1
              and isinstance(b[0].targets[0], gast.Name)}
    params = {a.id for a in fn.args.args} - set(bindings)
    unpacked = {}  # `n, d = x.shape`: d -> "x.shape[1]"
    for name, b in bindings.items():
        value = b[0].value if len(b) == 1 and isinstance(b[0], gast.Assign) else None
        if isinstance(value, gast.Attribute) and value.attr == "shape" \
                and isinstance(value.value, gast.Name) and value.value.id in params \
                and isinstance(b[0].targets[0], gast.Tuple):
            names = [getattr(t, "id", None) for t in b[0].targets[0].elts]
            unpacked[name] = f"{value.value.id}.shape[{names.index(name)}]"
    out = {}

    def canonical(node, depth=0):
        if depth > 8:
            return None
        if isinstance(node, gast.Name):
            if node.id in params:
                return node.id
            if node.id in unpacked:
                return unpacked[node.id]
            if node.id in single:
                return canonical(single[node.id], depth + 1)
            return None
        if isinstance(node, gast.Call) and isinstance(node.func, gast.Name) \
                and node.func.id == "len" and len(node.args) == 1 \
                and isinstance(node.args[0], gast.Name) and node.args[0].id in single \
                and _fresh_call(single[node.args[0].id], ("zeros", "empty", "ones")):
            return canonical(single[node.args[0].id].args[0], depth + 1)
        if isinstance(node, gast.Constant) and type(node.value) is int:
            return repr(node.value)
        if isinstance(node, gast.Subscript) and isinstance(node.slice, gast.Constant) \
                and isinstance(node.value, gast.Attribute) and node.value.attr == "shape" \
                and isinstance(node.value.value, gast.Name) and node.value.value.id in params:
            return S.unparse_expr(node)
        return None

    for name, value in single.items():
        if _fresh_call(value, ("zeros", "empty", "ones")):
            out[name] = canonical(value.args[0])
    for name, value in single.items():  # an array like another: its length
        if _fresh_call(value, _LIKE) and isinstance(value.args[0], gast.Name):
            out[name] = out.get(value.args[0].id)
    out["__canonical__"] = canonical
    return out
