"""The types of NumPy calls whose values are ints or bools (np.argmax, argmin, argsort,
searchsorted, digitize, flatnonzero, argwhere, isclose): constants, whatever their arguments
carry, so they need no rule; their rank follows NumPy's (an int, or an int array)."""

from __future__ import annotations

import gast

from srcad.analysis.value_types import BOOL, INT, Array


def integer_call_type(of, call):
    """The type of `call`, with `of` the type of an expression (None: not known yet)."""
    name = _name(call.func)
    keywords = {k.arg: k.value for k in call.keywords}
    args = list(call.args)
    kinds = [of(a) for a in args]
    if any(k is None for k in kinds):
        return None
    ranks = [k.ndim if isinstance(k, Array) else 0 for k in kinds]
    if name in ("argmax", "argmin"):
        axis = keywords.get("axis", args[1] if len(args) > 1 else None)
        keep = keywords.get("keepdims")
        keep = isinstance(keep, gast.Constant) and keep.value is True
        if _is_none(axis):
            return Array(ranks[0], False) if keep else INT
        rank = ranks[0] if keep else ranks[0] - 1
    elif name == "argsort":
        axis = keywords.get("axis", args[1] if len(args) > 1 else None)
        rank = 1 if axis is not None and _is_none(axis) else ranks[0]
    elif name == "searchsorted":
        rank = ranks[1] if len(ranks) > 1 else of(keywords["v"]).ndim \
            if isinstance(of(keywords.get("v")), Array) else 0
    elif name == "digitize":
        rank = ranks[0]
    elif name == "flatnonzero":
        rank = 1
    elif name == "argwhere":  # one row of indices per nonzero element
        rank = 2
    elif name == "lu_pivots":  # scipy.linalg.lu_factor's pivots (normalize/factor_calls.py)
        rank = 1
    else:  # isclose
        rank = max(ranks + [_rank(of(keywords.get("b")))])
        return Array(rank, False) if rank else BOOL
    return Array(rank, False) if rank else INT


def _rank(kind):
    return kind.ndim if isinstance(kind, Array) else 0


def _is_none(node):
    return node is None or (isinstance(node, gast.Constant) and node.value is None)


def _name(func):
    return func.attr if isinstance(func, gast.Attribute) else getattr(func, "id", "")
