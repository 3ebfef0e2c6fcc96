"""numba: a loop over points `i` whose body runs a loop over components `k` (gmm's `for ix:
for ik: ...` computing `main_term[ik]` for one point, then the point's log-sum-exp) is split
in two and the first part interchanged: for a block of BLOCK points, all points of one
component at once, the point loop innermost, each point's values in lanes (an array with a
point axis); then the rest of the body point by point, reading the point's results back from
the lanes. The arithmetic of each point is the same, in the same order (every sum adds the
same terms in the same order: the results are bit-identical to the nest as written); what
changes is that each inner loop now runs over the block's points, long enough for LLVM's
vector loops, where the loops as written ran over the d coordinates of one point.

A nest is rewritten when it is `for i in range(A):` whose body (comments aside) is a
`for k in range(B):` holding a loop, followed by any statements (the tail), where
(srcad/transform/numba_lane_checks.py):

* `A` and `B` are pure and read no name the nest assigns;
* the `k` loop's body is made of assignments (`=`, `+=`, ...), `for` loops over `range` and
  `if`s, every expression pure (srcad/transform/numba_extremum_lanes.py's `_pure`), and
  writes only names and elements of *work vectors*: one-dimensional float arrays of the
  function's own that no other name sees (numba_column_jam.py's `_fresh_vector`; a
  forward-mode shadow `np.zeros_like(w)` of one too), bound outside the nest and mentioned
  outside the `k` loop only there;
* or of a *result* vector (the same kind of array), written only by `r[k] = e` at the top of
  the `k` loop's body and read nowhere in it: its elements `0 .. B - 1` hold after the `k`
  loop what the point's iteration computed;
* every name the `k` loop's body assigns is assigned before any mention at the top of the
  body (or of a nested block it is mentioned only in), or is the target of a loop and
  mentioned only inside loops over it, and is dead after the `k` loop
  (numba_zero_adjoints.dead_after): no iteration sees another's values;
* every work vector the body writes is first written whole by a loop `for j in range(L):
  w[j] = e` (`L` its length: `len(w)`, the argument of its `np.zeros`, or a name bound once
  to one of these; `e` not reading `w`, the loop reading no other element of `w`) before any
  other mention;
* the loop headers and `if` tests, and the indices of elements written, do not depend on
  the point; a name depending on it is a float (or an int) srcad's types know, or srcad's own
  temporary computed by float arithmetic;
* the tail writes only names the `k` loop does not read (but those it computes afresh) and
  elements of vectors of the function's own the `k` loop does not mention, does not mention
  its work vectors, and has no `break`, `return`, `raise` or `try`.

Then the points' iterations of the `k` loop are independent (each writes its own lanes and
reads the point's lanes and values no iteration writes), and the tail of point `i` sees the
same values as in the nest as written. The statements whose values do not depend on the
point (`l[ik]`, the triangle's counter) run once per component and block instead of once per
point and component. A statement with a value depending on the point runs in a loop over the
block's points where it stood (consecutive ones in one loop), its names and work vectors read
and written in their lanes (`s` -> `s_lanes[lane]`, `w[j]` -> `w_lanes[j, lane]`, `r[k]` ->
`r_lanes[k, lane]`, `i` = the block's start + `lane`). Run-time errors of the body (a division
by zero) may be raised at another point and component than in the nest as written. The
rewrite runs on the tree `srcad.source` shows, before the other rewrites of loops (the tail's
log-sum-exp is rewritten by them as before). Not rewritten yet: a reverse sweep's forward
nest, which records on srcad's tapes (arrays that are not the function's own vectors).
"""

from __future__ import annotations

import gast

from srcad.analysis.value_types import INT
from srcad.frontend import syntax as S
from srcad.transform.numba_lane_checks import (
    _mentions,
    _number_type,
    _stored,
    _value_reads,
    nest_parts,
)
from srcad.transform.numba_lane_columns import jammed_columns
from srcad.transform.numba_loop_sites import replace_loops

_SIMPLE = (gast.Assign, gast.AugAssign)
BLOCK = 128  # points per block: the lanes of a block stay in the core's caches


def outer_loop_lanes(tree, namer, env):
    """`tree` with the nests the module docstring describes rewritten (in place); `env` maps
    a name to its value type (srcad.analysis.value_types)."""
    for fn in [n for n in S.walk(tree) if isinstance(n, gast.FunctionDef)]:
        if any(isinstance(n, gast.FunctionDef) and n is not fn for n in S.walk(fn)):
            continue  # a nested function's loops would be seen with the outer's names
        def rewrite(loop, fn=fn):
            parts = nest_parts(fn, loop, env)
            return None if parts is None else _Nest(loop, *parts).rewritten(namer)
        replace_loops(fn, rewrite)
    return tree


