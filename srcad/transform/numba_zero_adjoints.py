"""numba, reverse mode: a loop of the reverse sweep that only adds multiples of one float
adjoint `g` into adjoint arrays runs when `g` is not zero.

The reverse sweep of `m = min(m, e)` passes `m`'s adjoint to `e` in the one iteration whose
`e` was taken and a zero to every other; when `e` is computed by a loop (kmeans's distance
of a point to each centroid, an inner loop over the coordinates), the reverse of that loop
runs for every centroid and adds `-(g * sub)` and the like, all zeros but one, into the
centroids' adjoints. Such a loop is kept behind `if g != 0.0:` (a NaN `g` still runs it).

What the skipped loop would have done: each contribution is a product with `g` as a factor,
`0.0 * v`, a zero of one sign or other when `v` is finite, and adding a zero leaves every
value as it is but a negative zero (which a positive zero makes positive): an adjoint that
srcad zeroed and only added into holds no negative zero, so the results are the same bits;
an entry already -0.0 (in a shadow the caller passed, or after a first contribution
assigned rather than added, srcad/transform/numba_first_adjoints.py) may keep that sign
where the loop as written made it +0.0. Where `v` is infinite or NaN, `0.0 * v` is NaN and the loop
as written makes that adjoint NaN (a centroid at infinity, nearest to no point); skipped, it
keeps the zero that forward mode computes too (its tangent of the `min` is a select, which
never multiplies the unselected tangent), while the python backend's reverse code, not
rewritten, gives the NaN.

A loop is guarded when it is a `for` over `range` whose bounds and body are pure (no calls
but `math` functions, `min`, `max`, `abs`, `float`), each statement of its body is either
`name = e` or `a_bar[...] += e` / `a_bar[...] -= e` into an adjoint `a_bar`, every added `e`
is proportional to `g` (a product with a factor proportional to `g`, a negation, a sum or
difference of two, or a quotient of one), `g` is a float adjoint the loop does not assign,
and every name the loop assigns (and its counter) is dead after it: each other read of it
follows an assignment of it in the same block.

>>> import gast
>>> from srcad.build.codegen import to_source
>>> tree = gast.parse("def f(g, a, b_bar, n):\\n"
...                   "    for t in range(n):\\n"
...                   "        s = a[t] * 2.0\\n"
...                   "        b_bar[t] += -(g * s)\\n"
...                   "    return b_bar\\n")
>>> print(to_source(zero_adjoint_loops(tree, {"b": "b_bar", "x": "g"}, {"x": FLOAT})).strip())
def f(g, a, b_bar, n):
    # runs only for a nonzero g (srcad/transform/numba_zero_adjoints.py)
    if g != 0.0:
        for t in range(n):
            s = a[t] * 2.0
            b_bar[t] += -(g * s)
    return b_bar
"""

from __future__ import annotations

import gast

from srcad.analysis.value_types import FLOAT
from srcad.frontend import syntax as S
from srcad.transform.numba_extremum_lanes import _is_range, _pure


def zero_adjoint_loops(tree, bars: dict, types: dict):
    """`tree` with the loops the module docstring describes guarded (in place); `bars` maps
    a name to its adjoint's name, `types` a name to its value type (`g`'s primal is a
    float)."""
    adjoints = set(bars.values())
    if not adjoints:
        return tree
    floats = {bar for v, bar in bars.items() if types.get(v) == FLOAT}
    for fn in (n for n in S.walk(tree) if isinstance(n, gast.FunctionDef)):
        for node in list(S.walk(fn)):
            for field in ("body", "orelse"):
                body = getattr(node, field, None)
                if isinstance(body, list) and any(isinstance(s, gast.For) for s in body):
                    setattr(node, field, _guarded(fn, body, adjoints, floats))
    return tree


def _guarded(fn, body, adjoints, floats) -> list:
    out = []
    for stmt in body:
        g = _scale(stmt, adjoints, floats) if isinstance(stmt, gast.For) else None
        if g is not None and dead_after(fn, stmt):
            out += [S.comment(f"runs only for a nonzero {g} "
                              "(srcad/transform/numba_zero_adjoints.py)"),
                    gast.copy_location(gast.If(test=S.parse_expr(f"{g} != 0.0"), body=[stmt],
                                               orelse=[]), stmt)]
        else:
            out.append(stmt)
    return out


