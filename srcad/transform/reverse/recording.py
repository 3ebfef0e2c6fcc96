"""How the values the reverse sweep reads reach it (a part of `ReverseTransform`).

For each statement: which leaves its adjoint reads (`_needed_leaves`), and for each of them
whether it is still readable, re-read by a replay, or pushed by the forward sweep and popped by
the reverse (`_record`); the policy for a definition's own intermediates (recomputed with its
replay, or, for the numba backend, function-call results taped: `_taped_intermediates`).
"""

from __future__ import annotations

import copy
import types
from dataclasses import dataclass

import gast

from srcad.analysis.types import FLOAT, SHAPE, Array
from srcad.frontend import syntax as S
from srcad.transform.expressions import ExpressionDiff
from srcad.transform.reverse.invariant_pushes import InvariantPushes
from srcad.transform.reverse.iteration_values import IterationValues
from srcad.transform.reverse.leaves import (
    from_dump,
    index_leaves,
    inside_subscript,
    length_reads,
    replaced,
)
from srcad.transform.tapes import FLOAT_TAPE, INT_TAPE


class ReverseRecording(InvariantPushes, IterationValues):
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
                if isinstance(typ, Array):  # a row or a slice is a view: its values, copied
                    value = S.call("np.copy", expr)
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

    def _calls_function(self, stmt) -> bool:
        """Does the right-hand side call a math function (exp, sqrt, ...)?"""
        value = getattr(stmt, "value", None)
        if value is None:
            return False
        diff = ExpressionDiff(self.norm, self.namer, self.active_leaf, types=self.types)
        return any(isinstance(n, gast.Call) and diff.primitive(n) is not None
                   for n in S.walk(value))

    def _taped_intermediates(self, stmt, diff, expr, value, subst):
        """numba, and array statements in python: compute the statement's rule intermediates
        in the forward sweep and tape the ones that are function calls (exp, sqrt, ...; for
        arrays also products `W @ h`, taped by reference); the reverse pops them and
        recomputes only the cheap arithmetic. Returns (primal, pops, recompute, prepared) or
        None."""
        # numba: a statement with array intermediates (`return np.mean(np.exp(-z))`) tapes
        # them as the definition of an array does (by reference, or not at all if run once)
        arrays = self._tapes_arrays(stmt, expr)
        if not (self.tape_calls or arrays):
            return None
        stmts, temps, rebuild = diff.prepare(expr)
        node_of = {temps[id(n)]: n for n in S.walk(expr) if id(n) in temps}
        calls = [s.targets[0].id for s in stmts
                 if _taped_node(diff, node_of.get(s.targets[0].id), arrays)]
        if not calls:
            return None
        primal = copy.copy(stmt)
        primal.value = rebuild(value)
        # (a store into an element or a slice, `q[i, j] = math.exp(x)`, copies the value
        # itself: neither a float nor an array stored so needs a copy of its own)
        target = stmt.targets[0].id if isinstance(stmt, gast.Assign) \
            and isinstance(stmt.targets[0], gast.Name) else None
        if isinstance(primal.value, gast.Name) and primal.value.id in calls \
                and target in self.written_in_place \
                and isinstance(self.types.of(node_of[primal.value.id]), Array):
            # `p = np.exp(x)` then `p[1] /= c`: p gets its own array; the taped `exp` (the
            # rule's `ans`) keeps the values the reverse sweep reads (a float, `t = exp`
            # then `t /= c`, is a value: its np.copy would be a 0-d array)
            primal.value = S.call("np.copy", primal.value)
        # the forward sweep reads elements where the reverse reads their taped copies
        originals = {tmp.id: node for key, tmp in subst.items()  # taped shapes: not read here
                     if not key.startswith("Attribute(")
                     and (node := from_dump(key, expr)) is not None}
        forward = [S.substitute_stmt(s, originals) for s in stmts + [primal]]
        if arrays and not self.recording.loops_around(stmt):
            recorded = [([], [])] * len(calls)  # run once: the temporaries stay readable
        else:  # (the value a definition recorded once per iteration binds: read from it)
            kept = self._result_recorded_per_iteration(stmt, calls, primal.value)
            recorded = [([], [S.assign(S.name(c, store=True), S.name(target))]) if c == kept
                        else self._tape_value(S.name(c),
                                              _array_or_float(self.types.of(node_of[c])),
                                              S.name(c, store=True)) for c in calls]
            self.taped.extend(c for c in calls if c != kept)
        forward = forward[:-1] + [p for push, _ in recorded for p in push] + forward[-1:]
        pops = [p for _, pop in reversed(recorded) for p in pop]
        recompute = [s for s in stmts if s.targets[0].id not in calls]
        if self._slotted() and not subst:
            # its taped calls stay readable for the whole iteration (slots)
            form = SlotForm(
                _needed(forward[:len(stmts)], set(calls)) + forward[len(stmts):-1],
                pops + _needed(recompute, S.loaded_names(primal.value)) + [primal],
                {s.targets[0].id for s in stmts if s.targets[0].id in calls
                 and diff.primitive(s.value)[0].name == "exp"})
            self.slot_forms[id(stmt)] = form
            if isinstance(stmt, gast.Assign) and isinstance(stmt.targets[0], gast.Name):
                # later statements that read the value recompute it from the slots
                # (`Recording` may now replay it)
                self.replay_code[id(stmt)] = form.recompute
        return forward, pops, recompute, (stmts, temps, rebuild)

    def _tapes_arrays(self, stmt, expr) -> bool:
        """Does `stmt` tape its array intermediates (by reference) as well as its calls?"""
        return self._array_statement(stmt) or (self.tape_calls and any(
            isinstance(self.types.of(n), Array) for n in S.walk(expr)
            if isinstance(n, gast.expr)))

    def _taped_intermediates_of(self, stmt, diff, expr) -> set:
        """Ids of the intermediates of `expr` that `_taped_intermediates` tapes: the reverse
        sweep reads their values from the tape, so the leaves only their recomputation would
        read are not recorded (rules inside them still read their own operands)."""
        arrays = self._tapes_arrays(stmt, expr)
        if not (self.tape_calls or arrays):
            return set()
        planned = diff.intermediates(expr)
        return {id(n) for n in S.walk(expr) if id(n) in planned and _taped_node(diff, n, arrays)}

    def _slotted(self) -> bool:
        return bool(self.loop_frames and self.loop_frames[-1].get("slots"))

    def _keep_taped(self, stmt) -> bool:
        """numba: a definition that calls exp, sqrt, ... is taped rather than recomputed,
        unless its calls are in slots of the iteration's record (then it is cheap); python:
        an array defined by a call or a product (taped by reference, recomputing costs)."""
        if self._array_statement(stmt):  # both backends
            return self._calls_function(stmt) or any(
                isinstance(n, gast.BinOp) and isinstance(n.op, gast.MatMult)
                for n in S.walk(stmt.value))
        if not self.tape_calls:
            return False
        return self._calls_function(stmt) and id(stmt) not in self.replay_code

    def _array_statement(self, stmt) -> bool:
        """Does `stmt` bind an array by a whole-array expression?"""
        return isinstance(stmt, gast.Assign) and isinstance(stmt.targets[0], gast.Name) \
            and stmt.targets[0].id in self.expression_arrays

    def _replay_with_intermediates(self, stmt, diff, expr, tname):
        """For a definition the reverse sweep recomputes anyway (`v = f(...)` inside a loop,
        from readable values), compute the rule intermediates once, in that recomputation."""
        replays: list = []
        if not isinstance(stmt.targets[0], gast.Name) or \
                not self.recording.self_replayable(stmt, replays):
            return None
        prepared = diff.prepare(expr, root_name=tname)
        for d in replays:
            self.recording.request_replay(d)
        self.recording.request_replay(stmt)
        self.replay_code[id(stmt)] = prepared[0]
        return prepared


