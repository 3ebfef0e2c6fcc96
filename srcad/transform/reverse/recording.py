"""How the values the reverse sweep reads reach it (a part of `ReverseTransform`).

For each statement: which leaves its adjoint reads (`_needed_leaves`), and for each of them
whether it is still readable, re-read by a replay, or pushed by the forward sweep and popped by
the reverse (`_record`). Which of a definition's own intermediates are taped rather than
recomputed is `taped_intermediates.py`.
"""

from __future__ import annotations

import types

import gast

from srcad.analysis.types import FLOAT, SHAPE, Array
from srcad.frontend import syntax as S
from srcad.transform.expressions import ExpressionDiff
from srcad.transform.reverse.invariant_pushes import InvariantPushes
from srcad.transform.reverse.iteration_values import IterationValues
from srcad.transform.reverse.leaves import (
    index_leaves,
    inside_subscript,
    length_reads,
    replaced,
)
from srcad.transform.reverse.taped_intermediates import TapedIntermediates
from srcad.transform.tapes import FLOAT_TAPE, INT_TAPE


class ReverseRecording(TapedIntermediates, InvariantPushes, IterationValues):
    def _rebound_view_readable(self, name, stmt) -> bool:
        """A name rebound later but never written through (a row view `w = W[i]` per
        iteration) that the reverse sweep can bind again (its binding replayed)."""
        replays: list = []
        if not (self.recording.only_rebound_after(name.id, stmt)
                and self.recording.readable(name, stmt, replays)):
            return False
        for d in replays:
            self.recording.request_replay(d)
        return True

    def _record(self, exprs, stmt):
        """Make every expression in `exprs` readable by the reverse of `stmt`.

        Returns (pushes before stmt, pops for its reverse, {dump: replacement})."""
        pushes, pops, subst = [], [], {}
        seen = set()
        exprs = list(exprs)
        whole = {gast.dump(e) for e in exprs if isinstance(e, (gast.Name, gast.Subscript))}
        while exprs:
            expr = exprs.pop(0)
            key = gast.dump(expr)
            if key in seen:
                continue
            seen.add(key)
            replays: list = []
            if self.recording.readable_in_reverse(expr, stmt, replays):
                for d in replays:
                    self.recording.request_replay(d)
                continue
            if isinstance(expr, gast.Call):  # `len(x)` of a rebound x: x itself recorded
                exprs.insert(0, expr.args[0])
                continue
            if isinstance(expr, gast.Subscript) and isinstance(expr.value, gast.Name) \
                    and (not self.recording.mutated_after(expr.value.id, stmt)
                         or self._rebound_view_readable(expr.value, stmt)):
                # the element is still there; only its index needs recording
                exprs[:0] = index_leaves(expr.slice)
                continue
            if isinstance(expr, gast.Attribute) and expr.attr == "shape" \
                    and gast.dump(expr.value) in whole:
                continue  # the array itself is recorded (popped back): its shape with it
            if self._shape_kept(expr, stmt):
                # elements written, the array never bound again: the shape of it, or of a
                # slice of it, is the same in the reverse sweep (the slice's bounds recorded)
                if isinstance(expr.value, gast.Subscript):
                    exprs[:0] = index_leaves(expr.value.slice)
                continue
            if isinstance(expr, gast.Attribute) and expr.attr == "shape":
                # a rebound array whose shape alone the reverse reads: a tuple on the tape
                tmp = self.namer.fresh(f"{_root(expr.value)}_shape")
                subst[key] = S.name(tmp)
                push, pop = self._tape_value(expr, SHAPE, S.name(tmp, store=True),
                                             getattr(self.types.of(expr.value), "ndim", 0))
                pushes += push
                pops.append(pop)
                self.taped.append(S.unparse_expr(expr))
                continue
            shapes = _shapes_read(expr) if self.types.of(expr) == SHAPE else None
            if shapes:
                # a tuple computed from shapes (`T.shape[::-1][:1]`, `(a.shape[:1] + b.shape[1:])
                # [1:]`): numba types a tuple by its length, and one tape holds the shapes of
                # one rank: the whole shapes are recorded (or their arrays), and the tuple
                # computed from them again in the reverse sweep
                exprs[:0] = shapes
                continue
            invariant = self._element_taped_after_loop(expr) \
                if isinstance(expr, gast.Subscript) else None
            if invariant is not None:  # pushed once after the loops that leave it alone
                subst[key] = S.name(invariant)
                self.taped.append(S.unparse_expr(expr))
                continue
            if isinstance(expr, gast.Subscript):
                tmp = self.namer.fresh(f"{_root(expr)}_value")
                subst[key] = S.name(tmp)
                typ, value = self.types.of(expr), expr
                if isinstance(typ, Array) and not self._view_kept(expr):
                    value = S.call("np.copy", expr)  # a row or a slice is a view: copied
                push, pop = self._tape_value(value, typ, S.name(tmp, store=True))
                pushes += push
                pops.append(pop)
                self.taped.append(S.unparse_expr(expr))  # the element as the source reads it
                continue
            if isinstance(expr, gast.Name) and (self._taped_once_per_iteration(expr.id, stmt)
                                                or self._taped_after_loop(expr.id)):
                self.taped.append(expr.id)
                continue
            if isinstance(expr, gast.Name):
                typ, value = self.types[expr.id], expr
                if isinstance(typ, Array) and expr.id in self.written_in_place:
                    value = S.call("np.copy", expr)  # its elements change later: a copy
                push, pop = self._tape_value(value, typ, S.name(expr.id, store=True))
                pushes += push
                pops.append(pop)
                self.taped.append(expr.id)
                continue
            raise AssertionError(f"cannot record {gast.dump(expr)}")
        return pushes, [s for pop in reversed(pops) for s in pop], subst

    def _shape_kept(self, expr, stmt) -> bool:
        """Is `expr` `a.shape` or `a[...].shape` of an array `a` not bound again from `stmt`
        on (its elements may be written: its shape stays)?"""
        if not (isinstance(expr, gast.Attribute) and expr.attr == "shape"):
            return False
        base = expr.value.value if isinstance(expr.value, gast.Subscript) else expr.value
        return isinstance(base, gast.Name) and isinstance(self.types.of(base), Array) \
            and not self.recording.bound_again_after(base.id, stmt)

    def _view_kept(self, expr) -> bool:
        """python: is the row or slice `expr` taped as it is (a view, by reference)? Where
        the function writes no array's elements at all (no `a[i] = v`, `a += v`, `out=`:
        NumPy code that only binds new arrays, `y[:-1]` of a `y` rebound each step), the
        values a view shows stay as they were when it was taped, whatever aliases it."""
        if self.tape_calls or self.written_in_place:
            return False
        if self.writes_out is None:
            self.writes_out = any(isinstance(n, gast.keyword) and n.arg == "out"
                                  for stmt in self.norm.body for n in S.walk(stmt))
        return not self.writes_out

    def _tape_value(self, expr, typ, target, ndim: int = 0) -> tuple[list, list]:
        """(forward statements recording `expr`, reverse statements reading it into `target`):
        a push and a pop, or, in a loop whose iterations record the same values, a fixed
        slot of the iteration's record (read in any order)."""
        frame = self.loop_frames[-1] if self.loop_frames else None
        if frame is None or not frame.get("slots"):
            return self._push(expr, typ, ndim), self._pop(target, typ, ndim)
        assert typ != SHAPE and not isinstance(typ, Array), "a loop taping arrays has no slots"
        tape = FLOAT_TAPE if typ == FLOAT else INT_TAPE
        self.used_tapes.add(tape)
        slot = frame["pushes"].get(tape, 0)
        frame["pushes"][tape] = slot + 1
        return self.tapes.put(tape, expr, slot), self.tapes.get(tape, target, slot)

    def _push(self, expr, typ, ndim: int = 0) -> list:
        tape = self.tapes.tape_for(typ, ndim)
        self.used_tapes.add(tape)
        frame = self.loop_frames[-1] if self.loop_frames else None
        assert frame is None or not frame.get("slots"), "a slotted record pushes by _tape_value"
        if frame is not None and frame["kind"] == "for" and not frame["checked"]:
            # space reserved before the loop
            frame["pushes"][tape] = frame["pushes"].get(tape, 0) + 1
            return self.tapes.push(tape, expr, checked=False)
        return self.tapes.push(tape, expr)

    def _pop(self, target, typ, ndim: int = 0) -> list:
        tape = self.tapes.tape_for(typ, ndim)
        return self.tapes.pop(tape, target)

    # -- what the reverse of a statement must read --------------------------------------------
    def _needed_leaves(self, expr, diff: ExpressionDiff, stmt=None) -> list:
        """Leaves whose primal values the adjoint of `expr` reads (operands of nonlinear rules,
        indices of active array reads). With `stmt`, the leaves of intermediates it tapes
        (`_taped_intermediates_of`) are left out unless a rule inside them reads them."""
        out = []
        taped = self._taped_intermediates_of(stmt, diff, expr) if stmt is not None else set()

        def leaves_of(e):
            # a taped intermediate is read from the tape: its operands are not needed for it
            under = {id(inner) for n in S.walk(e) if id(n) in taped for inner in S.walk(n)}
            lengths = [c for c in length_reads(e) if id(c) not in under]
            out.extend(lengths)
            inside = {id(call.args[0]) for call in lengths}
            for n in S.walk(e):
                if id(n) in inside or id(n) in under:
                    continue
                if isinstance(n, gast.Subscript) or (isinstance(n, gast.Name)
                                                      and not _is_module(self.norm, n)):
                    if isinstance(n, gast.Name) and inside_subscript(n, e):
                        continue
                    out.append(n)

        def shapes_of(e):  # only what its shape expression reads (`x.shape`)
            for read in diff.shapes.shape_reads(e):
                if isinstance(read, gast.Attribute):
                    out.append(read)
                else:  # np.shape(value): the leaves of the value
                    leaves_of(read)

        def visit(node):
            if isinstance(node, gast.Subscript):
                if self.active_leaf(node):
                    leaves_of(node.slice)
                return
            prim = diff.primitive(node)
            if prim is None:
                return
            rule, operands = prim
            names = dict(zip(rule.operands, operands))
            for k, operand in enumerate(operands):
                if rule.partials[k] is None or not diff.is_active(operand):
                    continue
                used = S.template_names(rule.partials[k])
                if "ans" in used:
                    leaves_of(node)
                for p in names:  # in operand order: a set's order changes with the hash seed
                    if p in used:
                        leaves_of(names[p])
                for p in names:  # shapes: of `x_shape`, of an operand broadcasting undoes
                    if f"{p}_shape" in used:
                        shapes_of(names[p])
                if rule.elementwise and diff.shapes.may_broadcast(operands, k):
                    shapes_of(operand)
                visit(operand)
        if diff.is_active(expr):
            visit(expr)
        return out

    def _diff(self, subst):
        def value(node):
            return replaced(node, subst)
        return ExpressionDiff(self.norm, self.namer, self.active_leaf, value, self.types)


def _shapes_read(expr):
    """The `x.shape` reads of `expr` when it is a subscript computed from shapes alone
    (`x.shape[1:]`, `(x.shape[:1] + y.shape[1:])[1:]`), else None."""
    if not isinstance(expr, gast.Subscript):
        return None
    shapes = [n for n in S.walk(expr) if isinstance(n, gast.Attribute) and n.attr == "shape"]
    inside = {id(m) for shape in shapes for m in S.walk(shape)}
    if any(isinstance(n, gast.Name) and id(n) not in inside for n in S.walk(expr)):
        return None
    return shapes or None


def _root(expr) -> str:
    return S.target_name(expr) or "value"


def _is_module(norm, node) -> bool:
    try:
        return isinstance(norm.resolve(node.id), types.ModuleType)
    except KeyError:
        return False
