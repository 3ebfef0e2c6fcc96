"""Loop-invariant code motion out of a loop nest (numba backend), on the normalized primal.

In a nest whose inner loop's trip count does not change during the outer loop

    for n in range(len(data)):
        x = data[n]
        for k in range(K):
            s = params[2 * K + k]
            acc += w * math.exp(-(x - m) ** 2 / (2.0 * s * s)) / math.sqrt(2.0 * math.pi * s * s)

the values that depend on k alone (`2.0 * s * s`, the square root) are the same in every
outer iteration. They are computed once per k, before the outer loop, into arrays of K floats,
and the inner loop reads them; a divisor is hoisted as its reciprocal, so the inner loop
multiplies instead of dividing (the numba backend's `arcp` licence, see build/numba_fastmath.py):

    inv_mul = np.empty(len(range(K)))
    if len(range(len(data))) > 0:
        for k_1 in range(K):                 # fresh names: the nest may still read old
            s_1 = params[2 * K + k_1]        # values of `k` and `s` (a value carried into
            inv_mul[k_1] = 1.0 / (2.0 * s_1 * s_1)   # its first iteration)
    for n in range(len(data)):
        ...
            acc += w * math.exp(-(x - m) ** 2 * inv_mul[k]) ...

Every mode then differentiates the rewritten primal: the hoisted arrays are ordinary local
arrays, their adjoints are accumulated per k in the inner loop and pulled back once.

When it applies (anything else is left alone):
- the outer loop is a top-level `for ... in range(...)` with no break, continue or return in it;
- the inner loop is a top-level statement of the outer body, `for k in range(stop)` with `stop`
  not rebound in the outer loop;
- a hoisted expression is float, depends on k, and reads only constants, k, names the outer
  loop does not rebind, names assigned once (above, in the inner body) from such values, and
  array elements, provided the outer loop writes no array element at all (so no alias can
  change what is read); calls are to known pure functions;
- it sits in an assignment at the top level of the inner body (evaluated on every pass, so
  computing it ahead raises no error the primal would not raise), outside conditional
  expressions. The precomputation is skipped when the outer loop runs no iteration.
"""

from __future__ import annotations

import gast
import numpy as np

from srcad import rules as R
from srcad.analysis.types import FLOAT
from srcad.frontend import syntax as S
from srcad.frontend.parse import resolve_callee
from srcad.transform.expressions import BINOPS, UNARY


def hoist_invariants(norm, types) -> bool:
    """Rewrite `norm.body` in place; True if anything was hoisted."""
    if norm.extra_names.get("np", norm.parsed.namespace.get("np", np)) is not np:
        return False  # the allocations need `np`: the function's module binds it otherwise
    body, changed = [], False
    for stmt in norm.body:
        if isinstance(stmt, gast.For):
            before = _Nest(norm, types, stmt).hoist()
            body.extend(before)
            changed = changed or bool(before)
        body.append(stmt)
    norm.body = body
    if changed:
        norm.extra_names.setdefault("np", np)
    return changed


def _is_range(norm, node, args=(1, 2, 3)) -> bool:
    return isinstance(node, gast.Call) and not node.keywords and len(node.args) in args \
        and resolve_callee(norm.parsed, node.func, norm.extra_names) is range


def _never_negative(norm, e, depth=0) -> bool:
    """Is int `e` >= 0 whenever it is evaluated? Constants, `len(...)`, sums, products and
    floor quotients of such, and names bound once in the function, to such a value (`K =
    len(params) // 3`)."""
    if depth > 8:
        return False
    if isinstance(e, gast.Constant):
        return type(e.value) is int and e.value >= 0
    if isinstance(e, gast.Call):
        return not e.keywords and len(e.args) == 1 \
            and resolve_callee(norm.parsed, e.func, norm.extra_names) is len
    if isinstance(e, gast.BinOp) and isinstance(e.op, (gast.Add, gast.Mult, gast.FloorDiv)):
        return _never_negative(norm, e.left, depth + 1) \
            and _never_negative(norm, e.right, depth + 1)
    if isinstance(e, gast.Name) and e.id not in norm.params:
        bindings = [n for st in norm.body for n in S.nodes(st)
                    if isinstance(n, (gast.Assign, gast.AugAssign, gast.For))
                    and e.id in S.bound_names(n)]
        return len(bindings) == 1 and isinstance(bindings[0], gast.Assign) \
            and len(bindings[0].targets) == 1 and isinstance(bindings[0].targets[0], gast.Name) \
            and _never_negative(norm, bindings[0].value, depth + 1)
    return False


def _count_stores(node) -> dict:
    counts: dict = {}
    for n in gast.walk(node):
        if isinstance(n, gast.Name) and isinstance(n.ctx, gast.Store):
            counts[n.id] = counts.get(n.id, 0) + 1
    return counts


