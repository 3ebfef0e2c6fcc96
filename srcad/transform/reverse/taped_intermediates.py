"""Which rule intermediates of a statement the forward sweep tapes (a part of `ReverseTransform`).

The policy for a definition's own intermediates: recomputed with its replay, or, for the numba
backend and for array statements, function-call results (exp, sqrt, ...; for arrays also
products `W @ h`, by reference) computed in the forward sweep and taped
(`_taped_intermediates`), so the reverse sweep recomputes only the cheap arithmetic; in a loop
recorded in slots, the statement's `SlotForm`.
"""

from __future__ import annotations

import copy
from dataclasses import dataclass

import gast

from srcad.analysis.types import FLOAT, Array
from srcad.frontend import syntax as S
from srcad.transform.expressions import ExpressionDiff
from srcad.transform.reverse.leaves import from_dump


class TapedIntermediates:
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
        whole = self._run_once_arrays(stmt, arrays)
        calls = [s.targets[0].id for s in stmts
                 if _taped_node(diff, node_of.get(s.targets[0].id), arrays, whole)]
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
        if whole:  # read in the reverse sweep: a view of an array written later is copied
            forward[:len(stmts)] = [self._copied_view(s) for s in forward[:len(stmts)]]
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
        if whole:
            recompute = []  # python, run once: the forward sweep's temporaries stay readable
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
        """Does `stmt` tape its array intermediates (by reference) as well as its calls?
        python: an array statement, or one computing with whole arrays on its way to a number
        (`np.log(np.sum(np.exp(x - a)))`: its exp is not computed again in the reverse)."""
        if self._array_statement(stmt):
            return True
        if self.tape_calls:
            return any(isinstance(self.types.of(n), Array) for n in S.walk(expr)
                       if isinstance(n, gast.expr))
        return any(isinstance(self.types.of(operand), Array) for operand in _operands(expr))

    def _taped_intermediates_of(self, stmt, diff, expr) -> set:
        """Ids of the intermediates of `expr` that `_taped_intermediates` tapes: the reverse
        sweep reads their values from the tape, so the leaves only their recomputation would
        read are not recorded (rules inside them still read their own operands)."""
        arrays = self._tapes_arrays(stmt, expr)
        if not (self.tape_calls or arrays):
            return set()
        planned = diff.intermediates(expr)
        whole = self._run_once_arrays(stmt, arrays)
        return {id(n) for n in S.walk(expr)
                if id(n) in planned and _taped_node(diff, n, arrays, whole)}

    def _copied_view(self, temp):
        """`transpose = z.T` (a reshape, a slice...) with z written in place later: the
        reverse sweep reads the temporary after z changed (and z's taped copy restores the
        name, not the view), so it binds a copy."""
        value, base = temp.value, None
        if isinstance(value, gast.Subscript) or (isinstance(value, gast.Attribute)
                                                 and value.attr in ("T", "mT", "real", "imag")):
            base = value.value
        elif isinstance(value, gast.Call) and isinstance(value.func, gast.Attribute) \
                and value.func.attr in _VIEWS:
            owner = value.func.value  # z.reshape(...) or np.reshape(z, ...)
            base = owner if not isinstance(owner, gast.Name) or owner.id in \
                self.written_in_place or not value.args else value.args[0]
        while isinstance(base, gast.Subscript) or (isinstance(base, gast.Attribute)
                                                   and base.attr in ("T", "mT")):
            base = base.value  # np.reshape(z[::-1], ...): a view of z
        if not (isinstance(base, gast.Name) and base.id in self.written_in_place):
            return temp
        return S.assign(S.name(temp.targets[0].id, store=True), S.call("np.copy", value))

    def _run_once_arrays(self, stmt, arrays: bool) -> bool:
        """python: does `stmt`, computing arrays, run once (no loop around it)? Then the
        forward sweep binds all its intermediates, and the reverse reads them (none taped,
        none recomputed)."""
        return arrays and not self.tape_calls and not self.recording.loops_around(stmt)

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


def _taped_node(diff, node, arrays: bool, operations: bool = False) -> bool:
    """Is the intermediate `node` taped: a call that is not a view (exp, sqrt, ...), or, with
    array intermediates taped, a product `W @ h`, or with `operations` any arithmetic (a new
    value)? (Asked of the original node: temporaries have no types.)"""
    if isinstance(node, gast.Call):
        prim = diff.primitive(node)
        return prim is not None and prim[0].name not in VIEW_RULES
    if operations and isinstance(node, (gast.BinOp, gast.UnaryOp)):
        return True
    return arrays and isinstance(node, gast.BinOp) and isinstance(node.op, gast.MatMult)


def _operands(expr):
    """The operands of the calls and arithmetic in `expr` (not an element's array `x[i]`)."""
    for n in S.walk(expr):
        if isinstance(n, gast.Call):
            yield from n.args
        elif isinstance(n, gast.BinOp):
            yield from (n.left, n.right)
        elif isinstance(n, gast.UnaryOp):
            yield n.operand


_VIEWS = frozenset({"reshape", "ravel", "transpose", "squeeze", "expand_dims", "swapaxes",
                    "moveaxis", "broadcast_to", "atleast_1d", "atleast_2d", "atleast_3d",
                    "asarray", "view", "diagonal", "flip", "real", "imag"})


def _array_or_float(typ):
    """How a taped intermediate is recorded: an array by reference, anything else as a float."""
    return typ if isinstance(typ, Array) else FLOAT