class _Nest:
    def __init__(self, outer, inner, tail, scalars, vectors, results, env):
        self.outer, self.inner, self.tail = outer, inner, tail
        self.i, self.k = outer.target.id, inner.target.id
        self.scalars, self.vectors, self.results, self.env = scalars, vectors, results, env

    def rewritten(self, namer) -> list:
        self.namer = namer
        i, k = self.i, self.k
        total, width, start, count, lane = (namer.fresh(f"{i}_{role}") for role in
                                            ("points", "width", "start", "count", "lane"))
        lanes = {s: namer.fresh(f"{s}_lanes") for s in
                 sorted(self.scalars | self.vectors | self.results)}
        out = [S.comment(f"the points {i} in lanes, {BLOCK} at a time: all points of a block "
                         f"for each {k} at once (srcad/transform/numba_outer_lanes.py)"),
               S.assign(S.name(total, store=True), S.clone(self.outer.iter.args[0]))]
        out += S.parse_stmts(f"{width} = min({total}, {BLOCK})")
        for s in sorted(self.scalars):
            dtype = ", dtype=np.int64" if _number_type(self.env, s) == INT else ""
            out += S.parse_stmts(f"{lanes[s]} = np.empty({width}{dtype})")
        for w in sorted(self.vectors):
            out += S.parse_stmts(f"{lanes[w]} = np.empty((len({w}), {width}))")
        trips = S.unparse_expr(self.inner.iter.args[0])
        for r in sorted(self.results):
            out += S.parse_stmts(f"{lanes[r]} = np.empty(({trips}, {width}))")
        blocks = S.parse_stmts(
            f"for {start} in range(0, {total}, {BLOCK}):\n"
            f"    {count} = min({BLOCK}, {total} - {start})\n"
            f"    for {i} in range({start}, {start} + {count}):\n"
            + "".join(f"        for {k} in range({trips}):\n"
                      f"            {r}[{k}] = {lanes[r]}[{k}, {i} - {start}]\n"
                      for r in sorted(self.results)) + "        pass\n")[0]
        loop = gast.For(target=S.clone(self.inner.target), iter=S.clone(self.inner.iter),
                        body=self._pushed(self.inner.body, lanes, (start, count, lane)),
                        orelse=[], type_comment=None)
        points = blocks.body[1]
        points.body = [s for s in points.body if not isinstance(s, gast.Pass)] + self.tail
        blocks.body.insert(1, loop)
        return out + [blocks]

    def _pushed(self, statements, lanes, block) -> list:
        """`statements` with those whose value depends on the point in loops over the block's
        points, consecutive ones in one loop."""
        start, count, lane = block
        out, run = [], []

        def flush():
            if run:
                head = S.parse_stmts(f"for {lane} in range({count}):\n"
                                     f"    {self.i} = {start} + {lane}")[0]
                if not any(self.i in _mentions(s) for s in run):
                    head.body = []
                head.body += run
                out.append(head)
                run.clear()

        def lane_loop(stmts) -> list:  # `stmts` in a loop of their own (none pending)
            run.extend(_in_lanes(s, lanes, lane, self.scalars) for s in stmts)
            flush()
            return [out.pop()]

        lanes_of = set(lanes)
        for stmt in statements:
            if isinstance(stmt, gast.For):
                flush()
                jam = jammed_columns(stmt, self.vectors, self.scalars, self.namer, lane_loop)
                if jam is not None:  # groups of columns jammed, then the columns after them
                    out.extend(jam[0])
                    stmt = jam[1]
            if isinstance(stmt, gast.For):
                flush()
                out.append(gast.For(target=stmt.target, iter=stmt.iter,
                                    body=self._pushed(stmt.body, lanes, block), orelse=[],
                                    type_comment=None))
            elif isinstance(stmt, gast.If):
                flush()
                out.append(gast.If(test=stmt.test, body=self._pushed(stmt.body, lanes, block),
                                   orelse=self._pushed(stmt.orelse, lanes, block)))
            elif isinstance(stmt, _SIMPLE) and (_stored(stmt) | _value_reads(
                    stmt, self.vectors | self.results)) & (lanes_of | {self.i}):
                run.append(_in_lanes(stmt, lanes, lane, self.scalars))
            else:
                flush()
                out.append(stmt)
        flush()
        return out


def _in_lanes(stmt, lanes, i, scalars):
    """`stmt` reading and writing the point's lanes: `s` -> `s_lanes[i]`, `w[j]` ->
    `w_lanes[j, i]` (`len(w)`, `w.shape` stay)."""

    class Lanes(gast.NodeTransformer):
        def visit_Subscript(self, node):
            if isinstance(node.value, gast.Name) and node.value.id in lanes:
                index = self.visit(node.slice)
                return gast.Subscript(value=S.name(lanes[node.value.id]),
                                      slice=gast.Tuple(elts=[index, S.name(i)],
                                                       ctx=gast.Load()), ctx=node.ctx)
            return self.generic_visit(node)

        def visit_Name(self, node):
            if node.id in scalars:
                return gast.Subscript(value=S.name(lanes[node.id]), slice=S.name(i),
                                      ctx=node.ctx)
            return node

    return Lanes().visit(S.clone(stmt))
