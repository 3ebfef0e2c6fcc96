"""A list bound by a literal in each arm of an `if` and appended to: one list, appended to.

    if c > 0:                  ys = []
        ys = [x[0], x[1]]      if c > 0:
    else:              ->          ys.append(x[0])
        ys = [x[1]]                ys.append(x[1])
    ys.append(x[2])            else:
                                   ys.append(x[1])
                               ys.append(x[2])

so that srcad/transform/normalize/conditional_lists.py grows it like any list appended to under
conditions. Guarantee: only a list bound nowhere else, in every arm (an `elif` chain too, and
an `else` required), once, at the arm's top level, used in no arm before that binding nor
before the `if`, with elements that do not read it (Python evaluates them all before binding:
appended one by one they are the same values), and appended to somewhere. Lists of one length
that are only read stay as they are: srcad/transform/normalize/lists.py splits them.
"""

from __future__ import annotations

import gast

from srcad.frontend import syntax as S
from srcad.transform.normalize.grown_lists import bindings_of, is_append


def literals_in_arms_as_appends(body: list) -> list:
    """`body` with the lists above bound by `[]` before their `if`, and appended to in it."""
    names = {n.value.func.value.id for s in body for n in S.nodes(s) if isinstance(n, gast.Expr)
             and isinstance(n.value, gast.Call) and isinstance(n.value.func, gast.Attribute)
             and n.value.func.attr == "append" and isinstance(n.value.func.value, gast.Name)}
    for name_ in names:
        _rewrite_block(body, body, name_)
    return body


def _rewrite_block(block, body, name_) -> bool:
    for k, stmt in enumerate(block):
        if isinstance(stmt, gast.If) and not any(_uses(s, name_) for s in block[:k]):
            arms = _arms(stmt, name_)
            if arms is not None and len(arms) == bindings_of(body, name_) \
                    and any(is_append(n, name_) for s in body for n in S.nodes(s)):
                for arm, at in arms:
                    literal = arm[at]
                    arm[at:at + 1] = [gast.copy_location(S.expr_stmt(S.substitute(
                        "xs.append(e)", {"xs": S.name(name_), "e": e})), literal)
                        for e in literal.value.elts]
                block.insert(k, gast.copy_location(S.assign(S.name(name_), gast.List(
                    elts=[], ctx=gast.Load())), stmt))
                return True
        for field in ("body", "orelse"):
            if isinstance(stmt, (gast.For, gast.While, gast.If)) \
                    and _rewrite_block(getattr(stmt, field), body, name_):
                return True
    return False


def _arms(stmt, name_):
    """[(arm, index of its binding)] of each arm of the `if` chain `stmt`, or None."""
    out = []
    for arm in (stmt.body, stmt.orelse):
        if len(arm) == 1 and isinstance(arm[0], gast.If) and arm is stmt.orelse:
            inner = _arms(arm[0], name_)
            if inner is None:
                return None
            out += inner
            continue
        at = next((k for k, s in enumerate(arm) if _uses(s, name_)), None)
        if at is None or not _literal_binding(arm[at], name_):
            return None
        out.append((arm, at))
    return out


def _literal_binding(stmt, name_) -> bool:
    return (isinstance(stmt, gast.Assign) and len(stmt.targets) == 1
            and isinstance(stmt.targets[0], gast.Name) and stmt.targets[0].id == name_
            and isinstance(stmt.value, gast.List) and not _uses(stmt.value, name_)
            and not any(isinstance(e, gast.Starred) for e in stmt.value.elts))


def _uses(tree, name_) -> bool:
    return any(isinstance(n, gast.Name) and n.id == name_ for n in S.nodes(tree))
