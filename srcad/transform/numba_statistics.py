"""numba spellings of NumPy's statistics reductions along axes: `np.var(x, axis=0, ddof=1)`
becomes `reduce_var1_0(x)`, a loop nest made for that call (srcad/runtime/numba_statistics.py;
the compiler imports each such name it finds, as it does the sums of
srcad/transform/numba_compat.py). numba has these functions of a whole array only, without
ddof or keepdims; a call of a whole array with NumPy's defaults stays numba's own.

`np.prod`, `np.var`, `np.std`, `np.ptp`, `np.nansum`, `np.nanmean`, `np.nanmax`, `np.nanmin`,
and the methods `x.prod(...)`, `x.var(...)`, `x.std(...)`, with axis= (an int or a tuple of
ints) and keepdims= literal, and for var and std an int ddof= literal; any other form is left
as it is (numba refuses it by name where it is typed).
"""

from __future__ import annotations

import re

import gast

from srcad.frontend import syntax as S
from srcad.rules.numpy_entries import NUMBA_STATISTICS

_METHODS = ("prod", "var", "std")
_VARIANCE = re.compile(r"(var|std)(\d+)$")


def is_statistic(kind: str) -> bool:
    """Is `kind` one of these reductions (`var1`: np.var with ddof=1)?

    >>> is_statistic("std1"), is_statistic("sum")
    (True, False)
    """
    return kind in NUMBA_STATISTICS or bool(_VARIANCE.match(kind))


def statistic_call(node, module: bool, reduction_name):
    """`reduce_<kind>_<axes>[_keep](x)` for a call of one of these reductions (`module`: spelled
    `np.<name>(x, ...)`, else the method `x.<name>(...)`); `node` itself when numba has it or
    an argument is not a literal. `reduction_name(kind, axes, keepdims)` spells the name."""
    name = node.func.attr
    if name not in NUMBA_STATISTICS or not module and name not in _METHODS:
        return node
    operand = node.args[0] if module and node.args else node.func.value
    rest = node.args[1:] if module else node.args
    if module and not node.args:
        return node
    given = dict(zip(NUMBA_STATISTICS[name], rest))
    given.update({k.arg: k.value for k in node.keywords})
    try:
        values = {k: gast.literal_eval(v) for k, v in given.items()}
    except ValueError:
        return node
    axes, keep = values.pop("axis", None), bool(values.pop("keepdims", False))
    ddof = values.pop("ddof", 0)
    if any(v is not None for v in values.values()) or type(ddof) is not int or ddof < 0:
        return node  # dtype=, out=, ...: not followed here
    if axes is not None and not all(type(a) is int for a in (
            axes if isinstance(axes, tuple) else (axes,))):
        return node
    if axes is None and not keep and ddof == 0:
        return node  # numba's own
    kind = f"{name}{ddof}" if name in ("var", "std") else name
    return gast.copy_location(S.call(reduction_name(kind, axes, keep), operand), node)
