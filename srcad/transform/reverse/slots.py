"""numba reverse mode: loops whose bodies are recorded in slots (a part of
`ReverseTransform`).

A `for` loop whose body is straight-line records the same values every iteration, each in a
fixed slot of the iteration's record (transform/tapes.py). That allows, without changing a
single value the reverse sweep reads:
* *forward-order reverse loops*: when the iterations of the reverse body are independent (only
  sums flow between them), the reverse loop visits them in forward order, which LLVM
  vectorizes (`iterations_commute`, `forward_order`);
* *long loops split*: a body that computes exp(...) and adds into sums runs, from
  `SPLIT_MIN_TRIPS` iterations on, as two loops: the first computes and records everything but
  the sums, with a vectorizable exp (`simd_exp`, srcad/runtime/numba_runtime.py), the second reads
  the sums' operands back from the records and adds them (`split_sums`, `long_loops_split`);
  where the sums may be reassociated, one loop with the vectorizable exp
  (`exp_loop_reassociated`).
"""

from __future__ import annotations

import gast

from srcad.analysis.types import FLOAT
from srcad.frontend import syntax as S
from srcad.transform.optimize import drop_repeated_reads
from srcad.transform.simplify import simplify


class ReverseSlots:
    # numba compiles the code with LLVM's `reassoc` (srcad/build/numba_fastmath.py; set by the
    # pipeline): a loop of exp sums then stays one loop (`exp_loop_reassociated`)
    reassociated = False

    def split_sums(self, body):
        """numba, a straight-line loop body that computes exp(...) and adds into sums: (a body
        computing and recording everything but the sums, its exp vectorizable; a body reading
        the sums' operands back from the records and adding them), or None. LLVM does not
        vectorize a loop adding into a float in order; without the sums it does."""
        sums = [s for s in body if _is_sum(s, body, self.types)]
        exps = set().union(*(self.slot_forms[id(s)].exps for s in body
                             if id(s) in self.slot_forms))
        if not sums or not exps:
            return None
        first, second, replays = [], [], []
        for stmt in body:
            form = self.slot_forms.get(id(stmt))
            if not any(stmt is s for s in sums):
                first += S.clone(self.pieces[id(stmt)])
                continue
            needed: list = []
            if not self.recording.readable(stmt.value, stmt, needed):
                return None
            replays += needed
            if form is not None:
                first += S.clone(form.record)
                second += S.clone(form.recompute)
            elif len(self.pieces[id(stmt)]) == 1:  # nothing recorded for it
                second.append(S.clone(stmt))
            else:
                return None
        if not _iteration_local(first):
            return None
        order = {id(s): i for i, s in enumerate(body)}
        # definitions outside the loop (replayed for the reverse sweep) still hold their value
        unique = sorted({id(d): d for d in replays if id(d) in order}.values(),
                        key=lambda d: order[id(d)])
        recomputed = [s for d in unique for s in S.clone(self.replay_code.get(id(d), [d]))]
        second = drop_repeated_reads(recomputed + second)
        first = _drop_dead(first, second)
        return [_vector_exp(s, exps) for s in first], _drop_dead(second, first)

    def long_loops_split(self, loop, split, record) -> list:
        """`if <trips> >= SPLIT_MIN_TRIPS:` the loop split in two (`split_sums`), `else:` as
        it was (a short loop pays more for two loops than it gains)."""
        first, second = split
        index = loop.target.id
        count, back = self._records_of_loop(index, loop.iter, record, "trips")
        advance = [self.tapes.advance(t, n) for t, n in record]
        loops = [S.comment("long loop: exp vectorized (srcad.runtime.numba_runtime.simd_exp), the "
                           "sums "
                           "in a second loop"),
                 gast.For(target=S.name(index, store=True), iter=S.as_load(loop.iter),
                          body=first + advance, orelse=[], type_comment=None)] + back + [
                 gast.For(target=S.name(index, store=True), iter=S.as_load(loop.iter),
                          body=second + S.clone(advance), orelse=[], type_comment=None)]
        test = gast.Compare(left=S.as_load(count.targets[0]), ops=[gast.GtE()],
                            comparators=[S.const(SPLIT_MIN_TRIPS)])
        return [count, gast.If(test=test, body=loops, orelse=[loop])]

    def summed_exps(self, body) -> set:
        """Where the sums may be reassociated: the exp temporaries a straight-line loop body
        records (`e = math.exp(...)`) when it also adds into a float (`v += e`, `v = v + e`),
        else none. Such a loop stays one loop, its exp vectorizable (`exp_loop_reassociated`):
        LLVM vectorizes the exps, the records and the sums together, where the split of
        `split_sums` would pass over the records twice."""
        if not any(_is_sum(s, body, self.types) or _is_named_sum(s, body, self.types)
                   for s in body):
            return set()
        return set().union(*(self.slot_forms[id(s)].exps for s in body
                             if id(s) in self.slot_forms))

    def exp_loop_reassociated(self, loop, exps) -> list:
        """The forward `loop` with its exp temporaries `exps` computed by `simd_exp`; its
        records are those of the loop as written."""
        loop.body = [_vector_exp(s, exps) for s in loop.body]
        return [S.comment("exp vectorized (srcad.runtime.numba_runtime.simd_exp), the sums "
                          "reassociated"), loop]

    def forward_order(self, index, span, body_rev, record) -> list:
        """The reverse loop of independent iterations, visiting them in forward order: LLVM
        vectorizes an ascending loop over consecutive records, not a descending one. Its
        records are read front to back, from the first iteration's."""
        loop = gast.For(target=S.name(index, store=True), iter=S.as_load(span),
                        body=body_rev + [self.tapes.advance(t, n) for t, n in record],
                        orelse=[], type_comment=None)
        if not record:
            return [S.comment("iterations are independent: visited in forward order"), loop]
        count, back = self._records_of_loop(index, span, record, "count")
        return [count, S.comment("iterations are independent: visited in forward order, records "
                                 "read front to back")] + back + [loop] + S.clone(back)

    def _records_of_loop(self, index, span, record, role):
        """(`<index>_<role> = len(span)`, the statements moving each tape back over the records
        of that many iterations)."""
        count = self.namer.fresh(f"{index}_{role}")
        back = [self.tapes.back(t, simplify(S.substitute("n * count", {
            "n": S.const(n), "count": S.name(count)}), integers=True)) for t, n in record]
        return S.assign(S.name(count), S.substitute("len(span)", {"span": S.as_load(span)})), back


