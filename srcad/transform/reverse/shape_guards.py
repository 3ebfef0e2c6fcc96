"""Run-time checks that the arrays a loop carries keep their shapes (a part of
`ReverseTransform`).

Reverse mode takes an array the loop carries to keep its shape when its bindings broadcast
its own shape with others (`y = y + h * f(y)`: reverse/loop_shapes.py); the adjoints of what
is computed from it are then zeroed in place, with nothing recorded. A (1,) `y` and a (3,) `v`
in `y = y + v` break that in the first iteration, and the derivative would be wrong. So the
forward sweep checks each such binding:

    y_shape_before = y.shape
    y = y + v * 0.1
    if y.shape != y_shape_before:
        raise LoopShapeError('y', 'model.py', 7, y_shape_before, y.shape)

one tuple comparison per binding and iteration. A checkpointed loop checks every binding of
a carried array that may change its shape: its snapshots and reruns take them all to keep it.
The caller of the generated code then runs the code generated with `shapes_recorded`
(srcad/build/shape_fallback.py), which takes none to keep its shape unless each of its bindings has
its own (`y = np.sin(y)`): the shapes of what is computed from it are recorded and the
adjoints remade in their shapes, and such a loop is not checkpointed (taped whole).
"""

from __future__ import annotations

import gast

from srcad.analysis.types import Array
from srcad.frontend import syntax as S
from srcad.transform.reverse.loop_shapes import assumed_to_keep_shape, shape_may_change


class ShapeGuards:
    shapes_recorded = False  # the fallback's code: no carried array assumed to keep its shape
    shape_guards = 0  # bindings checked so far

    def shape_may_change(self, stmt, name, shapes) -> bool:
        """reverse/loop_shapes.py's `shape_may_change` of the binding `stmt` of `name`."""
        return shape_may_change(self.recording, shapes, self.norm.params, stmt, name,
                                assume_carried=not self.shapes_recorded)

    def carried_shape_changes(self, loop) -> str | None:
        """The fallback's code: an array the top-level `loop` carries that a binding may
        give another shape (its checkpointing would need it to keep its shape), else None."""
        if not self.shapes_recorded:
            return None
        shapes = self._diff({}).shapes
        for n in S.nodes(loop):
            if isinstance(n, gast.Assign) and isinstance(n.targets[0], gast.Name) \
                    and isinstance(self.types[n.targets[0].id], Array) \
                    and assumed_to_keep_shape(self.recording, shapes, self.norm.params, n, True):
                return n.targets[0].id
        return None

    def shape_guarded(self, stmt, forward, checkpointed=None) -> list:
        """`forward` (the forward sweep's statements for `stmt`) checked as above when `stmt`
        binds a carried array taken to keep its shape; `checkpointed`: in a checkpointed loop
        (default: the loop being transformed is)."""
        if self.shapes_recorded or not isinstance(stmt, gast.Assign) \
                or not isinstance(stmt.targets[0], gast.Name) \
                or not isinstance(self.types[stmt.targets[0].id], Array) \
                or id(stmt) not in self.recording.sites or not self.recording.loops_around(stmt):
            return forward
        if checkpointed is None:
            checkpointed = any(frame.get("checkpointed") for frame in self.loop_frames)
        name = assumed_to_keep_shape(self.recording, self._diff({}).shapes, self.norm.params,
                                     stmt, checkpointed)
        if name is None:
            return forward
        self.shape_guards += 1
        before = self.namer.fresh(f"{name}_shape_before")
        where = f"{self.norm.parsed.filename!r}, {self.norm.parsed.line_of(stmt) or 0}"
        check = S.parse_stmts(f"{before} = {name}.shape\n"
                              f"if {name}.shape != {before}:\n"
                              f"    raise LoopShapeError({name!r}, {where}, {before}, "
                              f"{name}.shape)\n")
        return [check[0]] + forward + [check[1]]

    def with_shape_guards(self, stmts) -> list:
        """A copy of the primal statements `stmts` of a checkpointed loop's body (the steps
        its plan reruns), each binding checked as above."""
        out = []
        for stmt in stmts:
            copy = S.clone(stmt)
            for field in ("body", "orelse"):
                if isinstance(getattr(stmt, field, None), list):
                    setattr(copy, field, self.with_shape_guards(getattr(stmt, field)))
            out += self.shape_guarded(stmt, [copy], checkpointed=True)
        return out
