"""Reverse mode: a loop that changed the shape of an array it carries is run again with
shapes recorded.

Reverse code takes an array a loop carries to keep its shape when its bindings broadcast its own
shape with others (`y = y + h * f(y)`, an ODE or RNN step): what is computed from it then has
one shape in every iteration, its adjoint is zeroed in place and nothing is recorded. The
forward sweep checks that after each such binding (transform/reverse/shape_guards.py) and raises
LoopShapeError when broadcasting changed the shape (`y = y + v` with a (1,) `y` and a (3,) `v`),
before the reverse sweep starts. The callers of generated code (srcad/build/running.py's
`run_again`, in srcad/build/plans.py too) then call `run_recording_shapes`: the code generated with
`shapes_recorded=True` (no such assumption: the shapes are recorded and the adjoints remade in
them), compiled once per compiled function on the first such call, runs on the same arguments.
Where that is not sound, a function that writes into its arguments (the failed run may have
written them already), the LoopShapeError reaches the user's call: it names the array, its line
and both shapes.
"""

from __future__ import annotations

from srcad.build.checkpoint_fallback import Fallback
from srcad.errors import LoopShapeError

__all__ = ["LoopShapeError", "shape_change_fallback"]


def shape_change_fallback(function, parsed, request, tapes, written):
    """`function` (the reverse code of `parsed` for `request`, taking and returning `tapes`),
    knowing the code to run when it raises LoopShapeError; `written`: positions of the
    arguments whose elements it writes (then nothing runs again)."""
    if not written:
        function.srcad_shapes_changed = Fallback(parsed, request, tapes, shapes_recorded=True)
    return function
