"""The kinds of value srcad types: int, float, bool, none, shape, range, a float (or int or bool)
array of some rank, a stack (a tape of generated reverse code); how a runtime value and two
assignments of one name are typed, and which types carry a derivative. No inference here
(srcad/analysis/types.py).
"""

from __future__ import annotations

from dataclasses import dataclass

import gast
import numpy as np


@dataclass(frozen=True)
class Array:
    ndim: int
    is_float: bool = True
    is_bool: bool = False  # a mask (a comparison of arrays), for reads `x[mask]`


@dataclass(frozen=True)
class Stack:
    """A list used as a stack (`tape = []`, `.append`, `.pop()`), as in srcad's own
    generated reverse code, which can thus be differentiated again."""

    element: object = None


@dataclass(frozen=True)
class Text:
    """A string passed as a constant argument (`kind="rbf"`, a leaf of a constant dict): part
    of the code, as JAX's static arguments are (srcad/transform/normalize/text_arguments.py);
    its value is in the cache key."""

    value: str


INT, FLOAT, BOOL, NONE = "int", "float", "bool", "none"


SHAPE, RANGE, OTHER = "shape", "range", "other"


NUMERIC = {BOOL: 0, INT: 1, FLOAT: 2}


def type_of_value(value):
    """The srcad type of a runtime argument value."""
    if isinstance(value, (bool, np.bool_)):
        return BOOL
    if isinstance(value, (int, np.integer)):
        return INT
    if isinstance(value, (float, np.floating)):
        return FLOAT
    if isinstance(value, np.ndarray):
        return Array(value.ndim, value.dtype.kind == "f", value.dtype.kind == "b")
    if value is None:
        return NONE
    return OTHER


def argument_type(value):
    """The srcad type of a constant argument: a string is `Text`, else `type_of_value`."""
    return Text(value) if type(value) is str else type_of_value(value)


def join(a, b):
    if a is None:
        return b
    if b is None or a == b:
        return a
    if a in NUMERIC and b in NUMERIC:
        return a if NUMERIC[a] >= NUMERIC[b] else b
    if isinstance(a, Stack) and isinstance(b, Stack):
        return Stack(join(a.element, b.element))
    if a == NONE:
        return b
    if b == NONE:
        return a
    return OTHER


def is_float_like(t) -> bool:
    """A float, a float array, or a stack (a tape of generated reverse code) of either."""
    return t == FLOAT or (isinstance(t, Array) and t.is_float) or \
        (isinstance(t, Stack) and is_differentiable(t.element))


def is_differentiable(t) -> bool:
    """Can a value of type `t` carry a derivative (a float, a float array)? Unlike
    `is_float_like`, not a stack."""
    return t == FLOAT or (isinstance(t, Array) and t.is_float)


def stack_call(node):
    """(stack name, method) for `name.append(v)`, `name.pop()` and `float(name.pop())`, else
    None."""
    if isinstance(node, gast.Call) and isinstance(node.func, gast.Name) \
            and node.func.id == "float" and len(node.args) == 1:
        node = node.args[0]
    if isinstance(node, gast.Call) and isinstance(node.func, gast.Attribute) \
            and node.func.attr in ("append", "pop") and isinstance(node.func.value, gast.Name):
        return node.func.value.id, node.func.attr
    return None


def is_new_axis(node) -> bool:
    return (isinstance(node, gast.Constant) and node.value is None) or \
        (isinstance(node, gast.Attribute) and node.attr == "newaxis")


def array_binop(a, op, b) -> Array | str:
    """`a op b` with an array operand: broadcasting gives the larger rank, `@` contracts
    (a vector @ a vector is a number); int arrays stay int under + - * // % **."""
    rank = {t: (t.ndim if isinstance(t, Array) else 0) for t in (a, b)}
    ndim = max(rank.values())
    if isinstance(op, gast.MatMult):
        ndim = rank[b] - 1 if rank[a] == 1 else rank[a] - 1 if rank[b] == 1 else ndim
    is_float = isinstance(op, gast.Div) or any(
        (t.is_float if isinstance(t, Array) else t == FLOAT) for t in (a, b))
    if ndim == 0:
        return FLOAT if is_float else INT
    return Array(ndim, is_float)
