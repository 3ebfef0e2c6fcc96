"""Reverse mode of a checkpointed `for` loop (a part of `ReverseTransform`).

With a memory budget (`memory=`), a `for i in range(...)` loop at the top of the function
body is not taped whole: its forward sweep keeps snapshots of the state the loop carries
(the variables it writes that are bound before it: floats, ints, arrays) and its reverse
sweep recomputes steps from them, following the binomial schedule of srcad/runtime/checkpointing.py
(rows TAKE / RESTORE / ADVANCE / TURN). An ADVANCE runs the primal body as written; a TURN
runs one step taping it and then that step's adjoint, so the tape never holds more than one
step. Everything the reverse of a step reads is on that step's tape, is the loop index or is
not written by the loop (recording.py), which is exactly what holds right after the step is
rerun. Arrays the loop rebinds are restored as fresh copies (the caller may hold the old
object); arrays it writes in place are restored in place, and an argument array gets its
contents back (as the forward sweep left them) after the loop's reverse.

Loops inside the checkpointed one, and loops elsewhere, are taped as usual; a top-level loop
that cannot be checkpointed (a `break`, a carried value of another type, a step reading a
variable that the function changes after the loop, or a local array whose shape may change
between iterations, reverse/loop_shapes.py) is taped too, and the logger "srcad" says why.

Without memory= the python backend plans a time-stepping loop automatically (it measures step
0's tape). numba's ordinary code keeps its reservations and slot records instead and only
compares the reservation before such a loop with the budget (`budget_guard`): over it, it
raises TapeOverBudget and the caller runs the code generated with memory=MEASURED, the
automatic plan (srcad/build/checkpoint_fallback.py).
"""

from __future__ import annotations

import logging

import gast

from srcad.analysis.primitives import effect_call, effect_operands
from srcad.analysis.types import BOOL, FLOAT, INT, Array
from srcad.frontend import syntax as S
from srcad.runtime import checkpointing
from srcad.runtime.checkpointing import (
    ADVANCE,
    AUTOMATIC,
    EXPLICIT,
    MEASURE,
    MEASURED,
    RECORD,
    RESTORE,
    REVERSE,
    TAKE,
    TURN,
)
from srcad.transform.normalize.unbounded_lists import is_growth
from srcad.transform.reverse.loop_shapes import shape_may_change
from srcad.transform.simplify import simplify
from srcad.transform.tapes import FLOAT_TAPE, INT_TAPE, WORK, ArrayTapes

log = logging.getLogger("srcad")


