"""A string passed as a constant argument is part of the code: each read of its parameter is
the literal, and a branch its comparisons decide is the only one kept (after normalization,
before the analyses).

JAX takes strings where they are not differentiated (a static argument, a leaf of a pytree
closed over); so does srcad: `loss(x, settings)` with `settings = {"kind": "rbf", "ell": 0.5}`
reads `settings["kind"] == "rbf"` as `"rbf" == "rbf"`, and `if "rbf" == "rbf": A else: B` is
`A`, as JAX's tracing runs only the branch Python takes (the other branch is never
differentiated: numba could not type the tapes of code that never runs). The string is in
the cache key (`Text` in the argument's spec), so another string builds other code. The
parameter stays in the generated function's signature, unread (typed none); a string
argument rebound in the function is refused by line. A None argument is read as the literal
None the same way (`if power is not None:` decided). The string and None leaves of a
container read from outside (srcad/transform/normalize/free_containers.py) are read so too.

    def loss(x, kind):            (kind="rbf")
        if kind == "rbf":               ->    a = np.exp(-x)
            a = np.exp(-x)
        else:
            a = 1.0 / x
"""

from __future__ import annotations

import ast
import dataclasses

import gast

from srcad.analysis.value_types import NONE, Text
from srcad.errors import UnsupportedSyntaxError
from srcad.frontend import syntax as S

# what a test decided by literals alone is made of
_DECIDABLE = (gast.Constant, gast.Compare, gast.BoolOp, gast.UnaryOp, gast.cmpop, gast.boolop,
              gast.Not, gast.expr_context)


def inline_text_arguments(norm, specs) -> tuple:
    """`specs` with each `Text` argument's type none, once every read of its parameter in
    `norm.body` is the string itself (a None argument's is None; the branches they decide
    are resolved)."""
    texts = {p: s.type.value for p, s in zip(norm.params, specs) if isinstance(s.type, Text)}
    texts.update({p: None for p, s in zip(norm.params, specs)  # None: the only value of NONE
                  if s.kind == "const" and s.type == NONE})
    if not texts:
        return specs
    norm.body = inline_literals(norm.parsed, norm.body, texts)
    return tuple(dataclasses.replace(s, type=NONE) if isinstance(s.type, Text) else s
                 for s in specs)


def inline_literals(parsed, body: list, literals: dict) -> list:
    """`body` with each read of a name of `literals` (name -> a string or None) the literal,
    and each `if` whose test then depends on literals alone replaced by the branch taken."""
    for stmt in body:
        for node in S.nodes(stmt):
            for field, value in gast.iter_fields(node):
                if isinstance(value, list):
                    value[:] = [_literal(parsed, v, literals) for v in value]
                else:
                    setattr(node, field, _literal(parsed, value, literals))
    return _decided(body)


def _literal(parsed, node, literals):
    if not (isinstance(node, gast.Name) and node.id in literals):
        return node
    if not isinstance(node.ctx, gast.Load):
        raise parsed.error(node, "assignment", f"`{node.id}` is a string argument and is "
                           "rebound here", hint="bind the new value to another name",
                           kind=UnsupportedSyntaxError)
    return gast.copy_location(gast.Constant(value=literals[node.id], kind=None), node)


def _decided(body: list) -> list:
    out = []
    for stmt in body:
        for field in ("body", "orelse"):
            if isinstance(getattr(stmt, field, None), list):
                setattr(stmt, field, _decided(getattr(stmt, field)))
        if isinstance(stmt, gast.If) and all(isinstance(n, _DECIDABLE)
                                             for n in S.nodes(stmt.test)):
            try:
                taken = eval(compile(ast.fix_missing_locations(  # literals only: no names
                    gast.gast_to_ast(gast.Expression(body=S.clone(stmt.test)))), "<test>",
                    "eval"), {"__builtins__": {}})
            except Exception:  # noqa: BLE001 - `"a" < 1`: left for Python to raise at run time
                out.append(stmt)
                continue
            out.extend((stmt.body if taken else stmt.orelse) or [])
            continue
        out.append(stmt)
    return out
