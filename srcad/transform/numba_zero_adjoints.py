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
from srcad.transform.numba_loop_sites import replace_loops
from srcad.transform.numba_step_effects import dead_after, follow


def zero_adjoint_loops(tree, bars: dict, types: dict):
    """`tree` with the loops the module docstring describes guarded (in place); `bars` maps
    a name to its adjoint's name, `types` a name to its value type (`g`'s primal is a
    float)."""
    adjoints = set(bars.values())
    if not adjoints:
        return tree
    floats = {bar for v, bar in bars.items() if types.get(v) == FLOAT}
    for fn in [n for n in S.walk(tree) if isinstance(n, gast.FunctionDef)]:
        def guarded(loop, fn=fn):
            g = _scale(loop, adjoints, floats)
            if g is None or not dead_after(fn, loop):
                return None
            return [S.comment(f"runs only for a nonzero {g} "
                              "(srcad/transform/numba_zero_adjoints.py)"),
                    gast.copy_location(gast.If(test=S.parse_expr(f"{g} != 0.0"), body=[loop],
                                               orelse=[]), loop)]
        replace_loops(fn, guarded)
    return tree


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
    """Whether each statement assigns a name or adds into an adjoint a value that vanishes
    when `g` is zero, and none assigns `g`."""
    step = follow(statements, zero={g}, adjoints=adjoints, allowed=_pure)
    return step is not None and g not in step.values
