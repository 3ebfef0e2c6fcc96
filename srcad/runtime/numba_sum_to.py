"""`sum_to(g, shape)`, the adjoint of broadcasting in numba-compiled generated code (what
`unbroadcast` does where the shapes differ; srcad/runtime/numba_arrays.py), and the loop-nest
source pieces it shares with the fused kernels (srcad/runtime/numba_fusion.py).

`g` summed over the axes broadcasting added or stretched to reach `shape`: one loop nest made,
when numba types the call, for the ranks of `g` and `shape` (each element of `g` added once
into its place), where a loop over `np.ndindex` computed every element's place from a table of
steps (a 4-D adjoint of 2.5 million elements: 33 ms, against 2 ms for the product that made it).
"""

from __future__ import annotations

import numpy as np
from numba import types
from numba.extending import overload

from srcad.runtime.array_runtime import unbroadcast as _python_unbroadcast


def sum_to(g, shape):
    return _python_unbroadcast(g, shape)


@overload(sum_to)
def _sum_to(g, shape):
    if not isinstance(g, types.Array) or not isinstance(shape, types.BaseTuple):
        return None
    lines = ["def impl(g, shape):"]
    if g.ndim < len(shape):
        lines.append("    raise ValueError('unbroadcast: an adjoint narrower than its operand')")
    else:
        lines += sum_to_prologue(g.ndim, len(shape), "g.shape")
        lines += loops(g.ndim, "g.shape")
        index = ", ".join(f"i{k}" for k in range(g.ndim))
        lines.append(f"{pad(g.ndim + 1)}out[{target_index(g.ndim, len(shape))}] += g[{index}]")
        lines.append("    return out")
    return compiled(lines)


def sum_to_prologue(rank, target_rank, shape_of, out="np.zeros(shape)"):
    """`out`, zeros of `shape` (or the array `out` spells, added into), and `m<k>`: 1 where
    axis k of the target is kept, 0 where broadcasting stretched it (its index is then 0)."""
    lead = rank - target_rank
    lines = [f"    out = {out}"]
    for k in range(target_rank):
        lines += [f"    if shape[{k}] != 1 and shape[{k}] != {shape_of}[{lead + k}]:",
                  "        raise ValueError('unbroadcast: shapes do not broadcast')",
                  f"    m{k} = 0 if shape[{k}] == 1 else 1"]
    return lines


def target_index(rank, target_rank):
    """The index into `out` of the element at `i0, i1, ...` of the broadcast shape."""
    lead = rank - target_rank
    return ", ".join(f"i{lead + k} * m{k}" for k in range(target_rank)) or "()"


def loops(rank, shape_of):
    """`for i<k> in range(<shape_of>[k]):`, nested, one per axis."""
    return [f"{pad(k + 1)}for i{k} in range({shape_of}[{k}]):" for k in range(rank)]


def pad(depth):
    return "    " * depth


def compiled(lines, namespace=None):
    """The function `impl` that `lines` define (run with `np` and `namespace` in scope)."""
    scope = {"np": np, **(namespace or {})}
    exec("\n".join(lines), scope)
    return scope["impl"]
