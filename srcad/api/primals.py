"""Differentiated arguments that are pytrees: a float, a float array, or a dict, list or tuple
of them nested to any depth (as JAX takes model parameters), annotated for one reverse pass
and their derivatives read back in the argument's own structure.

A tuple of floats cannot hold its own derivatives (a tuple is immutable), so a container is
passed to srcad as the same structure with lists in place of tuples: the function reads it
the same way (`params[0]`, `a, b = params`), and the derivative is rebuilt with the tuples
the user gave. Used by the function transforms (`grad`, `jacrev`) and by `vjp`.
"""

from __future__ import annotations

import numpy as np

from srcad.annotations import Active, Duplicated
from srcad.api.argnums import differentiable
from srcad.errors import ArgumentError
from srcad.frontend import pytrees


def as_lists(value):
    """`value` with every tuple of a container made a list (leaves shared, not copied)."""
    kind = type(value)
    if kind is dict:
        return {k: as_lists(v) for k, v in value.items()}
    if kind is list or kind is tuple:
        return [as_lists(v) for v in value]
    return value


def tree_copy(value):
    """`value` with every array leaf copied: a function writing its input (`x *= 2`) leaves
    the caller's arrays as they were, as in JAX."""
    kind = type(value)
    if kind is dict:
        return {k: tree_copy(v) for k, v in value.items()}
    if kind is list or kind is tuple:
        return kind(tree_copy(v) for v in value)
    return value.copy() if isinstance(value, np.ndarray) else value


def has_tuple(value) -> bool:
    kind = type(value)
    if kind is tuple:
        return True
    if kind is dict:
        return any(has_tuple(v) for v in value.values())
    if kind is list:
        return any(has_tuple(v) for v in value)
    return False


def reverse_annotation(value, position, transform):
    """The annotation of a differentiated argument for a reverse pass: Active for a float,
    Duplicated with fresh zeros for an array or a container (tuples passed as lists)."""
    if pytrees.is_container(value):
        if has_tuple(value):
            value = as_lists(value)
        return Duplicated(value, pytrees.tree_zeros_like(value))
    value = differentiable(value, position, transform)
    if isinstance(value, np.ndarray):
        return Duplicated(value, np.zeros_like(value))
    return Active(value)


def reverse_derivative(given, annotation, derivative):
    """The derivative a reverse pass left for an argument, in the structure of `given`."""
    if isinstance(annotation, Duplicated):
        shadow = annotation.shadow
        if pytrees.is_container(given) and has_tuple(given):
            return pytrees.unflatten(pytrees.treedef(given), pytrees.leaves(shadow))
        return shadow
    return _like(float(derivative), given)


def forward_annotation(value, tangent, position, transform):
    """Duplicated(value, tangent) for a forward pass, the tangent checked against the value."""
    if pytrees.is_container(value):
        pytrees.check_congruent(value, tangent, f"the tangent of primal {position}")
        return Duplicated(tree_copy(value), tree_copy(tangent))
    value = differentiable(value, position, transform)
    if isinstance(value, np.ndarray):
        tangent = np.array(tangent, dtype=value.dtype)  # copies: f may write its input
        if tangent.shape != value.shape:
            raise ArgumentError(f"{transform}: the tangent of primal {position} has shape "
                                f"{tangent.shape}, the primal {value.shape}")
        return Duplicated(value.copy(), tangent)
    return Duplicated(value, float(tangent))


def _like(derivative: float, given):
    """A float derivative with the float type of its input (np.float32 stays float32)."""
    if isinstance(given, np.floating):
        return type(given)(derivative)
    return derivative
