"""The statistics reductions numba lacks along axes, as loop nests made for one call's axes
(numba has np.prod, np.var, np.nanmax, ... of a whole array only, without ddof or keepdims):
`np.prod`, `np.var` and `np.std` (`ddof=`, an int), `np.ptp`, `np.nansum`, `np.nanmean`,
`np.nanmax`, `np.nanmin`, with `axis=` (an int or a tuple) and `keepdims=`.
srcad/runtime/numba_arrays.py `reducer` makes each `reduce_<kind>_<axes>[_keep]` from the
source `statistic_source` gives; srcad/transform/numba_statistics.py spells the calls so.

NumPy's values: a variance divides by max(n - ddof, 0) (inf or NaN past it); an all-NaN slice
of nanmax, nanmin or nanmean is NaN; an empty product is 1; max, min and ptp propagate NaN.
Sums run in order, not NumPy's pairwise order: within a few ulps of NumPy's.
"""

from __future__ import annotations

import math
import re

import numpy as np
from numba.extending import register_jitable

# kind -> (accumulators: name and start value, statement per element `v`, result of the
# accumulators at `o`); `ddof` of var and std in the kind's name: var0, std1, ...
_KINDS = {
    "prod": ((("p", "1.0"),), "p[o] *= v", "p[o]"),
    "nansum": ((("s", "0.0"),), "if v == v:\n    s[o] += v", "s[o]"),
    "nanmean": ((("s", "0.0"), ("n", "0.0")), "if v == v:\n    s[o] += v\n    n[o] += 1.0",
                "divided(s[o], n[o])"),
    "nanmax": ((("m", "-np.inf"), ("n", "0.0")), "if v == v:\n    n[o] += 1.0\n"
               "    if v > m[o]:\n        m[o] = v", "m[o] if n[o] > 0.0 else np.nan"),
    "nanmin": ((("m", "np.inf"), ("n", "0.0")), "if v == v:\n    n[o] += 1.0\n"
               "    if v < m[o]:\n        m[o] = v", "m[o] if n[o] > 0.0 else np.nan"),
    "ptp": ((("hi", "-np.inf"), ("lo", "np.inf")),
            "if v > hi[o] or v != v:\n    hi[o] = v\nif v < lo[o] or v != v:\n    lo[o] = v",
            "hi[o] - lo[o]"),
}
_VARIANCE = re.compile(r"(var|std)(\d+)$")


@register_jitable
def divided(total, count):
    """total / count, NumPy's float division (inf or NaN at a zero count, no exception)."""
    if count == 0.0:
        return np.nan if total == 0.0 or total != total else math.copysign(np.inf, total)
    return total / count


def statistic_source(kind: str, axes, keepdims: bool, rank: int) -> str:
    """The source of `impl(x)`: np.<kind>(x, axis=axes, keepdims=keepdims) of an array of
    `rank` axes (axes None, an int or a tuple)."""
    reduced = tuple(range(rank)) if axes is None else tuple(
        a % rank for a in (axes if isinstance(axes, tuple) else (axes,)))
    dims = [("1" if a in reduced else f"x.shape[{a}]") for a in range(rank)]
    o = "(" + "".join(("0, " if a in reduced else f"i{a}, ") for a in range(rank)) + ")"
    count = " * ".join(f"x.shape[{a}]" for a in reduced) or "1"
    lines = ["def impl(x):", f"    count = float({count})"]

    def sweep(statement):  # a loop nest over x, `statement` of its element v at o
        pad = "    "
        for a in range(rank):
            lines.append(f"{pad}for i{a} in range(x.shape[{a}]):")
            pad += "    "
        lines.append(f"{pad}v = x[{', '.join(f'i{a}' for a in range(rank))}]")
        lines.append(f"{pad}o = {o}")
        lines.extend(pad + line for line in statement.split("\n"))

    shape = f"({', '.join(dims)},)"
    variance = _VARIANCE.match(kind)
    if variance:
        ddof = int(variance.group(2))
        lines += [f"    s = np.zeros({shape})", f"    q = np.zeros({shape})"]
        sweep("s[o] += v")
        lines.append("    s = s / count")
        sweep("q[o] += (v - s[o]) * (v - s[o])")
        value = f"divided(q[o], max(count - {ddof}, 0.0))"
        value = f"np.sqrt({value})" if variance.group(1) == "std" else value
    else:
        accumulators, statement, value = _KINDS[kind]
        lines += [f"    {name} = np.full({shape}, {start})" for name, start in accumulators]
        sweep(statement)
    lines.append(f"    out = np.empty({shape})")
    pad = "    "
    for a in range(rank):
        lines.append(f"{pad}for i{a} in range(out.shape[{a}]):")
        pad += "    "
    lines += [f"{pad}o = {o}", f"{pad}out[o] = {value}"]
    if keepdims:
        lines.append("    return out")
    elif len(reduced) == rank:
        lines.append(f"    return out[{', '.join('0' for _ in range(rank))}]")
    else:
        kept = ", ".join(f"x.shape[{a}]" for a in range(rank) if a not in reduced)
        lines.append(f"    return out.reshape(({kept},))")
    return "\n".join(lines)


def statistic_function(kind: str, axes, keepdims: bool, rank: int):
    """The Python function of `statistic_source` (numba compiles it)."""
    namespace = {"np": np, "math": math, "divided": divided}
    exec(statistic_source(kind, axes, keepdims, rank), namespace)
    return namespace["impl"]
