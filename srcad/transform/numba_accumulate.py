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
adjoint `W_bar += X.T @ d_hidden`). An unbroadcast of a fused chain added,
`t += unshared(t, fused_unbroadcast(a, b, shape))` (srcad/transform/numba_fusion.py's kernel
of `unbroadcast(a * b, shape)`), becomes `t = fused_unbroadcast_into(a, b, shape, t)`: the same
chain, its loop nest or its matrix products adding into `t` itself
(srcad/runtime/numba_fusion.py's "unbroadcast_into"), where the sum was made, then added
(gmm's adjoint of its centered points, 2 MB a call).

The rebinding is the same object for an array (added into in place), the sum for a number.
Runs last, after every rewrite that reads `t += unshared(t, v)` (first adjoints, exp sums,
the nested kernels' own passes over `srcad.source`).
"""

from __future__ import annotations

import gast

from srcad.frontend import syntax as S
from srcad.transform.numba_fusion import FusedLoop


def added_in_place(tree, fused=None):
    """`tree` with each `name += v` outside loops rewritten as the module docstring says (in
    place); `fused` ({name: FusedLoop} of the fused calls, which the compiler defines) gets
    the kernels adding into a name."""
    taken = {n.id for n in S.walk(tree) if isinstance(n, gast.Name)}
    into = _Into({} if fused is None else fused, taken)
    for node in S.walk(tree):
        if isinstance(node, gast.FunctionDef):
            node.body = _outside_loops(node.body, into)
    return tree


class _Into:
    """The name of the kernel adding an unbroadcast fused loop into its last argument, made
    once per fused loop (and added to `fused`)."""

    def __init__(self, fused, taken):
        self.fused, self.taken, self.made = fused, taken, {}

    def __call__(self, name):
        loop = FusedLoop.of(self.fused.get(name))
        if loop is None or loop.reduction != ("unbroadcast",):
            return None
        if name not in self.made:
            into, k = f"{name}_into", 1
            while into in self.taken or into in self.fused:
                into, k = f"{name}_into_{k}", k + 1
            self.fused[into] = FusedLoop(loop.expression, ("unbroadcast_into",), loop.arity)
            self.made[name] = into
        return self.made[name]


def _outside_loops(block: list, into) -> list:
    """A loop's own `+=` stay numba's: the call and the rebinding cost tens of nanoseconds
    per run (reference counts of the array rebound), more than numba's `+=` of an array of a
    few elements, the arrays of code that loops over small vectors (a nested gradient's
    steps); statements outside loops run once per call, where whole arrays are added."""
    out = []
    for stmt in block:
        if isinstance(stmt, gast.If):
            stmt.body, stmt.orelse = (_outside_loops(stmt.body, into),
                                      _outside_loops(stmt.orelse, into))
        elif isinstance(stmt, (gast.With, gast.Try)):
            stmt.body = _outside_loops(stmt.body, into)
        out.append(_rewritten(stmt, into))
    return out


def _rewritten(stmt, into):
    if not (isinstance(stmt, gast.AugAssign) and isinstance(stmt.op, gast.Add)
            and isinstance(stmt.target, gast.Name)):
        return stmt
    value = stmt.value
    if isinstance(value, gast.Call) and isinstance(value.func, gast.Name) \
            and value.func.id == "unshared" and len(value.args) == 2 \
            and isinstance(value.args[0], gast.Name) and value.args[0].id == stmt.target.id:
        value = value.args[1]
    name = stmt.target.id
    called = value.func.id if isinstance(value, gast.Call) and isinstance(
        value.func, gast.Name) and not value.keywords else None
    if called == "array_matmul" and len(value.args) == 2:
        call = S.call("matmul_added_into", S.name(name), *value.args)
    elif called and into(called):
        call = S.call(into(called), *value.args, S.name(name))
    else:
        call = S.call("added_into", S.name(name), value)
    return gast.copy_location(gast.Assign(targets=[S.name(name, store=True)], value=call,
                                          type_comment=None), stmt)
