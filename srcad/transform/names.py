"""Fresh, readable names for generated variables that never collide with the user's."""

from __future__ import annotations

import builtins

import gast

from srcad.frontend import syntax as S
from srcad.runtime.runtime_names import RESERVED


class Namer:
    """Hands out names not used in the function so far.

    >>> n = Namer({"x", "x_bar"})
    >>> n.fresh("x_bar"), n.fresh("exp"), n.fresh("exp")
    ('x_bar_1', 'exp', 'exp_1')
    """

    def __init__(self, taken=()):
        self.taken = set(taken)
        # the arrays that lists grown by append became (their name -> the list's name): their
        # rows take the appended arrays' shape once types are known (normalize/array_rows.py)
        self.list_buffers: dict = {}
        # the variables a list of known length was split into (`xs_0` -> `xs[0]`,
        # normalize/lists.py): refusals name them as the user wrote them
        self.list_parts: dict = {}

    @classmethod
    def for_tree(cls, tree) -> Namer:
        used = {n.id for n in S.nodes(tree) if isinstance(n, gast.Name)}
        used |= {a.id for a in tree.args.args} if isinstance(tree, gast.FunctionDef) else set()
        # never the name of something generated code calls (the user's own are renamed:
        # srcad/runtime/runtime_names.py)
        return cls(used | set(dir(builtins)) | RESERVED)

    def fresh(self, base: str) -> str:
        candidate, k = base, 0
        while candidate in self.taken:
            k += 1
            candidate = f"{base}_{k}"
        self.taken.add(candidate)
        return candidate

    def reserve(self, name: str) -> None:
        self.taken.add(name)