class _Nest:
    def __init__(self, norm, types, outer):
        self.norm, self.types, self.outer = norm, types, outer
        self.stores = _count_stores(outer)
        self.written_arrays = any(
            isinstance(t, gast.Subscript)
            for n in gast.walk(outer)
            for t in (n.targets if isinstance(n, gast.Assign) else
                      [n.target] if isinstance(n, gast.AugAssign) else []))

    def hoist(self) -> list:
        outer = self.outer
        if outer.orelse or not _is_range(self.norm, outer.iter) or any(
                isinstance(n, (gast.Break, gast.Continue, gast.Return))
                for n in gast.walk(outer)):
            return []
        allocations, loops = [], []
        for inner in outer.body:
            if isinstance(inner, gast.For) and not inner.orelse \
                    and isinstance(inner.target, gast.Name) \
                    and _is_range(self.norm, inner.iter, args=(1,)) \
                    and not S.loaded_names(inner.iter) & set(self.stores) \
                    and not any(inner.target.id in S.bound_names(s) for s in inner.body):
                _Inner(self, inner).hoist(allocations, loops)
        if not loops:
            return []
        trips = S.call("len", S.clone(outer.iter))
        guard = gast.If(test=gast.Compare(left=trips, ops=[gast.Gt()],
                                          comparators=[S.const(0)]), body=loops, orelse=[])
        comment = S.comment("hoisted: values of the next loop nest that depend only on "
                            "the inner loop's index")
        return [comment] + allocations + [guard]


