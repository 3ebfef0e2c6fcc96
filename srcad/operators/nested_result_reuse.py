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

The gradient-and-tangent kernel of the outer forward mode returns a pair, read at once into two
names (`P = kernel(...)`, `gx = P[0]`, `gx_dot = P[1]`): where both names own their arrays,
its `_into` variant writes into both (`P = kernel_into(..., gx, gx_dot)`).

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
from srcad.transform.small_array_lengths import kernel_kind

SUFFIX = "_into"


def into_results(tree, kernels: set, ranks: dict) -> set:
    """Rename (in place) the calls of the gradient `kernels` (and gradient-and-tangent pair
    kernels) in loops of `tree`'s functions whose results' names own their arrays (module
    docstring); the kernels that need an `_into` variant. `ranks`: the array names' ranks."""
    renamed = set()
    for fn in [n for n in S.walk(tree) if isinstance(n, gast.FunctionDef)]:
        if any(isinstance(n, (gast.FunctionDef, gast.Lambda)) and n is not fn
               for n in S.walk(fn)):
            continue
        pairs = _pair_reads(fn, kernels)
        sites = [(stmt, top, _results(stmt, kernels, ranks, pairs)) for stmt, top in in_loops(fn)]
        sites = [site for site in sites if site[2]]
        if not sites:
            continue
        # a pair's entries both have the shape of the kernel's first operand (`gx_dot`, a
        # tangent, is not among the primal's types)
        ranks = dict(ranks)
        for _, _, names in sites:
            ranks.setdefault(names[-1], ranks[names[0]])
        params = {a.id for a in fn.args.args if isinstance(a, gast.Name)}
        fresh = {id(read) for reads in pairs.values() for read in reads}
        owned = owned_names(fn, {n for _, _, names in sites for n in names} - params, ranks,
                            fresh=fresh)
        for stmt, top, names in sites:
            if not set(names) <= owned:
                continue
            renamed.add(stmt.value.func.id)
            stmt.value.func = S.name(stmt.value.func.id + SUFFIX)
            stmt.value.args += [S.name(name) for name in names]
            for name in names:
                if not bound_before(fn, top, name):
                    initialize(fn, name, ranks[name])
    return renamed


def _pair_reads(fn, kernels) -> dict:
    """{P: [the statements `a = P[0]`, `b = P[1]`]} for each name P bound once in `fn` to a
    pair kernel's call and read only by the two statements right after it, which bind two
    other names to its entries."""
    loads: dict = {}
    for node in S.walk(fn):
        if isinstance(node, gast.Name):
            loads.setdefault(node.id, []).append(node)
    found = {}
    for block in _blocks(fn):
        for k, stmt in enumerate(block[:-2]):
            if not (isinstance(stmt, gast.Assign) and len(stmt.targets) == 1
                    and isinstance(stmt.targets[0], gast.Name)
                    and kernel_kind(stmt.value) == "pair" and stmt.value.func.id in kernels):
                continue
            pair = stmt.targets[0].id
            reads = block[k + 1:k + 3]
            if all(_entry(read, pair, j) for j, read in enumerate(reads)) \
                    and reads[0].targets[0].id != reads[1].targets[0].id \
                    and len(loads[pair]) == 3:  # its binding and the two reads
                found[pair] = reads
    return found


def _blocks(fn):
    for node in S.walk(fn):
        for field in ("body", "orelse"):
            block = getattr(node, field, None)
            if isinstance(block, list) and block and isinstance(block[0], gast.stmt):
                yield block


def _entry(stmt, pair, j) -> bool:
    """Is `stmt` `name = pair[j]`?"""
    return isinstance(stmt, gast.Assign) and len(stmt.targets) == 1 \
        and isinstance(stmt.targets[0], gast.Name) and isinstance(stmt.value, gast.Subscript) \
        and isinstance(stmt.value.value, gast.Name) and stmt.value.value.id == pair \
        and isinstance(stmt.value.slice, gast.Constant) and stmt.value.slice.value == j


def _results(stmt, kernels, ranks, pairs) -> list:
    """The names a kernel call in `stmt` may write into: [name] for `name = kernel(...)`,
    [a, b] for a pair's `P = kernel(...)` read as `a = P[0]`, `b = P[1]`; [] otherwise (or
    where an operand reads one of them)."""
    if not (isinstance(stmt, gast.Assign) and len(stmt.targets) == 1
            and isinstance(stmt.targets[0], gast.Name)):
        return []
    call = stmt.value
    if not (isinstance(call, gast.Call) and isinstance(call.func, gast.Name)
            and call.func.id in kernels and not call.keywords):
        return []
    target = stmt.targets[0].id
    names = [read.targets[0].id for read in pairs[target]] if target in pairs else \
        [] if kernel_kind(call) == "pair" else [target]
    read = {n.id for a in call.args for n in S.walk(a) if isinstance(n, gast.Name)}
    if not names or names[0] not in ranks or read & set(names):
        return []
    return names
