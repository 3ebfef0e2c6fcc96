"""numba: variables the generated code reads on a path numba cannot see assigning them.

The reverse sweep of `if c: t = ...` reads `t` in the arm replaying that branch; the branch is
chosen again from a flag on the tape, so the read only happens when the forward sweep assigned
`t`. numba's compiler does not know the two tests agree: it sees `t` possibly undefined and
refuses the function ("Unsupported assignment encountered: Undefined"). Python runs it.

`possibly_unset(body, defined)` is a definite-assignment pass
(srcad/analysis/definite_assignment.py) returning the local names some path reads before
assigning. When the user's own function has no such read, every one the
generated code has is of the kind above, and giving those names a value of their type at entry
(`typed_defaults`) changes nothing a run computes. When the user's function has one (Python
would raise UnboundLocalError on some input), nothing is added and numba refuses as before.

Both backends: reverse mode makes the adjoint of an array bound inside a loop at the top of the
reverse sweep (`a_bar = np.zeros_like(a)`), from the array the last iteration left. A loop
that ran zero times left none, and Python raised UnboundLocalError. Such a float array gets an
empty array of its rank at entry (`a = np.zeros((0,))`): the adjoint made from it is empty and
unread, since the reverse loop that would read it runs zero times too, and a loop allocates
nothing more than before.
"""

from __future__ import annotations

import gast

from srcad.analysis.definite_assignment import DefiniteAssignment
from srcad.analysis.types import BOOL, FLOAT, INT
from srcad.analysis.value_types import Array
from srcad.frontend import syntax as S

_ZERO = {FLOAT: 0.0, INT: 0, BOOL: False}


class _Reads:
    """The reads and assignments of local names, statement by statement, reported to a
    `DefiniteAssignment` that follows the paths."""

    def __init__(self, locals_: set, defined: set):
        self.locals = locals_
        self.paths = DefiniteAssignment(defined)

    def expr(self, node) -> None:
        for n in S.walk(node):
            if isinstance(n, gast.Name) and isinstance(n.ctx, gast.Load) and n.id in self.locals:
                self.paths.read(n.id)

    def assign(self, target) -> None:
        for n in S.walk(target):
            if isinstance(n, gast.Name) and isinstance(n.ctx, gast.Store):
                self.paths.write(n.id)
            elif isinstance(n, gast.Subscript):
                self.expr(n.value)
                self.expr(n.slice)

    def block(self, body) -> None:
        for stmt in body:
            self.stmt(stmt)

    def stmt(self, stmt) -> None:
        if isinstance(stmt, gast.Assign):
            self.expr(stmt.value)
            for target in stmt.targets:
                self.assign(target)
        elif isinstance(stmt, (gast.AugAssign, gast.AnnAssign)):
            if stmt.value is not None:
                self.expr(stmt.value)
            if isinstance(stmt, gast.AugAssign):
                self.expr(S.as_load(stmt.target))
            self.assign(stmt.target)
        elif isinstance(stmt, gast.If):
            self.expr(stmt.test)
            self.paths.branch([lambda: self.block(stmt.body), lambda: self.block(stmt.orelse)])
        elif isinstance(stmt, gast.For):
            self.expr(stmt.iter)

            def body():
                self.assign(stmt.target)
                self.block(stmt.body)
            self.paths.loop([body, lambda: self.block(stmt.orelse)])
        elif isinstance(stmt, gast.While):
            self.expr(stmt.test)
            self.paths.loop([lambda: self.block(stmt.body), lambda: self.block(stmt.orelse)])
        elif isinstance(stmt, gast.FunctionDef):
            return
        else:
            self.expr(stmt)


def possibly_unset(body: list, defined) -> set:
    """Local names of `body` read on some path before any assignment (`defined`: the
    parameters)."""
    locals_ = set().union(*(S.stored_names(s) for s in body)) if body else set()
    reads = _Reads(locals_ - set(defined), defined)
    reads.block(body)
    return reads.paths.unset_reads


def typed_defaults(function: gast.FunctionDef, user_body: list, params, types,
                   scalars: bool = True) -> None:
    """Assign, at the top of the generated `function`, a zero of its type to each local it may
    read unassigned: a scalar when `scalars` and the user's function (`user_body`) reads
    none unassigned, an empty float array of its rank when the user's function never reads
    that array unassigned (where it does, Python raises, and so must the generated code)."""
    user_unset = possibly_unset(user_body, params)
    generated_params = [a.id for a in function.args.args]
    names = sorted(possibly_unset(function.body, generated_params))
    zeros = [S.assign(S.name(n), _default(types[n])) for n in names
             if (scalars and not user_unset and types[n] in _ZERO)
             or (_float_array(types[n]) and n not in user_unset)]
    if zeros:
        start = 1 if function.body and S.is_comment(function.body[0]) else 0
        function.body[start:start] = zeros


def _float_array(t) -> bool:
    return isinstance(t, Array) and t.is_float and not t.is_bool


def _default(t):
    """A zero of scalar type `t`, or an empty float array of `t`'s rank."""
    if _float_array(t):
        return S.call("np.zeros", gast.Tuple(elts=[S.const(0)] * t.ndim, ctx=gast.Load()))
    return S.const(_ZERO[t])
