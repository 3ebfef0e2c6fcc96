"""Parameter containers (pytrees) at the boundary: flatten into leaves, rebuild from leaves.

A container is a dict with string keys, a list, a tuple, a `@dataclass` instance or a
`NamedTuple`, nested to any depth; everything else is a leaf (a float, an int, a bool, None, a
NumPy array). Leaves come in a fixed order: a dict's by sorted key (as JAX orders them), a
list's and a tuple's by position, a dataclass's and a NamedTuple's by field (in the order the
class declares them; the code reads them as `layer.W`). A record's kind in the treedef is
`(RECORD, its class)`. The structure
(`treedef`) is a hashable value, part of the cache key of the generated code: the function
reads `params["w"]`, and each leaf becomes an argument of its own in the generated code
(srcad/transform/normalize/containers.py), so the analyses see plain floats and arrays.
"""

from __future__ import annotations

import dataclasses
from typing import Any

import numpy as np

from srcad.annotations import Annotation, Cache, Constant, Output
from srcad.errors import ArgumentError

LEAF = "leaf"
# a float leaf passed as a one-element array (hvp and hessian: every float leaf then has a
# shadow array); the code reads it as `leaf[0]` (srcad/transform/containers.py)
BOXED = "boxed leaf"
CONTAINERS = (dict, list, tuple)
RECORD = "record"  # a dataclass or NamedTuple: the kind is (RECORD, its class)
_OWN = (Annotation, Constant, Cache, Output, type)


def is_record(value) -> bool:
    """Is `value` a dataclass instance or a NamedTuple (parameters read as `value.field`)?"""
    kind = type(value)
    if isinstance(value, _OWN):  # srcad's own Constant(...), Duplicated(...): no parameters
        return False
    return dataclasses.is_dataclass(kind) or (
        issubclass(kind, tuple) and hasattr(kind, "_fields"))


def is_container(value) -> bool:
    return type(value) in CONTAINERS or is_record(value)


def record_fields(value) -> tuple:
    """The field names of a record, in declaration order."""
    kind = type(value)
    if dataclasses.is_dataclass(kind):
        return tuple(f.name for f in dataclasses.fields(kind))
    return tuple(kind._fields)


def is_record_kind(kind) -> bool:
    return type(kind) is tuple and kind[0] == RECORD


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
    if is_record(value):
        names = record_fields(value)
        return ((RECORD, kind), names, tuple(treedef(getattr(value, n), where) for n in names))
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
    elif is_record(value):
        for name_ in record_fields(value):
            _collect(getattr(value, name_), out)
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
    if is_record_kind(kind):
        return _make_record(kind[1], keys, built)
    return built if kind == "list" else tuple(built)


def _make_record(cls, names, values):
    """An instance of the dataclass or NamedTuple `cls` with these field values (a dataclass
    field with init=False is set after construction)."""
    if not dataclasses.is_dataclass(cls):
        return cls(*values)
    init = {f.name for f in dataclasses.fields(cls) if f.init}
    record = cls(**{n: v for n, v in zip(names, values) if n in init})
    for n, v in zip(names, values):
        if n not in init:
            object.__setattr__(record, n, v)
    return record


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
    if is_record(value):  # a float field of an immutable record: a 0-d array, written in place
        names = record_fields(value)
        frozen = isinstance(value, tuple) or kind.__dataclass_params__.frozen
        return _make_record(kind, names, [
            np.zeros(()) if frozen and isinstance(getattr(value, n), (float, np.floating))
            else tree_zeros_like(getattr(value, n)) for n in names])
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
        value = getattr(value, key) if is_record(value) else value[key]
    return value


def set_leaf(value, path, leaf, where="the shadow") -> None:
    """Set the leaf at `path` of the container `value`, in place: a float leaf of a shadow is
    replaced in its parent, which must be a dict or a list (a tuple is immutable)."""
    parent = get(value, path[:-1])
    current = get(value, path)
    if isinstance(current, np.ndarray) and current.ndim == 0:  # an immutable record's float
        current[...] = leaf
        return
    if is_record(parent) and not isinstance(parent, tuple):
        object.__setattr__(parent, path[-1], leaf)  # a frozen dataclass's too: srcad's own
        return
    if isinstance(parent, tuple):
        raise ArgumentError(f"{where}: the derivative of the float at {describe(path)} cannot be "
                            "stored in a tuple (tuples are immutable)",
                            hint="hold floats in a dict or a list, or make the float a 0-d "
                            "array: np.array(0.5)")
    parent[path[-1]] = leaf


def describe(path, tree=None) -> str:
    """A leaf's path as Python would read it: `["layers"][0]["W"]`, `.layers[0].W` for the
    fields of records (known from the treedef `tree`)."""
    parts = []
    for key in path:
        record = tree not in (None, LEAF, BOXED) and is_record_kind(tree[0])
        parts.append(f".{key}" if record else f"[{key!r}]")
        if tree not in (None, LEAF, BOXED):
            tree = tree[2][tree[1].index(key)]
    return "".join(parts) or "the top level"


def check_congruent(value, shadow, where) -> None:
    """The shadow has the structure of the value (array leaves checked by the caller)."""
    if treedef(value, where) != treedef(shadow, where + " (shadow)"):
        raise ArgumentError(f"{where}: the shadow's structure differs from the value's",
                            hint="make the shadow with srcad.tree_zeros_like(value)")
