"""The axes of `srcad.vmap`: `in_axes` and `out_axes` checked and matched against the
arguments' and the result's pytrees (a spec is an int, None, or a prefix of the structure, as
in JAX), the batch size, and the result's leaves moved to their `out_axes`.

>>> leaf_axes({"b": None, "w": 0}, ("dict", ("b", "w"), ("leaf", "leaf")), "params")
[None, 0]
"""

from __future__ import annotations

import numpy as np

from srcad.errors import ArgumentError
from srcad.frontend import pytrees


def tree_axes(spec, what) -> None:
    """Refuse an axis spec that is neither an int, None nor a container of them."""
    if spec is None or (isinstance(spec, (int, np.integer)) and not isinstance(spec, bool)):
        return
    if pytrees.is_container(spec):
        for leaf in pytrees.leaves(spec):
            tree_axes(leaf, what)
        return
    raise ArgumentError(f"vmap: {what} entries must be ints or None, got {spec!r}",
                        construct=what)


def leaf_axes(spec, tree, where) -> list:
    """The axis of each leaf of the structure `tree` under the prefix `spec`."""
    if not pytrees.is_container(spec):
        return [spec] * len(pytrees.paths(tree))
    spec_tree = pytrees.treedef(spec)
    if tree == pytrees.LEAF or spec_tree[0] != tree[0] or spec_tree[1] != tree[1]:
        raise ArgumentError(f"vmap: the axes given for {where} have another structure than "
                            "it: an axes container must match the argument's keys and length",
                            construct="in_axes",
                            hint="give one int or None for the whole argument")
    kind, keys, children = tree
    values = [spec[k] for k in keys] if kind == "dict" else list(spec)
    out = []
    for k, child, sub in zip(keys, children, values):
        out += leaf_axes(sub, child, f"{where}[{k!r}]")
    return out


def batch_size_of(leaves, axes, axis_size) -> int:
    """The size of the mapped axes (one size for all), or `axis_size`."""
    sizes = set()
    for leaf, axis in zip(leaves, axes):
        if axis is None:
            continue
        ndim = np.ndim(leaf)
        if not -ndim <= axis < ndim:
            raise ArgumentError(f"vmap was requested to map an argument along axis {axis}, "
                                f"which implies that its rank should be at least "
                                f"{axis + 1 if axis >= 0 else -axis}, but is only {ndim} "
                                f"(its shape is {np.shape(leaf)})", construct="in_axes")
        sizes.add(np.shape(leaf)[axis])
    if len(sizes) > 1:
        raise ArgumentError("vmap got inconsistent sizes for array axes to be mapped: "
                            f"{sorted(sizes)}", construct="in_axes")
    if not sizes:
        if axis_size is None:
            raise ArgumentError("vmap must have at least one non-None value in in_axes",
                                construct="in_axes",
                                hint="map an argument, or give axis_size=")
        return int(axis_size)
    size = sizes.pop()
    if axis_size is not None and axis_size != size:
        raise ArgumentError(f"vmap: axis_size={axis_size} and mapped axes of size {size}",
                            construct="axis_size")
    return int(size)


def placed(result, flags, out_axes, size):
    """`result` (batch in front where `flags` say so) with each leaf's batch axis at its
    out_axes; an unbatched leaf is repeated across the batch, or kept for out_axes None."""
    if result is None:  # a function returning nothing
        return None
    if type(flags) is tuple and type(result) is tuple:
        specs = _split(out_axes, len(result))
        return tuple(placed(r, f, s, size) for r, f, s in zip(result, flags, specs))
    if pytrees.is_container(result):
        tree = pytrees.treedef(result)
        axes = leaf_axes(out_axes, tree, "the result")
        return pytrees.unflatten(tree, [_placed_leaf(leaf, flags, axis, size) for leaf, axis
                                        in zip(pytrees.leaves(result), axes)])
    if pytrees.is_container(out_axes):
        raise ArgumentError("vmap: out_axes has another structure than the result",
                            construct="out_axes")
    return _placed_leaf(result, flags, out_axes, size)


def _split(out_axes, count):
    if type(out_axes) is tuple:
        if len(out_axes) != count:
            raise ArgumentError(f"vmap: out_axes has {len(out_axes)} entries and the result "
                                f"{count}", construct="out_axes")
        return out_axes
    if pytrees.is_container(out_axes):
        raise ArgumentError("vmap: out_axes has another structure than the result",
                            construct="out_axes")
    return (out_axes,) * count


def _placed_leaf(leaf, batched, axis, size):
    if axis is None:
        if batched:
            raise ArgumentError("vmap has mapped output but out_axes is None: the result "
                                "differs between examples", construct="out_axes",
                                hint="give out_axes=0, or return a value that does not "
                                "depend on the mapped arguments")
        return leaf
    value = np.asarray(leaf)
    if not batched:
        value = np.broadcast_to(value, (size,) + value.shape).copy()
    if not -value.ndim <= axis < value.ndim:
        raise ArgumentError(f"vmap: out_axes={axis} for a result of rank {value.ndim - 1}",
                            construct="out_axes")
    return np.moveaxis(value, 0, axis) if axis % value.ndim else value
