"""A nested gradient taken in a loop of numba code, written into the array its result's name
already owns instead of a new one.

A descent takes the gradient once per accepted step (`gx = srcad.grad(f)(x_new, p)` in a
`while` loop); its kernel (srcad/operators/nested_kernels.py) returns a new array each time,
~50 ns of allocating and freeing on a step of a few hundred. Where `gx` owns its array (every
value bound to it is a new array and no read lets the array reach another holder:
srcad/transform/numba_array_reuse.py), the call becomes the kernel's `_into` variant, which
writes the gradient into `gx`'s array when it has the gradient's shape:

    gx = srcad_nested_gradient_1(x_new, p)
    ->  gx = srcad_nested_gradient_1_into(x_new, p, gx)

Guarantees: only statements inside loops are rewritten, and only where the kernel's operands do
not read the name (the kernel zeroes `out` before reading them). A name the rewritten call may
be the first to bind is bound to empty zeros of its rank at the top of the function (they
have the wrong shape: the first call allocates).

>>> import gast
>>> from srcad.build.codegen import to_source
>>> tree = gast.parse("def f(x, p, n):\\n"
...                   "    g = srcad_nested_gradient_1(x, p)\\n"
...                   "    for i in range(n):\\n"
...                   "        x = x - 0.1 * g\\n"
...                   "        g = srcad_nested_gradient_1(x, p)\\n"
...                   "    return x[0]")
>>> into_results(tree, {"srcad_nested_gradient_1"}, {"g": 1, "x": 1})
{'srcad_nested_gradient_1'}
>>> print(to_source(tree).strip().splitlines()[-2].strip())
g = srcad_nested_gradient_1_into(x, p, g)
"""

from __future__ import annotations

import gast

from srcad.frontend import syntax as S
from srcad.transform.numba_array_reuse import bound_before, in_loops, initialize, owned_names

SUFFIX = "_into"


def into_results(tree, kernels: set, ranks: dict) -> set:
    """Rename (in place) the calls of the gradient `kernels` in loops of `tree`'s functions
    whose results' names own their arrays (module docstring); the kernels that need an
    `_into` variant. `ranks`: the array names' ranks."""
    renamed = set()
    for fn in [n for n in S.walk(tree) if isinstance(n, gast.FunctionDef)]:
        if any(isinstance(n, (gast.FunctionDef, gast.Lambda)) and n is not fn
               for n in S.walk(fn)):
            continue
        sites = [(stmt, top) for stmt, top in in_loops(fn) if _site(stmt, kernels, ranks)]
        if not sites:
            continue
        params = {a.id for a in fn.args.args if isinstance(a, gast.Name)}
        owned = owned_names(fn, {s.targets[0].id for s, _ in sites} - params, ranks)
        for stmt, top in sites:
            name = stmt.targets[0].id
            if name not in owned:
                continue
            renamed.add(stmt.value.func.id)
            stmt.value.func = S.name(stmt.value.func.id + SUFFIX)
            stmt.value.args.append(S.name(name))
            if not bound_before(fn, top, name):
                initialize(fn, name, ranks[name])
    return renamed


def _site(stmt, kernels, ranks) -> bool:
    """Is `stmt` `name = kernel(operands)`, name an array, the operands not reading it?"""
    if not (isinstance(stmt, gast.Assign) and len(stmt.targets) == 1
            and isinstance(stmt.targets[0], gast.Name) and stmt.targets[0].id in ranks):
        return False
    call = stmt.value
    return isinstance(call, gast.Call) and isinstance(call.func, gast.Name) \
        and call.func.id in kernels and not call.keywords \
        and stmt.targets[0].id not in {n.id for a in call.args for n in S.walk(a)
                                       if isinstance(n, gast.Name)}
