"""Parameter containers (pytrees) at the boundary: flatten into leaves, rebuild from leaves.

A container is a dict with string keys, a list or a tuple, nested to any depth; everything
else is a leaf (a float, an int, a bool, None, a NumPy array). Leaves come in a fixed order:
a dict's by sorted key (as JAX orders them), a list's and a tuple's by position. The structure
(`treedef`) is a hashable value, part of the cache key of the generated code: the function
reads `params["w"]`, and each leaf becomes an argument of its own in the generated code
(srcad/transform/normalize/containers.py), so the analyses see plain floats and arrays.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from srcad.errors import ArgumentError

LEAF = "leaf"
# a float leaf passed as a one-element array (hvp and hessian: every float leaf then has a
# shadow array); the code reads it as `leaf[0]` (srcad/transform/containers.py)
BOXED = "boxed leaf"
CONTAINERS = (dict, list, tuple)


def is_container(value) -> bool:
    return type(value) in CONTAINERS


def treedef(value, where="the argument"):
    """The structure of `value`: LEAF, or (kind, keys, children) with kind "dict", "list" or
    "tuple" (keys: the sorted dict keys, or the positions)."""
    kind = type(value)
    if kind is dict:
        keys = list(value)
        for key in keys:
            if type(key) is not str:
                raise ArgumentError(f"{where}: a dict of parameters needs string keys, got "
                                    f"{key!r}", hint="use string keys, e.g. params['w']")
        keys = tuple(sorted(keys))
        return ("dict", keys, tuple(treedef(value[k], where) for k in keys))
    if kind is list or kind is tuple:
        return (kind.__name__, tuple(range(len(value))),
                tuple(treedef(v, where) for v in value))
    return LEAF


def leaves(value) -> list:
    """The leaves of `value` in treedef order."""
    out = []
    _collect(value, out)
    return out


def _collect(value, out):
    kind = type(value)
    if kind is dict:
        for key in sorted(value):
            _collect(value[key], out)
    elif kind is list or kind is tuple:
        for v in value:
            _collect(v, out)
    else:
        out.append(value)


def paths(tree, prefix=()) -> list:
    """The key paths of the leaves of `tree` (a treedef), in order: tuples of keys."""
    if tree in (LEAF, BOXED):
        return [prefix]
    _, keys, children = tree
    return [p for key, child in zip(keys, children) for p in paths(child, prefix + (key,))]


def unflatten(tree, values):
    """The container of structure `tree` holding `values` (consumed in order)."""
    it = iter(values)
    out = _build(tree, it)
    return out


def _build(tree, it):
    if tree in (LEAF, BOXED):
        return next(it)
    kind, keys, children = tree
    built = [_build(child, it) for child in children]
    if kind == "dict":
        return dict(zip(keys, built))
    return built if kind == "list" else tuple(built)


def tree_zeros_like(value: Any) -> Any:
    """A container like `value` with every float array leaf replaced by zeros of its shape and
    dtype and every float leaf by 0.0 (other leaves are kept): the shadow to pass with
    `Duplicated(params, tree_zeros_like(params))`.

    Args:
        value: a float, a float array, or a dict, list or tuple of them (nested).

    Returns:
        A container of the same structure with zeros in place of the floats.

    >>> import numpy as np
    >>> tree_zeros_like({"w": np.ones(2), "b": 1.5, "name": "layer"})
    {'w': array([0., 0.]), 'b': 0.0, 'name': 'layer'}
    """
    kind = type(value)
    if kind is dict:
        return {k: tree_zeros_like(v) for k, v in value.items()}
    if kind is list or kind is tuple:
        return kind(tree_zeros_like(v) for v in value)
    if isinstance(value, np.ndarray):
        return np.zeros_like(value)
    if isinstance(value, (float, np.floating)):
        return 0.0
    return value


def boxed(tree, floats):
    """`tree` with the leaves whose flag in `floats` (in leaf order) is true BOXED."""
    flags = iter(floats)
    return _boxed(tree, flags)


def _boxed(tree, flags):
    if tree == LEAF:
        return BOXED if next(flags) else LEAF
    kind, keys, children = tree
    return (kind, keys, tuple(_boxed(c, flags) for c in children))


def get(value, path):
    for key in path:
        value = value[key]
    return value


def set_leaf(value, path, leaf, where="the shadow") -> None:
    """Set the leaf at `path` of the container `value`, in place: a float leaf of a shadow is
    replaced in its parent, which must be a dict or a list (a tuple is immutable)."""
    parent = get(value, path[:-1])
    if type(parent) is tuple:
        raise ArgumentError(f"{where}: the derivative of the float at {describe(path)} cannot be "
                            "stored in a tuple (tuples are immutable)",
                            hint="hold floats in a dict or a list, or make the float a 0-d "
                            "array: np.array(0.5)")
    parent[path[-1]] = leaf


def describe(path) -> str:
    """A leaf's path as Python would index it: `["layers"][0]["W"]`."""
    return "".join(f"[{k!r}]" for k in path) or "the top level"


def check_congruent(value, shadow, where) -> None:
    """The shadow has the structure of the value (array leaves checked by the caller)."""
    if treedef(value, where) != treedef(shadow, where + " (shadow)"):
        raise ArgumentError(f"{where}: the shadow's structure differs from the value's",
                            hint="make the shadow with srcad.tree_zeros_like(value)")
