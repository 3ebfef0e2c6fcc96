"""python backend: rows indexed in a loop are bound to a view once, before the loop.

`a[2 * k + 1, j]` in a loop over `j` computes the row index and takes a 2-d element on every
iteration; CPython indexes a 1-d view about twice as fast (`row[j]`). Generated reverse code
indexes the state a primal passed as row views (`lstm_model(..., state[2 * i], ...)`, which
normalization turns into `state[2 * i, j]`) on every element, in both sweeps and in their
adjoints, so the pass binds `a_row = a[2 * k + 1]` before the loop and reads `a_row[j]`.

Guarantees (nothing a caller can observe changes):
* the leading indices are integers (constants, or names the type analysis types as int, and
  + - * // % of those) that nothing in the loop rebinds, and `a` is an array (typed so, never
  also a number) the loop does not rebind: `a[p][rest]` is then `a[p, rest]`, for reads and
  writes (an integer prefix makes a view, so a write through the row writes `a`);
* the row is made only when the loop runs at least once (`if j_range:`): a row index that is
  only valid while the loop has trips (`a[i + 1, j] for j in range(i + 1, n)` at i = n - 1)
  is never evaluated otherwise;
* only subscripts in the loop's own straight-line statements (not under a branch or an inner
  loop) in a loop with no break, continue, return or raise, so every iteration evaluates them:
  the view is taken no earlier than the first iteration would have indexed the row;
* a row read once per iteration is left as it is (making the view costs about two reads).
"""

from __future__ import annotations

import gast

from srcad.analysis.value_types import INT, Array
from srcad.frontend import syntax as S

_COMPOUND = (gast.If, gast.For, gast.While, gast.With, gast.Try)
_EXITS = (gast.Break, gast.Continue, gast.Return, gast.Raise, gast.Yield, gast.Try)
_INT_OPS = (gast.Add, gast.Sub, gast.Mult, gast.FloorDiv, gast.Mod)
MIN_USES = 2  # subscripts of one row per iteration before a view pays for itself


def row_view_types(types, bars: dict) -> tuple[dict, set]:
    """({array name: rank}, {int name}) from the primal's types; an adjoint `v_bar` (`bars`)
    is an array of v's rank."""
    arrays = {v: t.ndim for v, t in types.env.items()
              if isinstance(t, Array) and v not in types.mixed}
    arrays.update({bar: arrays[v] for v, bar in bars.items() if v in arrays})
    ints = {v for v, t in types.env.items() if t == INT and v not in types.mixed}
    return arrays, ints


def hoist_row_views(fn: gast.FunctionDef, arrays: dict, ints: set, namer) -> set:
    """Rewrite `fn`'s loops in place (see the module docstring); the names of the rows."""
    made: list = []
    fn.body = _block(fn.body, arrays, ints, namer, made)
    return {stmt.targets[0].id for hoisted in made for stmt in hoisted[1].body}


def _block(stmts: list, arrays, ints, namer, made: list) -> list:
    out = []
    for stmt in stmts:
        for field in ("body", "orelse", "finalbody"):
            if isinstance(getattr(stmt, field, None), list):
                setattr(stmt, field, _block(getattr(stmt, field), arrays, ints, namer, made))
        if isinstance(stmt, gast.Try):
            for handler in stmt.handlers:
                handler.body = _block(handler.body, arrays, ints, namer, made)
        if isinstance(stmt, gast.For):
            hoisted = _hoisted(stmt, arrays, ints, namer)
            if hoisted:
                made.append(hoisted)
            out += hoisted
        out.append(stmt)
    return out


def _range_of(loop: gast.For):
    """(the range(...) call, reversed?) of `for v in range(...)` / `reversed(range(...))`."""
    it = loop.iter
    reverse = _is_call(it, "reversed") and len(it.args) == 1
    if reverse:
        it = it.args[0]
    return (it, reverse) if _is_call(it, "range") else (None, False)


def _is_call(node, name) -> bool:
    return isinstance(node, gast.Call) and isinstance(node.func, gast.Name) \
        and node.func.id == name and not node.keywords