class ReverseCheckpoint:
    # bytes for a loop's snapshots; None: the automatic budget; MEASURED: the automatic plan
    # on numba too; 0: loops taped whole
    memory: int | None = None

    def checkpointed(self, loop) -> bool:
        """Is `loop` reversed through a checkpointing plan? Top-level range loops: all of them
        with memory=, time-stepping ones (`_time_stepping`) with the automatic plan (python
        backend without memory=, and memory=MEASURED)."""
        if self.memory == 0 or not any(loop is s for s in self.norm.body):
            return False
        # numba without memory=: the plan would replace the reservations made once outside
        # the hot loops and the slot records that make its reverse code fast (a data loop with
        # work arrays, as gmm's, looks time-stepping); `budget_guard` checks the size instead
        if self.memory in (None, MEASURED) and (
                (self.memory is None and self.tapes.backend == "numba")
                or not self._time_stepping(loop)):
            return False
        why = self._not_checkpointable(loop)
        if why:
            line = self.norm.parsed.line_of(loop)
            log.info("%s line %s: loop taped whole, not checkpointed: %s",
                     self.norm.parsed.filename, line, why)
            return False
        return True

    def _time_stepping(self, loop) -> bool:
        """What the automatic budget looks at: a loop whose steps run loops of their own (over
        a state) and that carries an array. Other loops keep their ordinary reverse code
        (slot records, reservations, forward-ordered reverse loops on numba) unless memory=
        is given: the automatic plan costs a schedule and a measurement per call."""
        return any(isinstance(n, (gast.For, gast.While)) for s in loop.body for n in S.nodes(s)) \
            and any(isinstance(t, Array) for _, t in self._carried(loop))

    def budget_guard(self, loop, frame, span) -> list:
        """numba without memory=, before a top-level time-stepping loop (`_time_stepping`)
        whose pushes are all reserved before it (`frame`, its range `span`) on the tapes of
        numbers: `raise TapeOverBudget(...)` when that reservation is over DEFAULT_MEMORY
        bytes, before the tape grows; the caller then runs the checkpointed code instead
        (srcad/build/checkpoint_fallback.py). [] (taped whole, as before) where the size is not
        known before the loop (a while loop or a trip count set inside it, arrays taped by
        reference) or the function may have written an argument before it (a rerun would
        start from the written values)."""
        if self.memory is not None or self.tapes.backend != "numba" or frame["checked"] \
                or not any(loop is s for s in self.norm.body) \
                or not self._time_stepping(loop) or self._not_checkpointable(loop):
            return []
        need = self._need(frame, span)
        before = self.norm.body[:next(k for k, s in enumerate(self.norm.body) if s is loop)]
        if not need or any(self.tapes.is_list(t) for t in need) \
                or self._writes_arguments(before):
            return []
        total = None
        for expr in need.values():
            total = expr if total is None else gast.BinOp(left=total, op=gast.Add(), right=expr)
        index, budget = loop.target.id, checkpointing.DEFAULT_MEMORY
        size, trips = self.namer.fresh(f"{index}_tape_bytes"), self.namer.fresh(f"{index}_trips")
        span_args = ", ".join(S.unparse_expr(a) for a in span.args)
        line = self.norm.parsed.line_of(loop) or 0
        rest = f"{size} - {size} // {trips}"  # the steps after the first, as python measures
        return [S.comment(f"line {line}: its tape over the default memory budget: checkpointed "
                          "by the caller"),
                S.assign(S.name(trips), S.parse_expr(f"len(range({span_args}))")),
                S.assign(S.name(size), simplify(S.substitute("8 * (total)", {"total": total}),
                                                integers=True))] + S.parse_stmts(
            f"if {trips} > 1 and {rest} > {budget}:\n    raise TapeOverBudget({line}, {trips}, "
            f"{rest}, {self._state_bytes(self._carried(loop))}, {budget})\n")

    def _writes_arguments(self, statements) -> bool:
        """May `statements` write into (or rebind) an argument?"""
        params = set(self.norm.params)
        for stmt in statements:
            if S.stored_names(stmt) & params:
                return True
            for node in S.nodes(stmt):
                if isinstance(node, gast.Expr) and effect_call(self.norm, node.value) and any(
                        S.loaded_names(o) & params for o in effect_operands(node.value)):
                    return True
        return False

    @staticmethod
    def _state_bytes(carried) -> str:
        """Source of the bytes of one state of the `carried` variables (8 per number)."""
        scalars = sum(1 for _, t in carried if not isinstance(t, Array))
        return " + ".join([f"8 * {scalars}"] + [f"8 * {v}.size" for v, t in carried
                                                 if isinstance(t, Array)])

    def _not_checkpointable(self, loop) -> str | None:
        if any(isinstance(n, (gast.Break, gast.Return)) for n in S.nodes(loop)):
            return "it exits early (break or return)"
        for v, typ in self._carried(loop):
            if typ not in (FLOAT, INT, BOOL) and not isinstance(typ, Array):
                return f"it carries {v} of type {typ}"
        # a step recomputed in the reverse sweep reads its inputs as they are then: one the
        # loop does not write but a later statement changes would have its later value
        body = self.norm.body
        after = body[next(k for k, s in enumerate(body) if s is loop) + 1:]
        changed = set().union(*(S.stored_names(s) for s in after)) \
            - set().union(*(S.stored_names(s) for s in loop.body))
        read = sorted(S.loaded_names(loop) & changed)
        if read:
            return f"a step reads {read[0]}, which the function changes after the loop"
        changing = self.carried_shape_changes(loop)  # reverse/shape_guards.py
        if changing:  # the fallback's code, after a step changed its shape
            return f"it may change the shape of {changing}, an array it carries"
        grows = next((n.targets[0].id for n in S.nodes(loop) if is_growth(n)), None)
        if grows is not None:  # a snapshot has the shape of the list's buffer at the start
            return f"the list whose buffer is {grows} grows in it"
        changing = self._shape_changing_locals(loop)
        if changing:  # a step rerun from a snapshot does not know the previous step's shape
            return f"it binds {changing[0]} with a shape that may change between iterations"
        return None

    def _shape_changing_locals(self, loop) -> list:
        """Array locals the loop binds (not carried) whose shape may change per iteration,
        the carried arrays taken to keep theirs (as their snapshots do)."""
        carried, shapes = {v for v, _ in self._carried(loop)}, self._diff({}).shapes
        return [n.targets[0].id for n in S.nodes(loop) if isinstance(n, gast.Assign)
                and isinstance(n.targets[0], gast.Name) and n.targets[0].id not in carried
                and n.targets[0].id in self.expression_arrays
                and shape_may_change(self.recording, shapes, self.norm.params, n,
                                     n.targets[0].id, settled=carried)]

    def _carried(self, loop) -> list:
        """(name, type) of the variables the loop writes that are bound before it."""
        before = set(self.norm.params)
        for stmt in self.norm.body:
            if stmt is loop:
                break
            before |= S.stored_names(stmt)
        written = set().union(*(S.stored_names(s) for s in loop.body)) - {loop.target.id}
        return [(v, self.types[v]) for v in sorted(written & before)]

    def _tape_bytes(self, kinds) -> str:
        """Source of the bytes on the tapes of `kinds` now (8 per number)."""
        terms = []
        for kind in sorted(kinds):
            name = self.tapes.names[kind]
            if kind in (FLOAT_TAPE, INT_TAPE):
                terms.append(f"8 * {self.tapes.size(kind)}" if isinstance(self.tapes, ArrayTapes)
                             else f"8 * len({name})")
            elif kind.startswith("shape_tape"):
                terms.append(f"8 * len({name})")
            elif kind != WORK:
                terms.append(f"array_bytes({name})")
        return " + ".join(terms) or "0"

    def checkpointed_loop(self, loop):
        index = loop.target.id
        n = {k: self.namer.fresh(f"{index}_{k}") for k in (
            "start", "step", "trips", "state_bytes", "plan", "split", "slots", "row",
            "first", "last", "action", "iteration", "tape_mark")}
        automatic = self.memory in (None, MEASURED)
        budget = checkpointing.DEFAULT_MEMORY if automatic else self.memory
        line = self.norm.parsed.line_of(loop) or 0
        carried = self._carried(loop)
        scalars = [(v, t) for v, t in carried if not isinstance(t, Array)]
        floats = [v for v, t in scalars if t == FLOAT]
        ints = [(v, t) for v, t in scalars if t != FLOAT]
        arrays = [v for v, t in carried if isinstance(t, Array)]
        rebound = set().union(*(S.bound_names(s) for s in loop.body))
        snap = {v: self.namer.fresh(f"{index}_snapshots_{v}") for v in arrays}
        if floats:
            snap["<floats>"] = self.namer.fresh(f"{index}_snapshots_floats")
        if ints:
            snap["<ints>"] = self.namer.fresh(f"{index}_snapshots_ints")
        finals = {v: self.namer.fresh(f"{v}_final") for v in arrays
                  if v in self.norm.params and v not in rebound}

        used, self.used_tapes = self.used_tapes, set()  # the tapes one step pushes on
        self.loop_frames.append({"kind": "for", "pushes": {}, "loop": loop, "slots": False,
                                 "checked": True,  # no space reserved: pushes check it
                                 "checkpointed": True})  # records nothing after the loop
        body_fwd, body_rev = self.block(loop.body)
        self.loop_frames.pop()
        step_tapes, self.used_tapes = self.used_tapes, used | self.used_tapes
        body_rev = self.with_replays(loop.body, body_rev)
        primal = self.with_shape_guards(loop.body)  # reverse/shape_guards.py

        args = [S.unparse_expr(a) for a in loop.iter.args]
        start = args[0] if len(args) > 1 else "0"
        step = args[2] if len(args) > 2 else "1"
        sizes = self._state_bytes(carried)
        plan = f"{n['plan']}, {n['split']}, {n['slots']} = checkpoint_plan"
        allocate = []
        if floats:
            allocate.append(f"{snap['<floats>']} = np.empty(({n['slots']}, {len(floats)}))")
        if ints:
            allocate.append(f"{snap['<ints>']} = np.empty(({n['slots']}, {len(ints)}), "
                            "np.int64)")
        for v in arrays:
            dtype = "np.float64" if self.types[v].is_float else "np.int64"
            allocate.append(f"{snap[v]} = np.empty(({n['slots']},) + {v}.shape, {dtype})")
        setup = [f"{n['start']} = {start}", f"{n['step']} = {step}",
                 f"{n['trips']} = len(range({', '.join(args)}))",
                 f"{n['state_bytes']} = {sizes}"]
        if automatic:
            setup.append(f"{n['tape_mark']} = {self._tape_bytes(step_tapes)}")
        setup.append(f"{plan}({n['trips']}, {n['state_bytes']}, {budget}, "
                     f"{AUTOMATIC if automatic else EXPLICIT}, {line})")
        setup += allocate

        slot = n["first"]
        take, restore = [], []
        for k, v in enumerate(floats):
            take.append(f"{snap['<floats>']}[{slot}, {k}] = {v}")
            restore.append(f"{v} = float({snap['<floats>']}[{slot}, {k}])")
        for k, (v, t) in enumerate(ints):
            take.append(f"{snap['<ints>']}[{slot}, {k}] = {v}")
            cast = "bool" if t == BOOL else "int"
            restore.append(f"{v} = {cast}({snap['<ints>']}[{slot}, {k}])")
        for v in arrays:
            take.append(f"{snap[v]}[{slot}] = {v}")
            restore.append(f"{v} = {snap[v]}[{slot}].copy()" if v in rebound
                           else f"{v}[:] = {snap[v]}[{slot}]")

        def steps(body, backwards=False):
            span = f"{n['last']} - 1, {n['first']} - 1, -1" if backwards else \
                f"{n['first']}, {n['last']}"
            loop_stmt = S.parse_stmts(
                f"for {n['iteration']} in range({span}):\n"
                f"    {index} = {n['start']} + {n['iteration']} * {n['step']}\n")[0]
            loop_stmt.body += S.clone(body)
            return [loop_stmt]

        def interpreter(rows, branches, restart=False):
            """A loop over rows reading each, then `if action == A: ...` per branch; with
            `restart`, a `while` whose last branch may replan and start over (row -1)."""
            reads = S.parse_stmts(f"{n['first']} = int({n['plan']}[{n['row']}, 1])\n"
                                  f"{n['last']} = int({n['plan']}[{n['row']}, 2])\n"
                                  f"{n['action']} = {n['plan']}[{n['row']}, 0]\n")
            chain = None
            for action, body in reversed(branches):
                if chain is None:
                    chain = body
                    continue
                test = S.parse_expr(f"{n['action']} == {action}")
                chain = [gast.If(test=test, body=body, orelse=chain)]
            if not restart:
                header = S.parse_stmts(f"for {n['row']} in range({rows}):\n    pass\n")[0]
                header.body = reads + chain
                return [header]
            header = S.parse_stmts(f"{n['row']} = 0\nwhile {n['row']} < {rows}:\n    pass\n")
            header[1].body = reads + chain + [S.aug_assign(S.name(n["row"]), gast.Add(),
                                                           S.const(1))]
            return header

        def lines(texts):
            return S.parse_stmts("\n".join(texts) + "\n") if texts else [gast.Pass()]

        # forward sweep: snapshots and primal steps up to the final state (automatic: one
        # step recorded first, its tape measured, then the rest planned)
        branches = [(TAKE, lines(take)), (ADVANCE, steps(primal))]
        if automatic:  # MEASURE: plan the rest from the tape step 0 took, run its rows
            measure = S.parse_stmts(
                f"{plan}({n['trips']}, {n['state_bytes']}, {budget}, "
                f"{self._tape_bytes(step_tapes)} - {n['tape_mark']}, {line})\n"
                + "\n".join(allocate) + f"\n{n['row']} = -1\n")
            branches = [branches[0], (RECORD, steps(body_fwd)), branches[1], (MEASURE, measure)]
        forward = interpreter(n["split"], branches, restart=automatic)
        header = (f"line {line}: {S.unparse_header(loop)} checkpointed: binomial schedule "
                  "(srcad/runtime/checkpointing.py) with snapshots of " + ", ".join(v for v,
                                                                                    _ in carried))
        if automatic:
            header += ", when its tape would exceed the default memory budget"
        fwd = [S.comment(header)] + lines(setup) + forward

        # reverse sweep: the rest of the plan; recorded steps are reversed from their tape
        turn = S.parse_stmts(f"{index} = {n['start']} + {n['first']} * {n['step']}\n")
        branches = [(TAKE, lines(take)), (RESTORE, lines(restore)),
                    (ADVANCE, steps(primal)), (TURN, turn + S.clone(body_fwd) + body_rev)]
        if automatic:  # the rest of the loop taped whole, or step 0
            branches += [(REVERSE, steps(body_rev, backwards=True))]
        reverse = interpreter(f"{n['split']}, {n['plan']}.shape[0]", branches)
        # an argument array ends as the primal leaves it: as the whole forward sweep did
        rev = [self._comment(loop)] + [S.assign(S.name(final, store=True), S.call(f"{v}.copy"))
                                       for v, final in finals.items()] + reverse
        rev += [S.parse_stmts(f"{v}[:] = {final}\n")[0] for v, final in finals.items()]
        return fwd, rev
