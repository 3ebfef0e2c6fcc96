"""NumPy's reductions along axes, as numba code calls them: `np.sum(x, axis=1, keepdims=True)`
becomes `reduce_sum_1_keep(x)`, a name the compiler reads back (`reduction_of`) and binds to a
loop nest made for that reduction (srcad/runtime/numba_arrays.py `reducer`). numba has np.sum
with an int axis only, and no keepdims.

>>> reduction_name("sum", 1, True), reduction_of("reduce_mean_0_m1")
('reduce_sum_1_keep', ('mean', (0, -1), False))
"""

from __future__ import annotations

import gast

from srcad.frontend import syntax as S
from srcad.transform.numba_statistics import is_statistic

REDUCTIONS = {"sum": "sum", "mean": "mean", "max": "max", "min": "min", "amax": "max",
               "amin": "min"}


def axis_reduction(node, module):
    """`reduce_sum_1_keep(x)` for `np.sum(x, axis=1, keepdims=True)`; `node` itself for a
    whole-array reduction (numba has those) or an axis that is not a literal."""
    f = node.func
    operand = node.args[0] if module and node.args else f.value
    rest = node.args[1:] if module else node.args
    if module and not node.args:
        return node
    keywords = {k.arg: k.value for k in node.keywords}
    axis = keywords.get("axis", rest[0] if rest else None)
    keepdims = keywords.get("keepdims", rest[1] if len(rest) > 1 else None)
    if axis is None and keepdims is None:
        return node
    try:
        axes = None if axis is None else gast.literal_eval(axis)
        keep = False if keepdims is None else bool(gast.literal_eval(keepdims))
    except ValueError:
        return node
    if axes is not None and not all(type(a) is int for a in (
            axes if isinstance(axes, tuple) else (axes,))):
        return node
    name = reduction_name(REDUCTIONS[f.attr], axes, keep)
    return gast.copy_location(S.call(name, operand), node)


def reduction_name(kind: str, axes, keepdims: bool) -> str:
    """`reduce_sum_1_keep`, `reduce_mean_0_2`, `reduce_max_all_keep`, `reduce_sum_m1`."""
    spelled = "all" if axes is None else "_".join(
        f"m{-a}" if a < 0 else str(a) for a in (axes if isinstance(axes, tuple) else (axes,)))
    return f"reduce_{kind}_{spelled}" + ("_keep" if keepdims else "")


def reduction_of(name: str):
    """(kind, axes, keepdims) of a `reduction_name`, or None for any other name."""
    parts = name.split("_")
    if len(parts) < 3 or parts[0] != "reduce" or (
            parts[1] not in REDUCTIONS.values() and not is_statistic(parts[1])):
        return None
    keep = parts[-1] == "keep"
    spelled = parts[2:-1] if keep else parts[2:]
    if spelled == ["all"]:
        return parts[1], None, keep
    try:
        axes = tuple(-int(a[1:]) if a.startswith("m") else int(a) for a in spelled)
    except ValueError:
        return None
    return parts[1], axes[0] if len(axes) == 1 else axes, keep