def _scale(loop, adjoints, floats):
    """The adjoint `g` every contribution of `loop` is proportional to, or None."""
    if loop.orelse or not isinstance(loop.target, gast.Name) or not _is_range(loop.iter):
        return None
    statements = [s for s in loop.body if not S.is_comment(s)]
    assigned = {loop.target.id} | {s.targets[0].id for s in statements
                                   if isinstance(s, gast.Assign) and len(s.targets) == 1
                                   and isinstance(s.targets[0], gast.Name)}
    added = [s for s in statements if isinstance(s, gast.AugAssign)]
    if not added:
        return None
    candidates = {n for s in statements for n in S.loaded_names(s)
                  if n in floats and n not in assigned}
    for g in sorted(candidates):
        if _all_proportional(statements, g, adjoints):
            return g
    return None


def _all_proportional(statements, g, adjoints) -> bool:
    scaled = {g}  # names whose value is proportional to g at this point of the body
    for stmt in statements:
        if isinstance(stmt, gast.Assign) and len(stmt.targets) == 1 \
                and isinstance(stmt.targets[0], gast.Name) and _pure(stmt.value):
            name = stmt.targets[0].id
            if name == g:
                return False
            if _proportional(stmt.value, scaled):
                scaled.add(name)
            else:
                scaled.discard(name)
        elif isinstance(stmt, gast.AugAssign) and isinstance(stmt.op, (gast.Add, gast.Sub)) \
                and isinstance(stmt.target, gast.Subscript) \
                and isinstance(stmt.target.value, gast.Name) \
                and stmt.target.value.id in adjoints and _pure(stmt.target) \
                and _pure(stmt.value) and _proportional(stmt.value, scaled):
            continue
        else:
            return False
    return True


def _proportional(node, scaled) -> bool:
    """Whether `node` is zero (of either sign) or NaN whenever the names `scaled` are zero."""
    if isinstance(node, gast.Name):
        return node.id in scaled
    if isinstance(node, gast.UnaryOp):
        return isinstance(node.op, (gast.USub, gast.UAdd)) and _proportional(node.operand,
                                                                             scaled)
    if isinstance(node, gast.BinOp):
        if isinstance(node.op, gast.Mult):
            return _proportional(node.left, scaled) or _proportional(node.right, scaled)
        if isinstance(node.op, gast.Div):
            return _proportional(node.left, scaled)
        if isinstance(node.op, (gast.Add, gast.Sub)):
            return _proportional(node.left, scaled) and _proportional(node.right, scaled)
    return False


def dead_after(fn, loop, keep=frozenset()) -> bool:
    """Whether every name `loop` assigns (but those in `keep`) is, at each read outside the
    loop, assigned earlier in the same block (or an enclosing one) since the block began,
    with no pass through the loop in between: no read sees the loop's value. Conservative:
    a read elsewhere without such an assignment keeps the loop as it is."""
    names = {n.id for n in S.walk(loop) if isinstance(n, gast.Name)
             and isinstance(n.ctx, gast.Store)} - set(keep)
    return _reads_covered(fn.body, names, loop, frozenset())


def _reads_covered(block, names, loop, covered) -> bool:
    covered = set(covered)
    for stmt in block:
        if stmt is loop:
            covered = set()  # after the loop: its values, until assigned again
            continue
        if getattr(stmt, "handlers", None) and any(S.loaded_names(h) & names
                                                  for h in stmt.handlers):
            return False  # an except clause: not followed
        nested = [getattr(stmt, f) for f in ("body", "orelse", "finalbody")
                  if isinstance(getattr(stmt, f, None), list)]
        own = [stmt] if not nested else _headers(stmt)
        if any((S.loaded_names(part) & names) - covered for part in own):
            return False
        if not nested:
            if isinstance(stmt, gast.Assign) \
                    and all(isinstance(t, gast.Name) for t in stmt.targets):
                covered |= {t.id for t in stmt.targets} & names
            continue
        holds = any(n is loop for n in S.walk(stmt))
        repeats = isinstance(stmt, (gast.For, gast.While))
        if holds and isinstance(stmt, gast.While) and S.loaded_names(stmt.test) & names:
            return False  # tested again after the loop ran
        # a later iteration of a block holding the loop reads what the loop left
        inner = set() if holds and repeats else set(covered)
        if isinstance(stmt, gast.For) and isinstance(stmt.target, gast.Name):
            inner.add(stmt.target.id)
        if not all(_reads_covered(b, names, loop, inner) for b in nested):
            return False
        if holds:
            covered = set()
    return True


def _headers(stmt) -> list:
    """The expressions of a compound statement outside its blocks (a loop's bounds, an if's
    test)."""
    return [getattr(stmt, f) for f in ("iter", "test", "items") if getattr(stmt, f, None)
            is not None and not isinstance(getattr(stmt, f), list)]
