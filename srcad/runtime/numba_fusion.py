"""`fused_kernel(expression, reduction, arity)`: one loop nest that numba-compiled generated
code calls in place of a reduction of a chain of elementwise NumPy operations
(srcad/transform/numba_fusion.py writes the calls; imported by the generated modules, never by
srcad itself).

The kernel takes the leaves `a0, a1, ...` of an elementwise `expression` (arithmetic and
NumPy's elementwise functions of arrays and numbers, broadcast as NumPy does) and computes
`reduction` of it without the temporary array NumPy makes for each operation:
`("sum", axes, keepdims)` (also "mean", "max", "min") is
`np.sum(expression, axis=axes, keepdims=keepdims)`; `("unbroadcast",)` is
`unbroadcast(expression, shape)`, `shape` an extra last argument; `("unbroadcast_into",)`
is `t += unbroadcast(expression, shape)` returning `t`, `shape` and `t` extra last arguments
(srcad/transform/numba_accumulate.py writes it for an adjoint added into a name): the loop
nest, or the matrix products, add into `t` itself, where `t` has that shape and meets no
leaf in memory (else the sum made, then added); `("map",)` is the
expression itself, a new array of the broadcast shape written in one loop nest.

It is a plain Python function (the reference, run by the interpreter) with a numba `overload`
that makes the loop nest's source for the argument types: each operand read through
`broadcast_view` (srcad/runtime/numba_broadcast.py: np.broadcast_to's view; a row or a column
broadcast against a matrix costs no copy), the expression computed per element: an operation
with an array operand as NumPy's ufunc computes it (`np.divide`: a division by zero is an
infinity), one of numbers alone as numba computes it in the unfused code (`1.0 / 0.0` raises
ZeroDivisionError there and here); `np.exp`, `np.log` and `np.tanh` as srcad's vectorizable
`simd_exp`, `simd_log` and `simd_tanh` (within 1 ulp each, as `array_exp`, `array_log` and
`array_tanh` outside a chain). A sum
of the product of two arrays that is a matrix product runs as BLAS products first
(srcad/runtime/numba_contraction.py). Where the leaves are not float64 arrays and numbers, or no
leaf is an array, the overload is the unfused expression as numba compiles it today.
"""

from __future__ import annotations

import ast
import functools

import numpy as np
from numba import types
from numba.extending import overload, register_jitable

from srcad.runtime.array_runtime import unbroadcast as _python_unbroadcast
from srcad.runtime.numba_arrays import _START, _STEP, reducer, unbroadcast
from srcad.runtime.numba_broadcast import VIEW, shape_lines
from srcad.runtime.numba_contraction import contract_function, contraction_lines
from srcad.runtime.numba_fusion_elements import Element
from srcad.runtime.numba_runtime import simd_exp, simd_log, simd_tanh
from srcad.runtime.numba_semantics import added_into, extent_lines
from srcad.runtime.numba_sum_to import compiled, loops, pad, sum_to_prologue, target_index

KINDS = frozenset(_START) | {"unbroadcast", "unbroadcast_into", "map"}
SHORT_ROW = 32  # a map's rows shorter than this: one plain loop nest (_map_nest)


@functools.lru_cache(maxsize=None)
def fused_kernel(expression: str, reduction: tuple, arity: int):
    """The function of `expression`'s `arity` leaves computing `reduction` of it: one function
    per (expression, reduction, arity) in the process, so the calls of the same kernel (in one
    generated module or in several) share one overload, which numba types and lowers once per
    argument types rather than once per call site.

    >>> f = fused_kernel("np.exp(a0 - a1)", ("sum", 1, False), 2)
    >>> f(np.zeros((2, 3)), np.zeros((2, 1))).tolist()
    [3.0, 3.0]
    """
    params = [f"a{k}" for k in range(arity)] + {"unbroadcast": ["shape"],
                                                 "unbroadcast_into": ["shape", "t"]}.get(
                                                     reduction[0], [])
    signature = ", ".join(params)
    unfused = _unfused_lines(expression, reduction, signature)
    reference = compiled(unfused, {"reduce": _python_reduction(reduction),
                                   "unbroadcast": _python_unbroadcast,
                                   "added_into": added_into})  # t += v, run by Python

    def kernel_types(*args):
        return _kernel(expression, reduction, arity, signature, unfused, args)

    typer = compiled([f"def impl({signature}):",
                      f"    return kernel_types({signature})"], {"kernel_types": kernel_types})
    overload(reference)(typer)
    reference.srcad_fused_loop = (expression, reduction, arity)  # code made from it again
    return reference