@dataclass
class SlotForm:
    """A statement with taped calls in a loop that records them in slots."""

    record: list  # computes its calls and records them
    recompute: list  # reads the calls back from their slots and computes the statement
    exps: set  # the temporaries holding exp(...) results


def _needed(stmts, wanted: set) -> list:
    """The statements of `stmts` (single assignments, in order) that computing the names
    `wanted` needs."""
    wanted, out = set(wanted), []
    for stmt in reversed(stmts):
        if stmt.targets[0].id in wanted:
            wanted |= S.loaded_names(stmt.value)
            out.append(stmt)
    return out[::-1]


# Rules whose result may be a view of their operand (NumPy makes no copy): kept as a
# temporary, it would change when the operand's elements are written later, so the reverse
# sweep recomputes it from the recorded operand instead.
VIEW_RULES = frozenset(["reshape", "ravel", "expand_dims", "squeeze", "transpose",
                        "atleast_1d", "atleast_2d", "atleast_3d"])


def _taped_node(diff, node, arrays: bool) -> bool:
    """Is the intermediate `node` taped: a call that is not a view (exp, sqrt, ...), or, with
    array intermediates taped, a product `W @ h`? (Asked of the original node: temporaries
    have no types.)"""
    if isinstance(node, gast.Call):
        prim = diff.primitive(node)
        return prim is not None and prim[0].name not in VIEW_RULES
    return arrays and isinstance(node, gast.BinOp) and isinstance(node.op, gast.MatMult)


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


def _array_or_float(typ):
    """How a taped intermediate is recorded: an array by reference, anything else as a float."""
    return typ if isinstance(typ, Array) else FLOAT
