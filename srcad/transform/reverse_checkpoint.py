"""Reverse mode of a checkpointed `for` loop (a part of `ReverseTransform`).

With a memory budget (`memory=`), a `for i in range(...)` loop at the top of the function
body is not taped whole: its forward sweep keeps snapshots of the state the loop carries
(the variables it writes that are bound before it: floats, ints, arrays) and its reverse
sweep recomputes steps from them, following the binomial schedule of srcad/checkpointing.py
(rows TAKE / RESTORE / ADVANCE / TURN). An ADVANCE runs the primal body as written; a TURN
runs one step taping it and then that step's adjoint, so the tape never holds more than one
step. Everything the reverse of a step reads is on that step's tape, is the loop index or is
not written by the loop (recording.py), which is exactly what holds right after the step is
rerun. Arrays the loop rebinds are restored as fresh copies (the caller may hold the old
object); arrays it writes in place are restored in place, and an argument array gets its
final contents back after the reverse sweep.

Loops inside the checkpointed one, and loops elsewhere, are taped as usual; a top-level loop
that cannot be checkpointed (a `break`, or a carried value of another type) is taped too, and
the logger "srcad" says why.
"""

from __future__ import annotations

import logging

import gast

from srcad import syntax as S
from srcad.analysis.types import BOOL, FLOAT, INT, Array
from srcad.checkpointing import ADVANCE, RESTORE, TAKE

log = logging.getLogger("srcad")


class ReverseCheckpoint:
    memory: int | None = None  # bytes for a loop's snapshots; None: tape loops whole

    def checkpointed(self, loop) -> bool:
        """Is `loop` reversed from snapshots? Top-level range loops, with a budget."""
        if self.memory is None or not any(loop is s for s in self.norm.body):
            return False
        why = self._not_checkpointable(loop)
        if why:
            line = self.norm.parsed.line_of(loop)
            log.info("%s line %s: loop taped whole, not checkpointed: %s",
                     self.norm.parsed.filename, line, why)
            return False
        return True

    def _not_checkpointable(self, loop) -> str | None:
        if any(isinstance(n, (gast.Break, gast.Return)) for n in S.nodes(loop)):
            return "it exits early (break or return)"
        for v, typ in self._carried(loop):
            if typ not in (FLOAT, INT, BOOL) and not isinstance(typ, Array):
                return f"it carries {v} of type {typ}"
        return None

    def _carried(self, loop) -> list:
        """(name, type) of the variables the loop writes that are bound before it."""
        before = set(self.norm.params)
        for stmt in self.norm.body:
            if stmt is loop:
                break
            before |= S.stored_names(stmt)
        written = set().union(*(S.stored_names(s) for s in loop.body)) - {loop.target.id}
        return [(v, self.types[v]) for v in sorted(written & before)]

    def checkpointed_loop(self, loop):
        index = loop.target.id
        n = {k: self.namer.fresh(f"{index}_{k}") for k in (
            "start", "step", "trips", "state_bytes", "plan", "split", "slots", "row",
            "first", "action", "iteration")}
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

        self.loop_frames.append({"kind": "for", "pushes": {}, "loop": loop, "slots": False,
                                 "checked": True})  # one step taped: pushes check space
        body_fwd, body_rev = self.block(loop.body)
        self.loop_frames.pop()
        body_rev = self.with_replays(loop.body, body_rev)

        args = [S.unparse_expr(a) for a in loop.iter.args]
        start = args[0] if len(args) > 1 else "0"
        step = args[2] if len(args) > 2 else "1"
        sizes = " + ".join([f"8 * {len(scalars)}"] + [f"8 * {v}.size" for v in arrays])
        setup = [f"{n['start']} = {start}", f"{n['step']} = {step}",
                 f"{n['trips']} = len(range({', '.join(args)}))",
                 f"{n['state_bytes']} = {sizes}",
                 f"{n['plan']}, {n['split']}, {n['slots']} = checkpoint_plan({n['trips']}, "
                 f"{n['state_bytes']}, {self.memory})"]
        if floats:
            setup.append(f"{snap['<floats>']} = np.empty(({n['slots']}, {len(floats)}))")
        if ints:
            setup.append(f"{snap['<ints>']} = np.empty(({n['slots']}, {len(ints)}), np.int64)")
        for v in arrays:
            dtype = "np.float64" if self.types[v].is_float else "np.int64"
            setup.append(f"{snap[v]} = np.empty(({n['slots']},) + {v}.shape, {dtype})")

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
        take = take or ["pass"]

        def primal_steps():
            loop_stmt = S.parse_stmts(
                f"for {n['iteration']} in range({n['first']}, {n['plan']}[{n['row']}, 2]):\n"
                f"    {index} = {n['start']} + {n['iteration']} * {n['step']}\n")[0]
            loop_stmt.body += S.clone(loop.body)
            return loop_stmt

        def row_reads():
            return S.parse_stmts(f"{n['first']} = int({n['plan']}[{n['row']}, 1])\n"
                                 f"{n['action']} = {n['plan']}[{n['row']}, 0]\n")

        # forward sweep: snapshots and primal steps up to the final state
        forward_loop = S.parse_stmts(f"for {n['row']} in range({n['split']}):\n    pass\n")[0]
        dispatch = S.parse_stmts(f"if {n['action']} == {TAKE}:\n"
                                 + "".join(f"    {t}\n" for t in take) + "else:\n    pass\n")[0]
        dispatch.orelse = [primal_steps()]
        forward_loop.body = row_reads() + [dispatch]
        fwd = [S.comment(f"line {self.norm.parsed.line_of(loop)}: "
                         f"{S.unparse_header(loop)} checkpointed: binomial schedule "
                         "(srcad/checkpointing.py), snapshots of "
                         + ", ".join(v for v, _ in carried))]
        fwd += S.parse_stmts("\n".join(setup) + "\n") + [forward_loop]
        fwd += [S.assign(S.name(final, store=True), S.call(f"{v}.copy"))
                for v, final in finals.items()]

        # reverse sweep: the rest of the schedule; a turn tapes one step and reverses it
        reverse_loop = S.parse_stmts(
            f"for {n['row']} in range({n['split']}, {n['plan']}.shape[0]):\n    pass\n")[0]
        turn = S.parse_stmts(f"{index} = {n['start']} + {n['first']} * {n['step']}\n")
        turn += body_fwd + body_rev
        dispatch = S.parse_stmts(
            f"if {n['action']} == {TAKE}:\n" + "".join(f"    {t}\n" for t in take)
            + f"elif {n['action']} == {RESTORE}:\n"
            + "".join(f"    {t}\n" for t in restore or ["pass"])
            + f"elif {n['action']} == {ADVANCE}:\n    pass\nelse:\n    pass\n")[0]
        dispatch.orelse[0].orelse[0].body = [primal_steps()]
        dispatch.orelse[0].orelse[0].orelse = turn
        reverse_loop.body = row_reads() + [dispatch]
        rev = [self._comment(loop), reverse_loop]
        rev += [S.parse_stmts(f"{v}[:] = {final}\n")[0] for v, final in finals.items()]
        return fwd, rev