def _python_reduction(reduction):
    if reduction[0] in ("unbroadcast", "unbroadcast_into", "map"):
        return None
    kind, axes, keepdims = reduction
    return lambda x: getattr(np, kind)(x, axis=axes, keepdims=keepdims)


def _unfused_lines(expression, reduction, signature):
    if reduction[0] == "unbroadcast":
        return [f"def impl({signature}):", f"    return unbroadcast({expression}, shape)"]
    if reduction[0] == "unbroadcast_into":
        return [f"def impl({signature}):",
                f"    return added_into(t, unbroadcast({expression}, shape))"]
    if reduction[0] == "map":
        return [f"def impl({signature}):", f"    return {expression}"]
    return [f"def impl({signature}):", f"    return reduce({expression})"]


def _kernel(expression, reduction, arity, signature, unfused, args):
    """The implementation numba compiles for these argument types: the loop nest, or the
    unfused expression where the loop nest would not compute what NumPy computes."""
    leaves = args[:arity]
    arrays = [k for k, t in enumerate(leaves) if isinstance(t, types.Array)]
    fusable = arrays and all(
        leaves[k].dtype == types.float64 and leaves[k].ndim >= 1 for k in arrays) and all(
        isinstance(t, (types.Float, types.Integer, types.Boolean))
        for k, t in enumerate(leaves) if k not in arrays)
    lines = None
    if fusable:
        rank = max(leaves[k].ndim for k in arrays)
        tree = ast.parse(expression, mode="eval").body
        body = Element(set(arrays), rank).visit(tree)
        if body is not None and reduction[0] == "map":
            row = Element(set(arrays), rank, "r{k}[j]").visit(tree)
            lines = _map_nest(signature, arrays, rank, row, leaves, body)
        elif body is not None:
            lines = _loop_nest(signature, arrays, rank, body, reduction, args[arity:], leaves,
                               _is_product(tree, arrays))
    namespace = {"broadcast_view": VIEW, "simd_exp": simd_exp, "simd_log": simd_log,
                 "simd_tanh": simd_tanh}
    if lines is None:
        kind = reduction[0]
        if kind == "map":
            namespace = {}
        elif kind in ("unbroadcast", "unbroadcast_into"):
            namespace = {"unbroadcast": unbroadcast, "added_into": added_into}
        elif reduction[1:] == (None, False):  # np.sum(e): numba's own, as today's code
            namespace = {"reduce": getattr(np, kind)}
        else:
            namespace = {"reduce": reducer(kind, reduction[1], reduction[2])}
        return compiled(unfused, namespace)
    if lines is not None and any(f"contract_{rank}(" in line for line in lines):
        namespace[f"contract_{rank}"] = contract_function(rank)
    if reduction[0] == "unbroadcast_into":
        namespace["finish"] = _finish
    return compiled(lines, namespace)


def _is_product(tree, arrays) -> bool:
    """Is the expression `a<i> * a<j>` of two different array leaves (a candidate for
    srcad/runtime/numba_contraction.py)?"""
    return (isinstance(tree, ast.BinOp) and isinstance(tree.op, ast.Mult)
            and arrays == [0, 1] and all(isinstance(side, ast.Name)
                                         for side in (tree.left, tree.right))
            and {tree.left.id, tree.right.id} == {"a0", "a1"})


