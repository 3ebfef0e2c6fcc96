"""Numba backend, in the code numba compiles (not the source `srcad.source` shows): an
accumulation into a name, `t += unshared(t, v)` (srcad/transform/numba_compat.py's spelling of
`t += v`) and `t += e` of a new value `e`, becomes `t = added_into(t, v)`
(srcad/runtime/numba_semantics.py): where `t` is a float64 array, one loop nest of its own
adds `v` into it, where numba's `+=` walked both arrays through its broadcasting machinery
(an adjoint's every later contribution is such a `+=`: in the vectorized GradBench gmm, eight
of them over arrays of 250,000 elements); anything else computes what `t += v` did. Only
outside loops: inside one, the call's rebinding costs more than numba's `+=` of a short array.

    x_bar += unshared(x_bar, g)        ->  x_bar = added_into(x_bar, g)
    x_bar[i] += unshared(x_bar[i], g)  ->  unchanged (only a name is rebound)

A product added, `t += unshared(t, array_matmul(a, b))`, becomes
`t = matmul_added_into(t, a, b)`: for float64 matrices one BLAS call adds the product into
`t` itself (dgemm's beta = 1), where it made the product, then added it (a weight matrix's
adjoint `W_bar += X.T @ d_hidden`).

The rebinding is the same object for an array (added into in place), the sum for a number.
Runs last, after every rewrite that reads `t += unshared(t, v)` (first adjoints, exp sums,
the nested kernels' own passes over `srcad.source`).
"""

from __future__ import annotations

import gast

from srcad.frontend import syntax as S


def added_in_place(tree):
    """`tree` with each `name += v` outside loops rewritten as the module docstring says (in
    place)."""
    for node in S.walk(tree):
        if isinstance(node, gast.FunctionDef):
            node.body = _outside_loops(node.body)
    return tree


def _outside_loops(block: list) -> list:
    """A loop's own `+=` stay numba's: the call and the rebinding cost tens of nanoseconds
    per run (reference counts of the array rebound), more than numba's `+=` of an array of a
    few elements, the arrays of code that loops over small vectors (a nested gradient's
    steps); statements outside loops run once per call, where whole arrays are added."""
    out = []
    for stmt in block:
        if isinstance(stmt, gast.If):
            stmt.body, stmt.orelse = _outside_loops(stmt.body), _outside_loops(stmt.orelse)
        elif isinstance(stmt, (gast.With, gast.Try)):
            stmt.body = _outside_loops(stmt.body)
        out.append(_rewritten(stmt))
    return out


def _rewritten(stmt):
    if not (isinstance(stmt, gast.AugAssign) and isinstance(stmt.op, gast.Add)
            and isinstance(stmt.target, gast.Name)):
        return stmt
    value = stmt.value
    if isinstance(value, gast.Call) and isinstance(value.func, gast.Name) \
            and value.func.id == "unshared" and len(value.args) == 2 \
            and isinstance(value.args[0], gast.Name) and value.args[0].id == stmt.target.id:
        value = value.args[1]
    name = stmt.target.id
    if isinstance(value, gast.Call) and isinstance(value.func, gast.Name) \
            and value.func.id == "array_matmul" and len(value.args) == 2 \
            and not value.keywords:
        call = S.call("matmul_added_into", S.name(name), *value.args)
    else:
        call = S.call("added_into", S.name(name), value)
    return gast.copy_location(gast.Assign(targets=[S.name(name, store=True)], value=call,
                                          type_comment=None), stmt)