def straight(body) -> bool:
    """No branches, loops or exits: every iteration records the same values."""
    return all(isinstance(s, (gast.Assign, gast.AugAssign, gast.Expr, gast.Pass)) for s in body)


def iterations_commute(body) -> bool:
    """May a reverse loop body run its iterations in any order? Yes when, besides reading
    values no iteration changes, it only sets names before reading them in the same iteration
    and adds into sums (`v += e`, `a[i] += e`) that nothing else in it reads or sets. Floating
    point sums then differ in rounding only. A name bound to a part of an array (`r =
    a_bar[1:3]`, a view) adds into that array."""
    sums, other, local = set(), set(), set()
    views: dict = {}  # a local bound to `a[...]`: the array it may show
    for stmt in body:
        if S.is_comment(stmt):
            continue
        if isinstance(stmt, gast.AugAssign) and isinstance(stmt.op, (gast.Add, gast.Sub)):
            root = S.target_name(stmt.target)
            reads = S.loaded_names(stmt.value)
            if isinstance(stmt.target, gast.Subscript):
                reads |= S.loaded_names(stmt.target.slice)
            other |= reads - local
            if root in views:
                root = views[root]  # added into the array it shows
            elif root in local and isinstance(stmt.target, gast.Name):
                continue  # updates a value of this iteration
            if (reads - local) & (sums | {root}):
                return False
            sums.add(root)
            continue
        if not (isinstance(stmt, gast.Assign) and isinstance(stmt.targets[0], gast.Name)):
            return False
        reads = S.loaded_names(stmt.value) - local
        if reads & sums:
            return False
        other |= reads
        target = stmt.targets[0].id
        if target in other or target in sums:
            return False  # read before set: a value carried from the previous iteration
        local.add(target)
        if isinstance(stmt.value, gast.Subscript) and isinstance(stmt.value.value, gast.Name):
            shown = stmt.value.value.id
            views[target] = views.get(shown, shown)
    return not (sums & (other | local))


# below this many iterations the two loops of `split_sums` cost more than the vectorized exp
# gains (measured on the mixture: slower at K=4, faster from K=8)
SPLIT_MIN_TRIPS = 8


def _is_sum(stmt, body, types) -> bool:
    """`v += e` / `v -= e` into a float that nothing else in the loop body reads or sets."""
    if not (isinstance(stmt, gast.AugAssign) and isinstance(stmt.op, (gast.Add, gast.Sub))
            and isinstance(stmt.target, gast.Name)):
        return False
    v = stmt.target.id
    return types[v] == FLOAT and v not in S.loaded_names(stmt.value) and not any(
        v in S.loaded_names(t) | S.stored_names(t) for t in body if t is not stmt)


def _is_named_sum(stmt, body, types) -> bool:
    """`v = v + e` / `v = v - e` into a float that nothing else in the loop body reads or
    sets."""
    if not (isinstance(stmt, gast.Assign) and len(stmt.targets) == 1
            and isinstance(stmt.targets[0], gast.Name) and isinstance(stmt.value, gast.BinOp)
            and isinstance(stmt.value.op, (gast.Add, gast.Sub))
            and isinstance(stmt.value.left, gast.Name)
            and stmt.value.left.id == stmt.targets[0].id):
        return False
    v = stmt.targets[0].id
    return types[v] == FLOAT and v not in S.loaded_names(stmt.value.right) and not any(
        v in S.loaded_names(t) | S.stored_names(t) for t in body if t is not stmt)


def _iteration_local(body) -> bool:
    """Is the body plain assignments, each name it sets set before it is read in the same
    iteration (nothing carried from one iteration to the next but through arrays)?"""
    assigned = {s.targets[0].id for s in body
                if isinstance(s, gast.Assign) and isinstance(s.targets[0], gast.Name)}
    local = set()
    for stmt in body:
        if S.is_comment(stmt):
            continue
        if not isinstance(stmt, gast.Assign) or (S.loaded_names(stmt) - local) & assigned:
            return False
        if isinstance(stmt.targets[0], gast.Name):
            local.add(stmt.targets[0].id)
    return True


def _drop_dead(block, other) -> list:
    """`block` without the assignments `v = e` nothing later in it reads, where `other` (the
    other loop of a split) sets `v` too (so after both loops `v` still holds a value)."""
    out, later = [], set()
    for stmt in reversed(block):
        if isinstance(stmt, gast.Assign) and isinstance(stmt.targets[0], gast.Name) \
                and stmt.targets[0].id not in later \
                and any(stmt.targets[0].id in S.stored_names(t) for t in other):
            continue
        later |= S.loaded_names(stmt)
        out.append(stmt)
    return out[::-1]


def _vector_exp(stmt, exps):
    """`e = math.exp(a)` -> `e = simd_exp(a)` for the temporaries `exps`."""
    if isinstance(stmt, gast.Assign) and isinstance(stmt.targets[0], gast.Name) \
            and stmt.targets[0].id in exps and isinstance(stmt.value, gast.Call):
        stmt.value.func = S.name("simd_exp")
    return stmt
