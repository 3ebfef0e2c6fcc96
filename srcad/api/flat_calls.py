"""Calls over flat arguments (srcad/api/chains.py): a composed derivative's generated code
takes each container argument (a dict, list, tuple or record of parameters) as its leaves;
these rebuild the arguments the user's function takes from them.

>>> rebuilt([1.0, 2.0, 3.0], ((0, ("dict", ("a", "b"), ("leaf", "leaf"))),))
[{'a': 1.0, 'b': 2.0}, 3.0]
"""

from __future__ import annotations

import numpy as np

from srcad.analysis.types import FLOAT, Array, type_of_value
from srcad.frontend import pytrees


def is_float(value) -> bool:
    """A float or a float array (what srcad differentiates)."""
    t = type_of_value(value)
    return t == FLOAT or (isinstance(t, Array) and t.is_float)


def rebuilt(flat, layout) -> list:
    """The arguments `flat` (containers as their leaves) stand for, containers rebuilt."""
    trees = dict(layout)
    args, k = [], 0
    while k < len(flat):
        tree = trees.get(len(args))
        if tree is None:
            args.append(flat[k])
            k += 1
            continue
        n = len(pytrees.paths(tree))
        args.append(pytrees.unflatten(tree, flat[k:k + n]))
        k += n
    while len(args) in trees:  # a container with no leaves at the end
        args.append(pytrees.unflatten(trees[len(args)], []))
    return args


def scalar_positions(args) -> list:
    return [i for i, a in enumerate(args)
            if not pytrees.is_container(a) and is_float(a) and not isinstance(a, np.ndarray)]


def flat_call(into, layout):
    """`into` called with the flat arguments (level 0 of a value, run as it is)."""
    if not layout:
        return into
    return lambda *flat: into(*rebuilt(list(flat[:-1]), layout), flat[-1])
