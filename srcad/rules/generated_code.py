"""Rules of what srcad's own generated code calls (srcad/runtime/): the adjoints of the shape
family and the Cholesky rules. First derivatives never differentiate them; second order does
(hessian, hvp: forward mode over srcad's reverse code, or reverse mode over its forward code).

The adjoints of the shape family are linear in their seed and constant in the rest (shapes,
axes, indices; `unsort` reads x only for its order, constant almost everywhere), so the tangent
is the same call on the seed's tangent and the adjoint is the forward operation they undo:

| call (x: the seed)           | tangent                  | adjoint                        |
|------------------------------|--------------------------|--------------------------------|
| undiagonal(x, s, k, a1, a2)  | undiagonal(g, ...)       | np.diagonal(g, k, a1, a2)      |
| untrace(x, s, k, a1, a2)     | untrace(g, ...)          | np.trace(g, k, a1, a2)         |
| diagonal_adjoint(x, s)       | diagonal_adjoint(g, s)   | np.diagonal(g)                 |
| untile(x, reps, s)           | untile(g, reps, s)       | np.tile(g, reps)               |
| unrepeat(x, r, axis, s)      | unrepeat(g, ...)         | np.repeat(g, r, axis)          |
| untake(x, i, axis, mode, s)  | untake(g, ...)           | np.take(g, i, axis, mode=mode) |
| untake_along_axis(x, i, a, s)| untake_along_axis(g, ...)| np.take_along_axis(g, i, a)    |
| unpad(x, s, w, mode)         | unpad(g, s, w, mode)     | np.pad(g, w) (mode constant)   |
| unsort(x, y, axis)           | unsort(g, y, axis)       | g in y's sorted order          |

The gradient of np.linalg.det, `det_cofactor(A)` (the cofactor matrix C = det(A) inv(A)^T):
tangent C tr(A^-1 g) - det(A) (A^-1 g A^-1)^T, adjoint sum(g * C) inv(A)^T - det(A)
(A^-1 g A^-1)^T (srcad/rules/decompositions.py).

The Cholesky rules of one matrix (L the factor, y the other operand):
srcad/runtime/cholesky_derivatives.py. The rules of eigh, svd, qr, cond and matrix_power are
refused, naming the user's function (those of einsum and of stacked cholesky are plain Python
that srcad reads and differentiates).

| call                   | tangent of L                      | of y                   |
|------------------------|-----------------------------------|------------------------|
| cholesky_tangent(L, y) | cholesky_tangent_tangent(L, y, g) | cholesky_tangent(L, g) |
| cholesky_adjoint(L, y) | cholesky_adjoint_tangent(L, y, g) | cholesky_adjoint(L, g) |

The adjoint of y of each is the other (they are each other's transpose); the adjoint of L
of `cholesky_tangent` is `cholesky_tangent_adjoint(L, y, g)`; that of `cholesky_adjoint`
(reverse over reverse, which srcad's operators never run) is refused.

The adjoint of operand k of an einsum (np.einsum, np.tensordot, np.inner, multi_dot, stacked
`@`: srcad/rules/einsum.py), `einsum_adjoint(s, k, w, x0, ..., xn)`, is linear in the seed w
and in each other operand, and reads operand k only for its shape: the transpose of the map
x_k -> np.einsum(s, x0, ..., x_k, ..., xn). So

| operand | tangent                                  | adjoint                              |
|---------|------------------------------------------|--------------------------------------|
| w       | einsum_adjoint(s, k, g, x0, ..., xn)     | np.einsum(s, x0, ..., g at k, ...)   |
| x_j     | einsum_adjoint(s, k, w, ..., g at j, ...)| einsum_adjoint(s, j, w, ..., g at k) |
| x_k     | none (its shape only)                    | none                                 |
"""

from __future__ import annotations

from srcad.errors import SecondOrderRefusal, SrcadError
from srcad.rules.decompositions import det_cofactor_rule
from srcad.rules.rule_type import Rule, linear
from srcad.runtime import interp_runtime, linalg_runtime, movement_runtime, spectral_runtime
from srcad.runtime.array_runtime import cholesky_adjoint, cholesky_tangent, diagonal_adjoint

# name -> (operands after the seed x, the shape operand, the adjoint: the forward operation)
_LINEAR_IN_SEED = {
    "undiagonal": ("s k a1 a2", "s", "np.diagonal(g, k, a1, a2)"),
    "untrace": ("s k a1 a2", "s", "np.trace(g, k, a1, a2)"),
    "diagonal_adjoint": ("s", "s", "np.diagonal(g)"),
    "untile": ("reps s", "s", "np.tile(g, reps)"),
    "unrepeat": ("r axis s", "s", "np.repeat(g, r, axis)"),
    "untake": ("i axis mode s", "s", "np.take(g, i, axis, mode=mode)"),
    "untake_along_axis": ("i axis s", "s", "np.take_along_axis(g, i, axis)"),
    "unpad": ("s w mode", "s",
              "(np.pad(g, w) if mode == 'constant' else reverse_over_reverse_refused('np.pad'))"),
    "unsort": ("y axis", "y", "np.take_along_axis(g, sort_order(y, axis), axis)"),
}


