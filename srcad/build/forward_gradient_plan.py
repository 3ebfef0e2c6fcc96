"""The whole call of a prepared forward-mode gradient, in one generated Python frame.

A forward gradient of f at an array x of n elements runs f's vector-mode code once when its
lanes cover x (unrolled lanes, width >= n): lane k seeded with e_k, its output tangent the
gradient's element k. The checked path (operators/gradient_operators.py) seeds the lanes,
runs the engine and copies each lane's tangent into a buffer, about 10 us of Python per call;
nested in an outer loop (a solver calling the gradient at each step), that is more than the
compiled code's own time. `forward_gradient_entry` writes the call as one function, as
srcad/build/plans.py does for the reverse gradient: match the arguments, call the code on
lanes seeded once (the code writes x's tangent lanes only when f writes x, and then this
entry is not made), return the tangents as the gradient.
"""

from __future__ import annotations

import numpy as np

from srcad.build.numba_errors import raise_numba_error
from srcad.build.plans import CONST, _current, _define, _match, engine_call_lines
from srcad.build.running import RUN_AGAIN, run_again


def forward_gradient_entry(args, wrapped, engine, buffer, written=()):
    """(source, function) of `run(args, out)`, (value, gradient) of a prepared forward
    gradient whose arguments look like the preparation's `args` (shapes too), `out` is None
    and the code is current; else MISS. None where the preparation is not of that kind: x
    not a float64 array (`buffer` shaped like it), lanes stacked or fewer than x's elements,
    f writing x, or an Output, Cache or accumulator among the arguments."""
    n = 0 if buffer is None else buffer.size
    roles = {slot.role for slot in engine.slots}
    if buffer is None or buffer.dtype != np.float64 or not 0 < n <= engine.width \
            or engine.stacked or engine.x_float_index or engine.input_copy is not None \
            or engine.zeroed or roles - {"x", "constant"} \
            or getattr(engine.output_restore, "indices", None):
        return None
    engine.seed_basis(0, n)  # lane k holds e_k from now on: the code never writes them
    env = {"function": engine.function, "F": engine.flat, "array": np.array,
           "raise_numba_error": raise_numba_error, "RUN_AGAIN": RUN_AGAIN,
           "run_again": run_again}
    lines, values = _match(args, [CONST] * len(args), wrapped, True, env, "MISS", written)
    lines += _current(engine.compiled, env)
    lines += ["    if out is not None:", "        return MISS"]
    flat, tapes = [], len(engine.flat) - engine.work_count
    for p in range(len(engine.flat)):
        if p in engine.value_index:
            flat.append(values[engine.value_index.index(p)])
        else:  # x's lanes (seeded) and the workspace (a call may grow it)
            flat.append(f"F[{p}]")
    lines += engine_call_lines(", ".join(flat), tapes, len(engine.flat))
    tangents = "out_[1]" if n == engine.width else f"out_[1][:{n}]"
    shape = "" if buffer.ndim == 1 else f".reshape({buffer.shape!r})"
    lines.append(f"    return out_[0], array({tangents}, dtype=float){shape}")
    return _define("run", "args, out", lines, env)
