"""Numbers a for loop's iteration defines once and reads many times, recorded once per
iteration instead of once per read (a part of `ReverseTransform`, used by `_record`).

A float or int `v` assigned exactly once in a for loop's body, by a statement at the top
level of the body, keeps its value from that assignment to the end of the iteration: every
statement after it that reads `v` reads the same number. Instead of each such statement
pushing `v` before it and popping it back in its reverse (ht's rotation angles `cx`, `sx`, ...
went on the tape 28 times an iteration for 6 values), `v` is pushed once at the end of the
iteration's forward body and popped once at the start of its reverse body (`control_flow.py`
emits both from the loop frame's `iteration_values`), also for reads inside inner for loops
that leave `v` alone; the reverse of the statements between writes no other value into it.
Only in loops without `break`, `continue` or `return` (the end of the body is reached every
iteration) whose records are a stack (slots.py's straight-line loops already read each record
where they need it).

An array `v` defined so is recorded the same way (the Kalman filter's `innovation_cov`, read by
three statements of the update, went on the tape three times an iteration), by reference as
each read recorded it, only where nothing in the loop writes any array's elements in place
(no `a[i] = ...`, no `a += ...` on an array, no `out=`): a write through a view or an alias
the analysis does not see could otherwise change `v` between its reads and the end of the
iteration. Where the loop writes elements, each read records `v` on its own, as before.
"""

from __future__ import annotations

import gast

from srcad.analysis.types import FLOAT, INT, Array
from srcad.frontend import syntax as S


class IterationValues:
    def _taped_once_per_iteration(self, name, stmt) -> bool:
        """Record the number `name` read by `stmt` once at the end of the iteration of the for
        loop whose body defines it (see the module docstring), also where `stmt` sits in
        inner for loops that leave `name` alone; False where that does not apply."""
        typ = self.types[name]
        if typ not in (FLOAT, INT) and not isinstance(typ, Array):
            return False
        for frame in reversed(self.loop_frames):
            if frame["kind"] != "for" or frame.get("checkpointed"):
                return False
            if name in self.recording.subtree_binds(frame["loop"]):
                if isinstance(typ, Array) and (name in self.written_in_place
                                               or self._writes_in_place(frame)):
                    return False
                return self._defined_once_before(frame, name, stmt)
        return False

    def _result_recorded_per_iteration(self, stmt, calls, value) -> str | None:
        """Of `name = f(...)` (`value`: its primal's right-hand side, a temporary holding the
        call in `calls`), the temporary, when `stmt` is the one top-level definition of the
        array `name` in a for loop's body that records it once per iteration (see the module
        docstring): the reverse reads the call's value back from `name` instead of taping it
        too (the Kalman filter's `solved = np.linalg.solve(...)`: one array, two records)."""
        if not (isinstance(stmt, gast.Assign) and isinstance(stmt.targets[0], gast.Name)
                and isinstance(value, gast.Name) and value.id in calls and self.loop_frames):
            return None
        name, frame = stmt.targets[0].id, self.loop_frames[-1]
        typ = self.types[name]
        if name in S.loaded_names(stmt.value):  # `h = np.tanh(W @ h)`: the old h is taped here
            return None
        if not isinstance(typ, Array) or name in self.written_in_place \
                or frame["kind"] != "for" or frame.get("checkpointed") \
                or not frame.get("iteration_values_allowed") or self._writes_in_place(frame):
            return None
        definition = _single_top_level_definition(frame["loop"].body, name)
        if definition is None or frame["loop"].body[definition] is not stmt:
            return None
        frame.setdefault("iteration_values", {})[name] = (typ, S.name(name), definition)
        return value.id

    def _writes_in_place(self, frame) -> bool:
        """May the loop of `frame` write the elements of some array (through any name)?"""
        found = frame.get("writes_in_place")
        if found is None:
            found = frame["writes_in_place"] = any(
                _writes_elements(n, self.types) for stmt in frame["loop"].body
                for n in S.walk(stmt))
        return found

    def _defined_once_before(self, frame, name, stmt) -> bool:
        if not frame.get("iteration_values_allowed"):
            return False
        if name in frame.setdefault("iteration_values", {}):
            definition = frame["iteration_values"][name][2]
        else:
            definition = _single_top_level_definition(frame["loop"].body, name)
            if definition is None:
                return False
        after = _top_statements(frame).get(id(stmt), (None, None))
        after = after[1] if after[0] is stmt else None
        if after is None or after <= definition:  # read before its definition: the last value
            return False
        frame["iteration_values"][name] = (self.types[name], S.name(name), definition)
        return True

    def iteration_records(self, frame) -> tuple[list, list]:
        """(pushes at the end of the forward body, pops at the start of the reverse body) of
        the values `_taped_once_per_iteration` chose in `frame` (call it before the frame is
        popped: the pushes are the loop's own)."""
        pushes, pops = [], []
        for name, (typ, value, _) in sorted(frame.get("iteration_values", {}).items()):
            pushes += self._push(S.clone(value), typ)
            pops[:0] = self._pop(S.name(name, store=True), typ)
        return pushes, pops


def _top_statements(frame) -> dict:
    """id(node) -> (node, index of the statement of the loop's body holding it), made once
    per loop (was a walk of the body per name read in it: quadratic in the body's size). The
    nodes are kept: their ids stay theirs."""
    top = frame.get("top_statements")
    if top is None:
        top = frame["top_statements"] = {}
        for k, stmt in enumerate(frame["loop"].body):
            for n in S.walk(stmt):
                top.setdefault(id(n), (n, k))
    return top


def _writes_elements(node, types) -> bool:
    """Does `node` write array elements in place: a store into a subscript or an attribute,
    an augmented assignment to an array name, or a call's `out=`?"""
    if isinstance(node, (gast.Subscript, gast.Attribute)) and isinstance(node.ctx, gast.Store):
        return True
    if isinstance(node, gast.AugAssign):
        return not isinstance(node.target, gast.Name) \
            or types[node.target.id] not in (FLOAT, INT)
    return isinstance(node, gast.Call) and any(k.arg == "out" for k in node.keywords)


def leaves_loop_early(body) -> bool:
    """Does `body` hold a break, continue or return (of its own loop or of an inner one)?"""
    return any(isinstance(n, (gast.Break, gast.Continue, gast.Return))
               for stmt in body for n in S.walk(stmt))


def _single_top_level_definition(body, name):
    """The index in `body` of the one statement that binds `name` (`name = ...` at the top
    level of the body), or None if `name` is bound elsewhere in it or more than once."""
    stores = [n for stmt in body for n in S.walk(stmt)
              if isinstance(n, gast.Name) and n.id == name and isinstance(n.ctx, gast.Store)]
    if len(stores) != 1:
        return None
    for k, stmt in enumerate(body):
        if isinstance(stmt, gast.Assign) and len(stmt.targets) == 1 \
                and isinstance(stmt.targets[0], gast.Name) and stmt.targets[0] is stores[0]:
            return k
    return None
