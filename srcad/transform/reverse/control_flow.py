"""Reverse mode of loops and branches (a part of `ReverseTransform`).

* `for i in range(a, b, c)`: the reverse loop visits the same indices backwards; bounds the
  reverse cannot read are saved and taped after the loop, a loop with `break` tapes its trip
  count;
* `while`: its trip count is taped; the reverse runs the body's adjoint that many times;
* `if`: the reverse re-evaluates the test when it can read its operands, otherwise the taken
  branch is taped (after the branch, so the flag is popped before the branch's own records).
numba, a `for` loop with a straight-line body: its records are slots (slots.py).
"""

from __future__ import annotations

import copy

import gast

from srcad.analysis.types import Array
from srcad.frontend import syntax as S
from srcad.transform.optimize import drop_repeated_reads
from srcad.transform.reverse.iteration_values import leaves_loop_early
from srcad.transform.reverse.parameter_rows import is_shape_entry, row_view
from srcad.transform.reverse.slots import iterations_commute, straight
from srcad.transform.reverse.trip_bounds import fixed_span, resolved
from srcad.transform.simplify import simplify


class ReverseControlFlow:
    def for_loop(self, loop):
        if not (isinstance(loop.iter, gast.Call) and isinstance(loop.iter.func, gast.Name)
                and loop.iter.func.id == "range"):  # reversed(range(...)[:n]) is left
            raise self.error(loop, "for", "reverse mode runs loops over range(...) and "
                             "reversed(range(...)), not over a slice of a range",
                             hint="loop over range(...) and break, or compute the bounds")
        if self.checkpointed(loop):  # checkpoint.py: snapshots, not a whole tape
            return self.checkpointed_loop(loop)
        # pushes per iteration, per tape: reserved once before the loop (or, when this loop's
        # bounds do not change inside the enclosing for loop, before that one)
        frame = {"kind": "for", "pushes": {}, "loop": loop,
                 "slots": self.tapes.slots and straight(loop.body)
                 and not self._binds_arrays(loop.body)  # array tapes stay stacks
                 and not self._computes_arrays(loop.body)
                 and not self._reads_changing_arrays(loop),
                 "checked": not self._reservable(loop)}
        frame["iteration_values_allowed"] = not frame["slots"] \
            and not leaves_loop_early(loop.body)  # iteration_values.py
        self.loop_frames.append(frame)
        body_fwd, body_rev = self.block(loop.body)
        once_pushes, once_pops = self.iteration_records(frame)
        body_fwd += once_pushes
        self.loop_frames.pop()
        record = sorted(frame["pushes"].items()) if frame["slots"] else []
        advance = [self.tapes.advance(tape, count) for tape, count in record]
        exps = self.summed_exps(loop.body) if record and self.reassociated else set()
        split = self.split_sums(loop.body) if record and not self.reassociated else None
        body_fwd += advance
        body_rev = once_pops + self.with_replays(loop.body, body_rev)
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
        before += self.budget_guard(original, frame, loop.iter)  # checkpoint.py
        before += self._reserve(frame, original, loop.iter)
        trips = None
        if _has_break(loop.body):
            trips = self.namer.fresh(f"{index}_trips")
            before.append(S.assign(S.name(trips), S.const(0)))
            loop.body = [S.aug_assign(S.name(trips), gast.Add(), S.const(1))] + loop.body
            after += self._push(S.name(trips), "int")
            pops[:0] = self._pop(S.name(trips, store=True), "int")
        for name, (typ, value) in sorted(frame.get("invariants", {}).items(),
                                         key=lambda item: item[0]):  # _taped_after_loop
            after += self._push(S.clone(value), typ)
            pops[:0] = self._pop(S.name(name, store=True), typ)
        forward = self.exp_loop_reassociated(loop, exps) if exps else \
            [loop] if split is None else self.long_loops_split(loop, split, record)
        if frame["slots"] and iterations_commute(body_rev):
            return before + forward + after, [self._comment(original)] + pops \
                + self.forward_order(index, loop.iter, body_rev, record)
        if record:  # this iteration's record starts here
            body_rev = [self.tapes.back(tape, count) for tape, count in record] + body_rev
        setup, iterator = self.tapes.reverse_range(index, args, trips, self.namer)
        reverse_loop = gast.For(target=S.name(index, store=True), iter=iterator,
                                body=body_rev, orelse=[], type_comment=None)
        return before + forward + after, [self._comment(original)] + pops + setup + [reverse_loop]

    def _reserve(self, frame, original, span) -> list:
        """Tape space for every push of this loop: handed to the enclosing for loop when this
        loop's trip count is fixed there (one check outside the hot loops), else reserved
        here, before the loop (`span`: its range, bounds saved before it if need be)."""
        parent = self.loop_frames[-1] if self.loop_frames else None
        # the count handed up is read before the enclosing loop: every name in it (this loop's
        # bounds, or a longer range's (trip_bounds.py), and those its own nested loops handed
        # up) must keep its value there
        need = None
        if parent is not None and parent["kind"] == "for" and not parent["checked"]:
            span = fixed_span(original.iter, [parent["loop"]], self.recording, self._row_view)
            if span is not None:
                need = {tape: resolved(expr, parent["loop"], self.recording, self._row_view)
                        for tape, expr in self._need(frame, span).items()}
        if need is not None and all(self._fixed_in(expr, parent["loop"])
                                    for expr in need.values()):
            nested = parent.setdefault("nested", {})
            for tape, expr in need.items():
                nested.setdefault(tape, []).append(expr)
            return []
        return [stmt for tape, expr in sorted(self._need(frame, span).items())
                for stmt in self.tapes.reserve(tape, simplify(expr, integers=True))]

    @staticmethod
    def _need(frame, span) -> dict:
        """Per tape: the pushes of all iterations of the loop over `span` (its own and those
        its fixed nested loops handed up)."""
        need = {}
        for tape in sorted(set(frame["pushes"]) | set(frame.get("nested", {}))):
            terms = ([S.const(frame["pushes"][tape])] if tape in frame["pushes"] else []) \
                + frame.get("nested", {}).get(tape, [])
            per_iteration = terms[0]
            for extra in terms[1:]:
                per_iteration = gast.BinOp(left=per_iteration, op=gast.Add(), right=extra)
            need[tape] = S.substitute("(per) * len(span)", {"per": per_iteration,
                                                            "span": S.as_load(span)})
        return need

    def _fixed_in(self, span, loop) -> bool:
        """Does `range(...)` give the same trip count on every iteration of `loop`?"""
        bound = self.recording.subtree_binds(loop)
        return not any(isinstance(n, gast.Subscript) and not is_shape_entry(n)
                       for n in S.walk(span)) and not (S.loaded_names(span) & bound)

    def _row_view(self, name):
        """(a, count) for a row view `name = a[i]` of a parameter (parameter_rows.py), else None."""
        return row_view(name, self.recording, self.types, self.norm.params)

    def _binds_arrays(self, body) -> bool:
        """Does `body` bind an array variable, or overwrite or update a row or slice of one
        (`a[i, :] = ...`, `b[i] *= b[i, 1]`, `y[1:] += y[:-1]`), whose old values may go on
        an array tape?"""
        return any((isinstance(n, gast.Name) and isinstance(n.ctx, gast.Store)
                    and isinstance(self.types[n.id], Array))
                   or (isinstance(n, gast.Assign) and isinstance(n.targets[0], gast.Subscript)
                       and isinstance(self.types.of(n.targets[0]), Array))
                   or (isinstance(n, gast.AugAssign) and isinstance(n.target, gast.Subscript)
                       and isinstance(self.types.of(n.target), Array))
                   for stmt in body for n in S.walk(stmt))

    def _computes_arrays(self, body) -> bool:
        """Does `body` compute an array inside an expression (`np.outer(u, v)` or `A @ B` in
        `z[i] += np.linalg.det(...)`), which the reverse sweep may read from an array tape?"""
        return any(isinstance(n, (gast.Call, gast.BinOp)) and isinstance(self.types.of(n), Array)
                   for stmt in body for n in S.walk(stmt))

    def _reads_changing_arrays(self, loop) -> bool:
        """Does `loop`'s body read a whole array, or a row or slice of one, that its own
        statement's reverse cannot read as it was (`np.dot(b[::2], z[::2])` beside
        `z[i] += ...`, or `z` changed after the loop)? The reverse sweep may then read it from
        an array tape."""
        for stmt in loop.body:
            bases = {id(n.value) for n in S.walk(stmt) if isinstance(n, gast.Subscript)}
            for n in S.walk(stmt):
                if isinstance(n, (gast.Name, gast.Subscript)) and id(n) not in bases \
                        and isinstance(n.ctx, gast.Load) \
                        and isinstance(self.types.of(n), Array) \
                        and not self.recording.readable_in_reverse(n, stmt, []):
                    return True
        return False

    def _reservable(self, loop) -> bool:
        """Can one reservation before `loop` hold all its pushes? Only when every loop inside
        it is a for loop whose trip count is fixed within the loop around it: a while loop,
        or a loop reserving for itself inside, would use up the space reserved for the pushes
        that follow it (then this loop's own pushes check for space one by one)."""
        def fixed(block, arounds) -> bool:
            # a nested trip count is summed into the reservation before `loop`: it must be
            # fixed in every loop between (`range(j + 1)` inside `for j` is not)
            for stmt in block:
                if isinstance(stmt, gast.While):
                    return False
                if isinstance(stmt, gast.For) and not (
                        fixed_span(stmt.iter, arounds, self.recording, self._row_view)
                        is not None
                        and fixed(stmt.body, arounds + [stmt])):
                    return False
                if isinstance(stmt, gast.If) and not (fixed(stmt.body, arounds)
                                                      and fixed(stmt.orelse, arounds)):
                    return False
            return True
        return fixed(loop.body, [loop])

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
        out += S.clone(push)
    return out


def _before_breaks(block, push: list) -> list:
    out = []
    for stmt in block:
        if isinstance(stmt, gast.Break):
            out += S.clone(push) + [stmt]
            continue
        if isinstance(stmt, gast.If):
            stmt = copy.copy(stmt)
            stmt.body = _before_breaks(stmt.body, push)
            stmt.orelse = _before_breaks(stmt.orelse, push)
        out.append(stmt)
    return out
