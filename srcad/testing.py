"""Check derivatives the way users should trust them: against central finite differences in
random directions (and, once forward mode exists, forward against reverse).

>>> import math
>>> def f(x, y):
...     return math.sin(x) * y
>>> check_grads(f, Active(0.3), Active(2.0))
"""

from __future__ import annotations

import copy

import numpy as np

from srcad.annotations import Active, Annotation, Duplicated, Reverse
from srcad.api import autodiff


def _unwrap(arg):
    return arg.value if isinstance(arg, Annotation) else arg


def _call(f, values):
    """Run the primal on copies; return (scalar output, {position: output array})."""
    values = [copy.deepcopy(v) for v in values]
    out = f(*values)
    return out, values


def check_grads(f, *args, rtol=1e-6, atol=1e-8, eps=1e-6, seed=0, directions=3):
    """Check reverse-mode derivatives of `f` at `args` against central finite differences.

    Active scalars and Duplicated arrays are the inputs; the outputs are the float return
    value (if any) and the final contents of the Duplicated arrays. For random input direction
    v and output weights u, checks <u, J v> (finite differences) == <J^T u, v> (reverse mode).
    Raises AssertionError with the two numbers on mismatch.
    """
    rng = np.random.default_rng(seed)
    values = [_unwrap(a) for a in args]
    positions = [i for i, a in enumerate(args) if isinstance(a, (Active, Duplicated))]
    if not positions:
        raise ValueError("check_grads needs at least one Active or Duplicated argument")
    dup = [i for i in positions if isinstance(args[i], Duplicated)]
    out0, arrays0 = _call(f, values)
    scalar_out = isinstance(out0, (float, np.floating))
    for _ in range(directions):
        direction = {i: (rng.standard_normal(np.shape(values[i])) if i in dup
                         else float(rng.standard_normal())) for i in positions}
        weights = {i: rng.standard_normal(np.shape(values[i])) for i in dup}
        out_weight = float(rng.standard_normal()) if scalar_out else 0.0

        def probe(step, direction=direction, weights=weights, out_weight=out_weight):
            moved = list(values)
            for i in positions:
                moved[i] = values[i] + step * direction[i]
            out, arrays = _call(f, moved)
            total = out_weight * float(out) if scalar_out else 0.0
            for i in dup:
                total += float(np.sum(weights[i] * arrays[i]))
            return total

        fd = (probe(eps) - probe(-eps)) / (2 * eps)

        call_args = []
        shadows = {}
        for i, a in enumerate(args):
            v = copy.deepcopy(values[i])
            if isinstance(a, Duplicated):
                shadows[i] = np.array(weights[i], dtype=float)
                call_args.append(Duplicated(v, shadows[i]))
            elif isinstance(a, Active):
                call_args.append(Active(v))
            else:
                call_args.append(v)
        derivs = autodiff(Reverse, f, *call_args, seed=out_weight if scalar_out else None)
        rev = 0.0
        for i in positions:
            grad = shadows[i] if i in dup else derivs[i]
            rev += float(np.sum(grad * direction[i]))
        scale = max(abs(fd), abs(rev), 1.0)
        if not abs(fd - rev) <= atol + rtol * scale:
            raise AssertionError(f"reverse mode disagrees with finite differences: "
                                 f"<J^T u, v> = {rev!r}, finite differences {fd!r}")