def _hoisted(loop: gast.For, arrays, ints, namer) -> list:
    """The statements to put before `loop` (rewriting its body), or []."""
    rng, reverse = _range_of(loop)
    if rng is None or loop.orelse or _row_reads(loop.body, arrays) < MIN_USES \
            or any(isinstance(n, _EXITS) for n in S.nodes(loop)):
        return []  # (too few row reads of its own: its nest is not walked)
    changed = set().union(S.stored_names(loop), *(S.stored_names(s) for s in loop.body))
    rebound = set().union(S.bound_names(loop), *(S.bound_names(s) for s in loop.body))
    def subscripts(stmts):
        """[(key, subscript, prefix length)] of the rows `stmts` index."""
        found = []
        for stmt in stmts:
            if isinstance(stmt, _COMPOUND) or S.is_comment(stmt):
                continue
            for node in S.nodes(stmt):
                k = _row_prefix(node, arrays, ints, changed, rebound)
                if k:
                    found.append(((node.value.id, gast.dump(gast.Tuple(
                        elts=node.slice.elts[:k], ctx=gast.Load()))), node, k))
        return found

    counts: dict = {}
    for key, _, _ in subscripts(loop.body):
        counts[key] = counts.get(key, 0) + 1
    hoist = sorted(key for key, n in counts.items() if n >= MIN_USES)
    if not hoist:
        return []
    # rewritten in copies: generated statements may share nodes with code outside the loop
    loop.body = [S.clone(stmt) for stmt in loop.body]
    rows, names = [], {}
    for key, node, k in subscripts(loop.body):
        if key not in hoist:
            continue
        if key not in names:
            names[key] = row = namer.fresh(f"{key[0]}_row")
            prefix = [S.clone(e) for e in node.slice.elts[:k]]
            rows.append(S.assign(S.name(row, store=True), gast.Subscript(
                value=S.name(key[0]), slice=prefix[0] if k == 1 else gast.Tuple(
                    elts=prefix, ctx=gast.Load()), ctx=gast.Load())))
        rest = node.slice.elts[k:]
        node.value = S.name(names[key])
        node.slice = rest[0] if len(rest) == 1 else gast.Tuple(elts=rest, ctx=gast.Load())
    if not rows:
        return []
    target = loop.target.id if isinstance(loop.target, gast.Name) else "loop"
    trips = namer.fresh(f"{target}_range")
    loop.iter = S.call("reversed", S.name(trips)) if reverse else S.name(trips)
    return [S.assign(S.name(trips, store=True), rng),
            gast.If(test=S.name(trips), body=rows, orelse=[])]


def _row_reads(stmts, arrays) -> int:
    """At least the reads `a[e1, e2, ...]` of an array that `_row_prefix` may take as rows,
    in the simple statements of `stmts` (not those inside its loops and branches)."""
    return sum(1 for stmt in stmts if not isinstance(stmt, _COMPOUND)
               for node in S.nodes(stmt) if isinstance(node, gast.Subscript)
               and isinstance(node.value, gast.Name) and node.value.id in arrays
               and isinstance(node.slice, gast.Tuple) and len(node.slice.elts) >= 2)


def _row_prefix(node, arrays, ints, changed, rebound) -> int:
    """k > 0 when `node` is `a[e1, ..., ek, rest...]` with e1..ek loop-invariant integers and
    `a` an array the loop does not rebind; else 0."""
    if not (isinstance(node, gast.Subscript) and isinstance(node.value, gast.Name)
            and isinstance(node.slice, gast.Tuple)):
        return 0
    array, elts = node.value.id, node.slice.elts
    if array not in arrays or array in rebound or len(elts) < 2 or arrays[array] < len(elts):
        return 0
    if any(isinstance(e, gast.Starred) or (isinstance(e, gast.Constant) and (
            e.value is None or e.value is Ellipsis)) for e in elts):
        return 0
    k = 0
    while k < len(elts) - 1 and _invariant_int(elts[k], ints, changed):
        k += 1
    return k


def _invariant_int(e, ints, changed) -> bool:
    if isinstance(e, gast.Constant):
        return type(e.value) is int
    if isinstance(e, gast.Name):
        return e.id in ints and e.id not in changed
    if isinstance(e, gast.BinOp) and isinstance(e.op, _INT_OPS):
        return _invariant_int(e.left, ints, changed) and _invariant_int(e.right, ints, changed)
    if isinstance(e, gast.UnaryOp) and isinstance(e.op, gast.USub):
        return _invariant_int(e.operand, ints, changed)
    return False