def _loop_nest(signature, arrays, rank, body, reduction, rest, leaves, product=False):
    lines = [f"def impl({signature}):"]
    if len(arrays) > 1:  # straight-line code for these ranks: no helper numba compiles apart
        lines += shape_lines([f"a{k}.shape" for k in arrays], [leaves[k].ndim for k in arrays],
                             "full")
        lines += [f"    b{k} = broadcast_view(a{k}, full)" for k in arrays]  # broadcasts
    else:
        lines += [f"    full = a{arrays[0]}.shape", f"    b{arrays[0]} = a{arrays[0]}"]
    kind = reduction[0]
    inner = pad(rank + 1)
    if kind in ("unbroadcast", "unbroadcast_into"):
        target = len(rest[0]) if isinstance(rest[0], types.BaseTuple) else None
        if target is None or target > rank:
            return None
        into = kind == "unbroadcast_into"
        if into and not (target > 0 and isinstance(rest[1], types.Array) and rest[1].mutable
                         and rest[1].ndim == target and rest[1].dtype == types.float64):
            return None
        if into:
            head = _into_guard(arrays, leaves, target)
            head += sum_to_prologue(rank, target, "full", out="np.zeros(shape) if apart else t")
            result = "finish(t, out, apart)"
            step = f"{inner}out[{target_index(rank, target)}] += v"
            if product and rank >= 2:  # BLAS adds the products into out (beta = 1)
                lead = rank - target
                head += [line.replace("return out", f"return {result}") for line in
                         contraction_lines(
                             rank, ["0"] * lead + [f"m{k}" for k in range(target)], "",
                             f"out[{', '.join(['None'] * lead + [':'] * target)}]")]
        elif target == 0:
            head, step, result = ["    acc = 0.0"], f"{inner}acc += v", "acc"
        else:
            head = _same_shape_lines(rank, body) if target == rank else []
            head += sum_to_prologue(rank, target, "full")
            step, result = f"{inner}out[{target_index(rank, target)}] += v", "out"
            lead = rank - target
            if product and rank >= 2:  # a matrix product where the strides say so
                head += contraction_lines(
                    rank, ["0"] * lead + [f"m{k}" for k in range(target)],
                    _tuple(["1"] * lead + [f"out.shape[{k}]" for k in range(target)]))
    else:
        axes, keepdims = reduction[1], reduction[2]
        reduced = _reduced_axes(axes, rank)
        if reduced is None:
            return None
        head, step, result = _reduction_parts(kind, reduced, keepdims, rank)
        if product and kind == "sum" and rank >= 2 and len(reduced) < rank:
            head += contraction_lines(
                rank, ["0" if a in reduced else "1" for a in range(rank)],
                _tuple(["1" if a in reduced else f"full[{a}]" for a in range(rank)]))
    whole = any(line.strip().startswith("acc = ") for line in head)  # to one number
    if kind in ("sum", "mean") and whole and "simd_" in body:
        # each row's values into a buffer first (a loop LLVM vectorizes: the exp or log is
        # most of the work), then added in order (the same order as one loop: a sum in order
        # is not vectorized)
        last = f"i{rank - 1}"
        lines += head + [f"    row = np.empty(full[{rank - 1}])"] + loops(rank - 1, "full") + [
            f"{pad(rank)}for {last} in range(full[{rank - 1}]):",
            f"{pad(rank + 1)}row[{last}] = {body}",
            f"{pad(rank)}for {last} in range(full[{rank - 1}]):",
            f"{pad(rank + 1)}acc += row[{last}]", f"    return {result}"]
        return lines
    lines += head + loops(rank, "full") + [f"{inner}v = {body}", step,
                                           f"    return {result}"]
    return lines


def _into_guard(arrays, leaves, target):
    """`apart`: whether the loop sums into new zeros, added into `t` after (`finish`), where
    `t` is not of the unbroadcast's shape or meets an array leaf in memory (the loop reads the
    leaves while it writes); the same loop nest either way (one compilation)."""
    lines = [f"    apart = {' or '.join(f'shape[{k}] != t.shape[{k}]' for k in range(target))}",
             *extent_lines("t", target)]
    for k in arrays:
        lines += extent_lines(f"a{k}", leaves[k].ndim)
        lines += [f"    apart = apart or ((t.size > 0) & (a{k}.size > 0) & (t_low < a{k}_high)"
                  f" & (a{k}_low < t_high))"]
    return lines


@register_jitable
def _finish(t, out, apart):
    """`t` with the sum `out` added where it was made apart (else `out` is `t`)."""
    if apart:
        t = added_into(t, out)
    return t


def _same_shape_lines(rank, body):
    """An unbroadcast to the broadcast shape itself sums nothing: the elements written into
    a new array (no zeros written first and added to)."""
    same = " and ".join(f"shape[{a}] == full[{a}]" for a in range(rank))
    index = ", ".join(f"i{a}" for a in range(rank))
    return [f"    if {same}:", "        out = np.empty(full)",
            *["    " + line for line in loops(rank, "full")],
            f"{pad(rank + 2)}out[{index}] = {body}", "        return out"]


