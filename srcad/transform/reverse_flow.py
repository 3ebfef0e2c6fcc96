"""Reverse mode of loops and branches (a part of `ReverseTransform`).

* `for i in range(a, b, c)`: the reverse loop visits the same indices backwards; bounds the
  reverse cannot read are saved and taped after the loop, a loop with `break` tapes its trip
  count;
* `while`: its trip count is taped; the reverse runs the body's adjoint that many times;
* `if`: the reverse re-evaluates the test when it can read its operands, otherwise the taken
  branch is taped (after the branch, so the flag is popped before the branch's own records).
"""

from __future__ import annotations

import copy

import gast

from srcad import syntax as S
from srcad.analysis.types import FLOAT
from srcad.transform.optimize import drop_repeated_reads
from srcad.transform.simplify import simplify


class ReverseControlFlow:
    def for_loop(self, loop):
        # pushes per iteration, per tape: reserved once before the loop (or, when this loop's
        # bounds do not change inside the enclosing for loop, before that one)
        frame = {"kind": "for", "pushes": {}, "loop": loop,
                 "slots": self.tapes.slots and _straight(loop.body)}
        self.loop_frames.append(frame)
        body_fwd, body_rev = self.block(loop.body)
        self.loop_frames.pop()
        record = sorted(frame["pushes"].items()) if frame["slots"] else []
        advance = [self.tapes.advance(tape, count) for tape, count in record]
        split = self._split_sums(loop.body) if record else None
        body_fwd += advance
        body_rev = self.with_replays(loop.body, body_rev)
        if frame["slots"]:
            body_rev = drop_repeated_reads(body_rev)
        original, loop = loop, copy.copy(loop)
        loop.body = body_fwd
        if not body_rev:
            return [loop], []
        index = loop.target.id
        before, after, pops = [], [], []
        args = list(loop.iter.args)
        for k, arg in enumerate(args):
            replays: list = []
            if self.recording.readable(arg, original, replays):
                for d in replays:
                    self.recording.request_replay(d)
                continue
            role = ("start", "stop", "step")[k if len(args) > 1 else 1]
            saved = self.namer.fresh(f"{index}_{role}")
            before.append(S.assign(S.name(saved), arg))
            args[k] = S.name(saved)
            after += self._push(S.name(saved), "int")
            pops[:0] = self._pop(S.name(saved, store=True), "int")
        loop.iter = gast.Call(func=S.as_load(loop.iter.func), args=args, keywords=[])
        before += self._reserve(frame, original, loop.iter)
        trips = None
        if _has_break(loop.body):
            trips = self.namer.fresh(f"{index}_trips")
            before.append(S.assign(S.name(trips), S.const(0)))
            loop.body = [S.aug_assign(S.name(trips), gast.Add(), S.const(1))] + loop.body
            after += self._push(S.name(trips), "int")
            pops[:0] = self._pop(S.name(trips, store=True), "int")
        forward = [loop] if split is None else self._long_loops_split(loop, split, record)
        if frame["slots"] and _iterations_commute(body_rev):
            return before + forward + after, [self._comment(original)] + pops \
                + self._forward_order(index, loop.iter, body_rev, record)
        if record:  # this iteration's record starts here
            body_rev = [self.tapes.back(tape, count) for tape, count in record] + body_rev
        setup, iterator = self.tapes.reverse_range(index, args, trips, self.namer)
        reverse_loop = gast.For(target=S.name(index, store=True), iter=iterator,
                                body=body_rev, orelse=[], type_comment=None)
        return before + forward + after, [self._comment(original)] + pops + setup + [reverse_loop]

    def _split_sums(self, body):
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
                first += copy.deepcopy(self.pieces[id(stmt)])
                continue
            needed: list = []
            if not self.recording.readable(stmt.value, stmt, needed):
                return None
            replays += needed
            if form is not None:
                first += copy.deepcopy(form.record)
                second += copy.deepcopy(form.recompute)
            elif len(self.pieces[id(stmt)]) == 1:  # nothing recorded for it
                second.append(copy.deepcopy(stmt))
            else:
                return None
        if not _iteration_local(first):
            return None
        order = {id(s): i for i, s in enumerate(body)}
        # definitions outside the loop (replayed for the reverse sweep) still hold their value
        unique = sorted({id(d): d for d in replays if id(d) in order}.values(),
                        key=lambda d: order[id(d)])
        recomputed = [s for d in unique for s in copy.deepcopy(self.replay_code.get(id(d), [d]))]
        second = drop_repeated_reads(recomputed + second)
        first = _drop_dead(first, second)
        return [_vector_exp(s, exps) for s in first], _drop_dead(second, first)

    def _long_loops_split(self, loop, split, record) -> gast.If:
        """`if <trips> >= SPLIT_MIN_TRIPS:` the loop split in two (`_split_sums`), `else:` as
        it was (a short loop pays more for two loops than it gains)."""
        first, second = split
        index = loop.target.id
        trips = self.namer.fresh(f"{index}_trips")
        advance = [self.tapes.advance(t, n) for t, n in record]
        back = [self.tapes.back(t, simplify(S.substitute("n * trips", {
            "n": S.const(n), "trips": S.name(trips)}))) for t, n in record]
        loops = [S.comment("long loop: exp vectorized (srcad.numba_runtime.simd_exp), the sums "
                           "in a second loop"),
                 gast.For(target=S.name(index, store=True), iter=S.as_load(loop.iter),
                          body=first + advance, orelse=[], type_comment=None)] + back + [
                 gast.For(target=S.name(index, store=True), iter=S.as_load(loop.iter),
                          body=second + copy.deepcopy(advance), orelse=[], type_comment=None)]
        test = gast.Compare(left=S.name(trips), ops=[gast.GtE()],
                            comparators=[S.const(SPLIT_MIN_TRIPS)])
        count = S.assign(S.name(trips), S.substitute("len(span)", {"span": S.as_load(loop.iter)}))
        return [count, gast.If(test=test, body=loops, orelse=[loop])]

    def _forward_order(self, index, span, body_rev, record) -> list:
        """The reverse loop of independent iterations, visiting them in forward order: LLVM
        vectorizes an ascending loop over consecutive records, not a descending one. Its
        records are read front to back, from the first iteration's."""
        loop = gast.For(target=S.name(index, store=True), iter=S.as_load(span),
                        body=body_rev + [self.tapes.advance(t, n) for t, n in record],
                        orelse=[], type_comment=None)
        if not record:
            return [S.comment("iterations are independent: visited in forward order"), loop]
        count = self.namer.fresh(f"{index}_count")
        back = [self.tapes.back(t, simplify(S.substitute("n * count", {
            "n": S.const(n), "count": S.name(count)}))) for t, n in record]
        return [S.assign(S.name(count), S.substitute("len(span)", {"span": S.as_load(span)})),
                S.comment("iterations are independent: visited in forward order, records "
                          "read front to back")] + back + [loop] + copy.deepcopy(back)

    def _reserve(self, frame, original, span) -> list:
        """Tape space for every push of this loop: handed to the enclosing for loop when this
        loop's trip count is fixed there (one check outside the hot loops), else checked
        here."""
        need = {}
        for tape, count in frame["pushes"].items():
            per_iteration = S.const(count)
            for extra in frame.get("nested", {}).get(tape, []):
                per_iteration = gast.BinOp(left=per_iteration, op=gast.Add(), right=extra)
            need[tape] = S.substitute("(per) * len(span)", {"per": per_iteration,
                                                            "span": S.as_load(span)})
        for tape, extras in frame.get("nested", {}).items():
            if tape not in need:
                per_iteration = extras[0]
                for extra in extras[1:]:
                    per_iteration = gast.BinOp(left=per_iteration, op=gast.Add(), right=extra)
                need[tape] = S.substitute("(per) * len(span)", {"per": per_iteration,
                                                                "span": S.as_load(span)})
        parent = self.loop_frames[-1] if self.loop_frames else None
        if parent is not None and parent["kind"] == "for" and self._fixed_in(span, parent):
            nested = parent.setdefault("nested", {})
            for tape, expr in need.items():
                nested.setdefault(tape, []).append(expr)
            return []
        return [stmt for tape, expr in sorted(need.items())
                for stmt in self.tapes.reserve(tape, simplify(expr))]

    def _fixed_in(self, span, frame) -> bool:
        """Does `range(...)` give the same trip count on every iteration of frame's loop?"""
        bound = self.recording.subtree_binds(frame["loop"])
        return not any(isinstance(n, gast.Subscript) for n in gast.walk(span)) \
            and not (S.loaded_names(span) & bound)

    def while_loop(self, loop):
        self.loop_frames.append({"kind": "while"})  # unknown trip count: pushes check space
        body_fwd, body_rev = self.block(loop.body)
        self.loop_frames.pop()
        body_rev = self.with_replays(loop.body, body_rev)
        loop = copy.copy(loop)
        if not body_rev:
            loop.body = body_fwd
            return [loop], []
        trips = self.namer.fresh("while_trips")
        loop.body = [S.aug_assign(S.name(trips), gast.Add(), S.const(1))] + body_fwd
        fwd = [S.assign(S.name(trips), S.const(0)), loop] + self._push(S.name(trips), "int")
        counter = self.namer.fresh("iteration")
        reverse_loop = gast.For(target=S.name(counter, store=True),
                                iter=gast.Call(func=S.name("range"), args=[S.name(trips)],
                                               keywords=[]),
                                body=body_rev, orelse=[], type_comment=None)
        pop = self._pop(S.name(trips, store=True), "int")
        return fwd, [self._comment(loop)] + pop + [reverse_loop]

    def if_stmt(self, node):
        body_fwd, body_rev = self.block(node.body)
        else_fwd, else_rev = self.block(node.orelse)
        body_rev = self.with_replays(node.body, body_rev)
        else_rev = self.with_replays(node.orelse, else_rev)
        original, node = node, copy.copy(node)
        if not body_rev and not else_rev:
            node.body, node.orelse = body_fwd or [gast.Pass()], else_fwd
            return [node], []
        replays: list = []
        pop: list = []
        if self.recording.readable(node.test, original, replays):
            for d in replays:
                self.recording.request_replay(d)
            node.body, node.orelse = body_fwd or [gast.Pass()], else_fwd
            test = S.as_load(node.test)
        else:
            node.body = _on_every_exit(body_fwd, self._push(S.const(1), "int"))
            node.orelse = _on_every_exit(else_fwd, self._push(S.const(0), "int"))
            branch = self.namer.fresh("branch")
            pop = self._pop(S.name(branch, store=True), "int")
            test = S.name(branch)
        if not body_rev:  # `if not t: ...` reads better than `if t: pass else: ...`
            body_rev, else_rev = else_rev, []
            if isinstance(test, gast.UnaryOp) and isinstance(test.op, gast.Not):
                test = test.operand
            else:
                test = gast.UnaryOp(op=gast.Not(), operand=test)
        reverse_if = gast.If(test=test, body=body_rev, orelse=else_rev)
        return [node], [self._comment(original)] + pop + [reverse_if]