def _shape_rank(name, ranks, position) -> int:
    rank = ranks[position]
    if rank is None:
        raise SrcadError(f"second order through `{name}`: the rank of its result is not "
                         "known from the code", construct="second order",
                         hint="use gradient or jacobian of this program")
    return rank


def linear_in_seed(name):
    """The select of the adjoint `name` of the shape family (table above)."""
    rest, shaped_by, adjoint = _LINEAR_IN_SEED[name]
    others = rest.split()

    def select(ranks, keywords):
        if len(ranks) != 1 + len(others):
            raise SrcadError(f"`{name}` called with {len(ranks)} arguments",
                             construct="second order")
        position = 1 + others.index(shaped_by)
        rank = ranks[position] if shaped_by == "y" else _shape_rank(name, ranks, position)
        shape = "y_shape" if shaped_by == "y" else shaped_by
        return Rule(name, ("x", *others), (adjoint,) + (None,) * len(others), "float",
                    (f"{name}(g, {', '.join(others)})",) + (None,) * len(others), False,
                    shape, rank)
    return select


def _cholesky(name, tangent_of_factor, adjoint_of_factor, other):
    def select(ranks, keywords):
        if tuple(ranks) != (2, 2):
            raise SrcadError(f"second order through `{name}` of arrays of ranks "
                             f"{tuple(ranks)}", construct="second order",
                             hint="second order goes through np.linalg.cholesky of one matrix")
        return linear(name, "x y", (tangent_of_factor, adjoint_of_factor),
                      (f"{name}(x, g)", f"{other}(x, g)"), shape="x_shape", rank=2)
    return select


# what the rule table adds: (function, select)
ENTRIES = [(getattr(movement_runtime, name), linear_in_seed(name))
           for name in _LINEAR_IN_SEED if name != "diagonal_adjoint"]
ENTRIES += [
    (diagonal_adjoint, linear_in_seed("diagonal_adjoint")),
    (linalg_runtime.det_cofactor, det_cofactor_rule),  # np.linalg.det's gradient
    (cholesky_tangent, _cholesky("cholesky_tangent", "cholesky_tangent_tangent(x, y, g)",
                                 "cholesky_tangent_adjoint(x, y, g)", "cholesky_adjoint")),
    (cholesky_adjoint, _cholesky("cholesky_adjoint", "cholesky_adjoint_tangent(x, y, g)",
                                 "reverse_over_reverse_refused('np.linalg.cholesky')",
                                 "cholesky_tangent")),
]


def einsum_adjoint_rule(ranks, keywords) -> Rule:
    """The rule of `einsum_adjoint(subscripts, k, w, x0, ..., xn)` (the table above): the
    literal subscripts and k are read from the call."""
    subscripts, k = keywords.get("subscripts"), keywords.get("k")
    n = len(ranks) - 1
    if not isinstance(subscripts, str) or type(k) is not int or not 0 <= k < n:
        raise SrcadError("second order through an einsum adjoint whose subscripts or operand "
                         "are not literals", construct="second order")
    xs = [f"x{j}" for j in range(n)]
    literal = repr(subscripts)

    def call(head, values):
        return f"{head}({literal}, {', '.join(values)})"

    def put(j, value):
        return [value if i == j else x for i, x in enumerate(xs)]

    tangents = [call("einsum_adjoint", [str(k), "g", *xs])]
    adjoints = [call("np.einsum", put(k, "g"))]
    for j in range(n):
        tangents.append(None if j == k else call("einsum_adjoint", [str(k), "w", *put(j, "g")]))
        adjoints.append(None if j == k else call("einsum_adjoint", [str(j), "w", *put(k, "g")]))
    return Rule("einsum_adjoint", ("w", *xs), tuple(adjoints), "float", tuple(tangents), False,
                f"x{k}_shape", ranks[1 + k])


def _not_yet(function: str):
    """The select of a rule of srcad's whose own derivative srcad does not have yet: second
    order through the user's call of `function` is refused, in the user's words."""
    def select(ranks, keywords):
        raise SecondOrderRefusal(f"second derivatives through {function} are not supported "
                                 "yet", construct="second order",
                                 hint="use gradient or jacobian of this program")
    return select


# srcad's rules, written as Python loops and decompositions, whose derivatives second order
# does not go through yet (the user's function each implements the rule of)
_REFUSED = {
    "np.linalg.eigh": (spectral_runtime, ("eigh_tangent", "eigh_adjoint")),
    "np.linalg.svd": (spectral_runtime, ("svd_tangent", "svd_adjoint")),
    "np.linalg.qr": (spectral_runtime, ("qr_tangent", "qr_adjoint")),
    "np.linalg.cond": (spectral_runtime, ("cond_tangent", "cond_adjoint")),
    "np.linalg.matrix_power": (linalg_runtime, ("matrix_power_tangent",
                                                "matrix_power_adjoint")),
    "np.interp": (interp_runtime, ("interp_slope", "interp_tangent", "interp_adjoint")),
}
ENTRIES += [(getattr(module, name), _not_yet(function))
            for function, (module, names) in _REFUSED.items() for name in names]