def _map_nest(signature, arrays, rank, row, leaves, element):
    """The map's loop nest: loops over all axes but the last; in each, one row of every
    operand as a contiguous 1-D array (a C operand's own row, else its row copied or its
    broadcast element repeated into a buffer of the row's length), then the last axis as one
    loop over contiguous rows, which LLVM vectorizes (reading every operand through
    run-time strides, with 0 for a broadcast axis, it did not). Rows shorter than
    `SHORT_ROW` (gmm's (n, k, d) arrays with d = 10, an MLP's scores over 10 classes) are
    instead one plain nest over the broadcast views, `element` at each index, where the
    element is arithmetic alone: the per-row views and buffers cost more than a short row's
    own work (rows of 10: 190 against 85 us for 250,000 elements). An exp, log or tanh keeps
    the rows: only there does LLVM vectorize it (a tanh per element of a plain nest: 8 times
    as long)."""
    lines = [f"def impl({signature}):"]
    if len(arrays) > 1:
        lines += shape_lines([f"a{k}.shape" for k in arrays], [leaves[k].ndim for k in arrays],
                             "full")
    else:
        lines.append(f"    full = a{arrays[0]}.shape")
    lines += ["    out = np.empty(full)", f"    n = full[{rank - 1}]"]
    if rank > 1 and "simd_" not in element:  # a vector is one row
        index = ", ".join(f"i{a}" for a in range(rank))
        lines += [f"    if n < {SHORT_ROW}:"]
        lines += [f"        b{k} = broadcast_view(a{k}, full)" for k in arrays]
        lines += ["    " + line for line in loops(rank, "full")]
        lines += [f"{pad(rank + 2)}out[{index}] = {element}", "        return out"]
    per_row = []
    for k in arrays:
        own = leaves[k].ndim
        lines += [f"    m{k}_{a} = 0 if a{k}.shape[{a}] == 1 else 1" for a in range(own - 1)]
        own_row = leaves[k].layout == "C" and leaves[k].mutable  # its own row is contiguous
        # a contiguous vector's buffer only where it is broadcast (np.empty(0) allocates too:
        # two of the three allocations of a step `x - eta * g` on vectors of length 2)
        lazy = own_row and own == 1
        lines += [f"    w{k} = a{k}.shape[{own - 1}] == n"]  # else its last axis is broadcast
        lines += [] if lazy else [f"    buf{k} = np.empty(0 if w{k} else n)" if own_row else
                                  f"    buf{k} = np.empty(n)"]
        outer = [f"i{a + rank - own} * m{k}_{a}" for a in range(own - 1)]
        inner = pad(rank) if own > 1 else pad(1)  # a vector's row is the same in every row
        element = f"a{k}[{', '.join(outer + ['0'])}]"
        fill = ([f"{inner}    buf{k} = np.empty(n)"] if lazy else []) + [
            f"{inner}    e{k} = {element}", f"{inner}    for j in range(n):",
            f"{inner}        buf{k}[j] = e{k}", f"{inner}    r{k} = buf{k}"]
        if own_row:
            view = f"a{k}[{', '.join(outer + [':'])}]" if outer else f"a{k}"
            made = [f"{inner}if w{k}:", f"{inner}    r{k} = {view}", f"{inner}else:", *fill]
        else:
            read = f"a{k}[{', '.join(outer + ['j'])}]"
            made = [f"{inner}if w{k}:", f"{inner}    for j in range(n):",
                    f"{inner}        buf{k}[j] = {read}", f"{inner}    r{k} = buf{k}",
                    f"{inner}else:", *fill]
        if own > 1:
            per_row += made
        else:
            lines += made
    inner = pad(rank)
    lines += loops(rank - 1, "full") + per_row
    target = f"out[{', '.join(f'i{a}' for a in range(rank - 1))}, :]" if rank > 1 else "out"
    lines += [f"{inner}o = {target}", f"{inner}for j in range(n):",
              f"{inner}    o[j] = {row}", "    return out"]
    return lines


def _tuple(items):
    return f"({', '.join(items)},)"


def _reduced_axes(axes, rank):
    if axes is None:
        return tuple(range(rank))
    listed = axes if isinstance(axes, tuple) else (axes,)
    if any(not -rank <= a < rank for a in listed) or len({a % rank for a in listed}) < len(
            listed):
        return None  # numba refuses it as it refuses the unfused reduction
    return tuple(sorted(a % rank for a in listed))


def _reduction_parts(kind, reduced, keepdims, rank):
    kept = [a for a in range(rank) if a not in reduced]
    if keepdims:
        dims = ["1" if a in reduced else f"full[{a}]" for a in range(rank)]
        index = ["0" if a in reduced else f"i{a}" for a in range(rank)]
    else:
        dims, index = [f"full[{a}]" for a in kept], [f"i{a}" for a in kept]
    count = " * ".join(f"full[{a}]" for a in reduced) or "1"
    head = [f"    count = {count}"]
    if kind in ("max", "min"):
        head += ["    if count == 0:",
                 "        raise ValueError('zero-size array to a reduction without identity')"]
    acc = f"out[{', '.join(index)}]" if dims else "acc"
    head.append(f"    out = np.full(({', '.join(dims)},), {_START[kind]})" if dims
                else f"    acc = {_START[kind]}")
    inner = pad(rank + 1)
    step = inner + _STEP[kind].format(acc=acc, v="v", pad=inner)
    result = "out" if dims else "acc"
    if kind == "mean":  # NumPy's mean of no element is NaN
        result = f"np.divide({result}, count)"
    return head, step, result