def _straight(body) -> bool:
    """No branches, loops or exits: every iteration records the same values."""
    return all(isinstance(s, (gast.Assign, gast.AugAssign, gast.Expr, gast.Pass)) for s in body)


def _iterations_commute(body) -> bool:
    """May a reverse loop body run its iterations in any order? Yes when, besides reading
    values no iteration changes, it only sets names before reading them in the same iteration
    and adds into sums (`v += e`, `a[i] += e`) that nothing else in it reads or sets. Floating
    point sums then differ in rounding only."""
    sums, other, local = set(), set(), set()
    for stmt in body:
        if S.is_comment(stmt):
            continue
        if isinstance(stmt, gast.AugAssign) and isinstance(stmt.op, (gast.Add, gast.Sub)):
            root = S.target_name(stmt.target)
            reads = S.loaded_names(stmt.value)
            if isinstance(stmt.target, gast.Subscript):
                reads |= S.loaded_names(stmt.target.slice)
            other |= reads - local
            if root in local and isinstance(stmt.target, gast.Name):
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
    return not (sums & (other | local))


# below this many iterations the two loops of `_split_sums` cost more than the vectorized exp
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


def _has_break(body) -> bool:
    def walk(stmts):
        for s in stmts:
            if isinstance(s, gast.Break):
                return True
            if isinstance(s, gast.If) and (walk(s.body) or walk(s.orelse)):
                return True
        return False
    return walk(body)


def _on_every_exit(block, push: list) -> list:
    """`block` with `push` at its end and before every `break` that leaves it (also from
    inside nested ifs: a break skips the end of every branch it jumps out of)."""
    out = _before_breaks(block, push)
    if not (out and isinstance(out[-1], gast.Break)):
        out += copy.deepcopy(push)
    return out


def _before_breaks(block, push: list) -> list:
    out = []
    for stmt in block:
        if isinstance(stmt, gast.Break):
            out += copy.deepcopy(push) + [stmt]
            continue
        if isinstance(stmt, gast.If):
            stmt = copy.copy(stmt)
            stmt.body = _before_breaks(stmt.body, push)
            stmt.orelse = _before_breaks(stmt.orelse, push)
        out.append(stmt)
    return out
