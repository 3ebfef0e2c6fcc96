"""Tuple results nested as JAX nests them: a function whose every `return` is a tuple written
out (`return y, (u, v)`, nested the same way on every return).

srcad's generated code returns a float, an array or a flat tuple of them. Such a function is
differentiated as its copy with flat returns (`return (y, u, v)`, compiled again from its
own text in its namespace with its line numbers, as has_aux's value-only copy is:
srcad/api/auxiliary.py), and each transform gives its result the nesting back: `jvp`'s value
and tangent, `vjp`'s value (and `vjp_fun` takes a cotangent of that nesting), `jacfwd` and
`jacrev` one Jacobian per returned value, in the nesting, each with the argnums inside, as
JAX gives them. `vmap` runs the function itself and keeps its nesting. A flat tuple
(`return y, u`) is such a result too: `jacfwd` and `jacrev` give the tuple of Jacobians.

    return y, (u, v)   ->   differentiated as   return (y, u, v)   ->   (J_y, (J_u, J_v))
"""

from __future__ import annotations

import ast

from srcad.api.auxiliary import copy_with_returns, segment
from srcad.errors import ArgumentError

LEAF = None  # a returned value in a nesting (a tuple of nestings)


class TupleResults:
    """A function returning tuples written out: its copy with flat returns and the nesting."""

    def __init__(self, copy, nesting):
        self.copy, self.nesting = copy, nesting

    @property
    def nested(self) -> bool:
        return any(part is not LEAF for part in self.nesting)

    def nest(self, flat):
        """The flat results (a tuple, one per leaf) in the nesting."""
        values = iter(flat)
        return _built(self.nesting, values)

    def flatten(self, value, what="the cotangent"):
        """`value`, given in the nesting (a tuple, or a list, per tuple), as the flat tuple."""
        out = []
        _collect(self.nesting, value, out, what)
        return tuple(out)


_MEMO: dict = {}  # fun -> its TupleResults, or None


def tuple_results(fun) -> TupleResults | None:
    """The `TupleResults` of fun when every return of it is a tuple written out and nested
    alike, else None."""
    code = getattr(fun, "__code__", None)
    key = (fun, code)
    if key not in _MEMO:
        nestings = []

        def flat(lines, value):
            nesting = _nesting(value)
            if nesting is LEAF or any(isinstance(n, ast.Starred) for n in ast.walk(value)):
                return None
            nestings.append(nesting)
            return "(" + ", ".join(segment(lines, leaf) for leaf in _leaves(value)) + ",)"

        copy = copy_with_returns(fun, flat, "with flat results")
        found = copy is not None and len(set(nestings)) == 1
        if len(_MEMO) > 256:
            _MEMO.clear()
        _MEMO[key] = TupleResults(copy, nestings[0]) if found else None
    return _MEMO[key]


def _nesting(node):
    if isinstance(node, ast.Tuple):
        return tuple(_nesting(e) for e in node.elts)
    return LEAF


def _leaves(node):
    if isinstance(node, ast.Tuple):
        return [leaf for e in node.elts for leaf in _leaves(e)]
    return [node]


def _built(nesting, values):
    if nesting is LEAF:
        return next(values)
    return tuple(_built(n, values) for n in nesting)


def _collect(nesting, value, out, what):
    if nesting is LEAF:
        out.append(value)
        return
    if type(value) not in (tuple, list) or len(value) != len(nesting):
        raise ArgumentError(f"{what} must be nested as the function's result: a tuple of "
                            f"{len(nesting)} where it has {type(value).__name__}")
    for n, v in zip(nesting, value):
        _collect(n, v, out, what)
