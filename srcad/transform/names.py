"""Fresh, readable names for generated variables that never collide with the user's."""

from __future__ import annotations

import builtins

import gast

from srcad import syntax as S

# Names generated code calls from srcad's runtime: never given to a fresh variable, and never
# bound from f's namespace by the numba compiler (srcad/compiler.py imports them instead).
NUMBA_RUNTIME_NAMES = frozenset({"reserve_tape", "simd_exp", "checkpoint_plan", "array_bytes",
                                 "view_element", "view_size", "view_start", "TapeOverBudget"})
# srcad/numba_arrays.py: the array runtime, compiled (numba_compat.py spells products
# `array_matmul`, rank-one adjoints `outer_add`)
NUMBA_ARRAY_NAMES = frozenset({"unbroadcast", "array_matmul", "outer_add", "cholesky_tangent",
                               "cholesky_adjoint", "reshaped", "array_tanh",
                               "array_stack", "array_copy"})


class Namer:
    """Hands out names not used in the function so far.

    >>> n = Namer({"x", "x_bar"})
    >>> n.fresh("x_bar"), n.fresh("exp"), n.fresh("exp")
    ('x_bar_1', 'exp', 'exp_1')
    """

    def __init__(self, taken=()):
        self.taken = set(taken)

    @classmethod
    def for_tree(cls, tree) -> Namer:
        used = {n.id for n in S.nodes(tree) if isinstance(n, gast.Name)}
        used |= {a.id for a in tree.args.args} if isinstance(tree, gast.FunctionDef) else set()
        return cls(used | set(dir(builtins)) | {"math", "np"} | NUMBA_RUNTIME_NAMES
                   | NUMBA_ARRAY_NAMES)

    def fresh(self, base: str) -> str:
        candidate, k = base, 0
        while candidate in self.taken:
            k += 1
            candidate = f"{base}_{k}"
        self.taken.add(candidate)
        return candidate

    def reserve(self, name: str) -> None:
        self.taken.add(name)
