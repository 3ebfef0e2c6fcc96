"""Numba backend: a nested kernel made for its operands' lengths returns tuples of numbers
where its caller reads the elements of its arrays alone.

A kernel made for lengths (srcad/operators/nested_number_kernels.py) computes g's gradient
and its tangents as numbers, then fills new arrays with them for its caller: each call
allocates them (one or two small arrays, ~20-50 ns each in numba, as long as the rest of a
short kernel). Where the outer code holds those arrays as numbers (srcad/transform/
small_arrays.py), it only reads their elements: `r = kernel(...)` then `r[0]`, `r[1]` (an
array), or `pair[0][1]` (a gradient and its tangent). Such a call calls the kernel's
variant returning tuples, `((g_0, g_1), (t_0, t_1))`, which numba keeps in registers:

    srcad_pair_1 = k_len_2_2_2_2(...)           srcad_pair_1 = k_len_2_2_2_2_numbers(...)
    gx_0 = srcad_pair_1[0][0]             ->    gx_0 = srcad_pair_1[0][0]

What a call must satisfy: its result is bound to a name bound nowhere else (or only to calls
of the same kernel), and every read of the name is `name[i]` with a constant i, followed by
`[k]` with a constant k where result i is an array.

>>> tree = gast.parse('''
... def f(x):
...     r = srcad_nested_gradient_1_len_2_2(srcad_space, srcad_int_space, x, x)
...     return r[0] + r[1]
... ''')
>>> tuple_results(tree, lambda name: (name + "_numbers", "all"))
>>> tree.body[0].body[0].value.func.id
'srcad_nested_gradient_1_len_2_2_numbers'
"""

from __future__ import annotations

import gast

from srcad.transform.small_array_kernels import kernel_kind


def tuple_results(tree, as_tuples) -> None:
    """Rename, in every function of `tree`, the calls of kernels made for lengths whose
    results are read element by element to their variants returning tuples; `as_tuples(name)`
    gives (the variant's name, "all" or the positions of its array results), or None."""
    for fn in [n for n in gast.walk(tree) if isinstance(n, gast.FunctionDef)]:
        _rename(fn, as_tuples)


def _rename(fn, as_tuples) -> None:
    parents = {}
    for node in gast.walk(fn):
        for child in gast.iter_child_nodes(node):
            parents[child] = node
    bound: dict = {}  # name -> the calls of kernels made for lengths it is bound to
    stores: dict = {}  # name -> how many times it is bound
    for node in gast.walk(fn):
        if isinstance(node, gast.Name) and not isinstance(node.ctx, gast.Load):
            stores[node.id] = stores.get(node.id, 0) + 1
        if isinstance(node, gast.Assign) and len(node.targets) == 1 \
                and isinstance(node.targets[0], gast.Name) \
                and isinstance(node.value, gast.Call) and isinstance(node.value.func, gast.Name) \
                and "_len_" in node.value.func.id and kernel_kind(node.value):
            bound.setdefault(node.targets[0].id, []).append(node.value)
    for name, calls in bound.items():
        kernels = {c.func.id for c in calls}
        if stores.get(name) != len(calls) or len(kernels) != 1:
            continue
        made = as_tuples(kernels.pop())
        if made is None:
            continue
        variant, arrays = made
        reads = [n for n in gast.walk(fn) if isinstance(n, gast.Name) and n.id == name
                 and isinstance(n.ctx, gast.Load)]
        if all(_element_read(n, parents, arrays) for n in reads):
            for call in calls:
                call.func.id = variant


def _element_read(node, parents, arrays) -> bool:
    """`name[i]` (a number result, or an element of the one array: `arrays` "all") or
    `name[i][k]` (an element of array result i), with constant indices, read."""
    first = _constant_index(node, parents)
    if first is None:
        return False
    if arrays == "all" or first not in arrays:
        return True
    return _constant_index(parents[node], parents) is not None


def _constant_index(node, parents):
    """k where `node` is indexed as `node[k]` (an int constant, read), else None."""
    parent = parents.get(node)
    if isinstance(parent, gast.Subscript) and parent.value is node \
            and isinstance(parent.ctx, gast.Load) and isinstance(parent.slice, gast.Constant) \
            and type(parent.slice.value) is int:
        return parent.slice.value
    return None