class _Inner:
    """One inner loop: its k-only definitions and the expressions hoisted out of it."""

    def __init__(self, nest: _Nest, inner):
        self.nest, self.inner, self.k = nest, inner, inner.target.id
        self.defs: dict = {}  # name -> its assignment in the inner body (k-only values)
        self.hoisted: list = []  # (array name, value expression, statement it came from)
        self.origin = None

    def hoist(self, allocations, loops) -> None:
        # in order: a name read before its assignment in the body (a value carried over from
        # the previous iteration) is not a definition yet where it is read, so never k-only
        for stmt in self.inner.body:
            if isinstance(stmt, gast.Assign) and len(stmt.targets) == 1 \
                    and isinstance(stmt.targets[0], gast.Name) \
                    and self.nest.stores.get(stmt.targets[0].id) == 1 \
                    and self._k_only(stmt.value):
                self.defs[stmt.targets[0].id] = stmt
                continue
            if isinstance(stmt, (gast.Assign, gast.AugAssign)):
                self.origin = stmt  # hoisted values keep its line (for the `# line N:` notes)
                stmt.value = self._rewrite(stmt.value)
        if not self.hoisted:
            return
        elsewhere = _loads_outside(self.nest.norm.body, self.inner)
        self._drop_dead_defs(elsewhere)
        defs = self._needed_defs()
        # the precomputation gets fresh names for the index and the definitions it repeats: it
        # runs before the nest, where their old values may still be read (a value carried into
        # the first iteration, another loop's `k`)
        namer = self.nest.norm.namer
        renamed = {n: namer.fresh(n) for n in [self.k, *defs]}
        index = renamed[self.k]
        stop = S.clone(self.inner.iter)
        loop_body = [S.renamed(self.defs[d], renamed) for d in defs]
        for array, value, origin in self.hoisted:
            size = S.call("len", S.clone(stop))
            allocations.append(S.assign(S.name(array), S.call("np.empty", size)))
            element = gast.Subscript(value=S.name(array), slice=S.name(index), ctx=gast.Store())
            loop_body.append(gast.copy_location(S.assign(element, S.renamed(value, renamed)),
                                                origin))
        group, length = tuple(array for array, _, _ in self.hoisted), self.inner.iter.args[0]
        for array in group:
            self.nest.norm.workspace[array] = (group, length,
                                               _never_negative(self.nest.norm, length))
        loops.append(gast.For(target=S.name(index, store=True), iter=S.clone(stop),
                              body=loop_body, orelse=[], type_comment=None))

    # -- which values depend on k alone --------------------------------------------------------
    def _k_only(self, e) -> bool:
        if isinstance(e, gast.Constant):
            return True
        if isinstance(e, gast.Name):
            return e.id == self.k or e.id in self.defs or e.id not in self.nest.stores
        if isinstance(e, gast.Attribute):
            return self._k_only(e.value)
        if isinstance(e, gast.Subscript):
            return not self.nest.written_arrays and isinstance(e.value, gast.Name) \
                and e.value.id not in self.nest.stores and self._k_only(e.slice)
        if isinstance(e, gast.BinOp):
            return self._k_only(e.left) and self._k_only(e.right)
        if isinstance(e, gast.UnaryOp):
            return self._k_only(e.operand)
        if isinstance(e, gast.Tuple):  # the index of x[k, j]
            return all(self._k_only(v) for v in e.elts)
        if isinstance(e, gast.Call):
            norm = self.nest.norm
            info = R.lookup_call(resolve_callee(norm.parsed, e.func, norm.extra_names))
            return info is not None and not info.constructor and info.result != "range" \
                and not e.keywords and all(self._k_only(a) for a in e.args)
        return False

    def _depends_on_k(self, e) -> bool:
        """Reads k, directly or through a definition that does (`s = x[1]` does not)."""
        for n in gast.walk(e):
            if isinstance(n, gast.Name) and (n.id == self.k or n.id in self.defs and
                                             self._depends_on_k(self.defs[n.id].value)):
                return True
        return False

    def _hoistable(self, e) -> bool:
        return self._k_only(e) and self._depends_on_k(e) \
            and self.nest.types.of(e) == FLOAT

    # -- rewriting the inner body --------------------------------------------------------------
    def _rewrite(self, e):
        if isinstance(e, gast.BinOp) and isinstance(e.op, gast.Div) \
                and not isinstance(e.right, gast.Constant) and self._hoistable(e.right):
            reciprocal = gast.BinOp(left=S.const(1.0), op=gast.Div(),
                                    right=S.clone(e.right))
            return gast.BinOp(left=self._rewrite(e.left), op=gast.Mult(),
                              right=self._element("inv_" + _describe(e.right), reciprocal))
        if isinstance(e, (gast.BinOp, gast.UnaryOp, gast.Call)) and self._worth(e) \
                and self._hoistable(e):
            return self._element(_describe(e), S.clone(e))
        if isinstance(e, gast.BinOp):
            e.left, e.right = self._rewrite(e.left), self._rewrite(e.right)
        elif isinstance(e, gast.UnaryOp):
            e.operand = self._rewrite(e.operand)
        elif isinstance(e, gast.Call):
            e.args = [self._rewrite(a) for a in e.args]
        return e  # conditional expressions, comparisons, subscripts: left as they are

    def _worth(self, e) -> bool:
        """More than one operation (counting those of the definitions it reads), or a call, a
        division or a power: cheaper to read back than to recompute."""
        ops = 0
        for n in gast.walk(e):
            if isinstance(n, gast.Call) or isinstance(n, gast.BinOp) and isinstance(
                    n.op, (gast.Div, gast.Pow, gast.Mod)):
                return True
            if isinstance(n, (gast.BinOp, gast.UnaryOp)):
                ops += 1
            if isinstance(n, gast.Name) and n.id in self.defs and n.id != self.k:
                ops += 1 + sum(isinstance(m, (gast.BinOp, gast.Call))
                               for m in gast.walk(self.defs[n.id].value))
        return ops >= 2

    def _element(self, base: str, value):
        key = gast.dump(value)
        array = next((a for a, v, _ in self.hoisted if gast.dump(v) == key), None)
        if array is None:  # the same value hoisted twice shares one array
            array = self.nest.norm.namer.fresh(base)
            self.hoisted.append((array, value, self.origin))
        return gast.Subscript(value=S.name(array), slice=S.name(self.k), ctx=gast.Load())

    # -- the precomputation and what the inner loop still needs --------------------------------
    def _needed_defs(self) -> list:
        needed: set = set()
        for _, value, _ in self.hoisted:
            needed |= S.loaded_names(value)
        for name_ in reversed(list(self.defs)):
            if name_ in needed:
                needed |= S.loaded_names(self.defs[name_].value)
        return [d for d in self.defs if d in needed]

    def _drop_dead_defs(self, elsewhere) -> None:
        """k-only definitions the inner loop no longer reads (and nothing outside reads)."""
        changed = True
        while changed:
            changed = False
            used = set()
            for stmt in self.inner.body:
                used |= S.loaded_names(stmt)
            for name_, stmt in list(self.defs.items()):
                if stmt in self.inner.body and name_ not in used and name_ not in elsewhere:
                    self.inner.body.remove(stmt)
                    changed = True


def _loads_outside(body, inner) -> set:
    """Names read anywhere in `body` except inside `inner`'s body."""
    inside = {id(n) for stmt in inner.body for n in gast.walk(stmt)}
    return {n.id for stmt in body for n in gast.walk(stmt)
            if isinstance(n, gast.Name) and isinstance(n.ctx, gast.Load) and id(n) not in inside}


def _describe(e) -> str:
    if isinstance(e, gast.Call):
        func = e.func
        return func.attr if isinstance(func, gast.Attribute) else getattr(func, "id", "call")
    if isinstance(e, (gast.BinOp, gast.UnaryOp)):
        rule = {**BINOPS, **UNARY}.get(type(e.op))
        return rule.name if rule else "value"
    if isinstance(e, gast.Name):
        return e.id
    return "value"
