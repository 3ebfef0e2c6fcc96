"""An `if` whose condition differs between examples, lifted as JAX lifts it: both branches
computed for the whole batch, each variable they assign chosen per example with `np.where`.

Only branches of plain assignments to names are lifted (`a = ...`, `s += ...` of a number):
a branch writing into an array, looping or returning keeps the body from being lifted. A
branch computed for examples that do not take it may meet a floating-point error or index
out of bounds; the caller then runs the examples one at a time (srcad/build/batched_calls.py),
so what an example raises is what it raises alone.

>>> import gast, numpy
>>> from srcad.transform.batching.statements import lift
>>> tree = gast.parse("def f(x):\\n    if x > 0:\\n        x = x * 2.0\\n    return x").body[0]
>>> print(lift(tree, {"x": (True, 0)}, {"np": numpy}).source.strip())
def f_vmap(x, batch_size):
    chosen = x > 0
    x_then = x * 2.0
    x = np.where(chosen, x_then, x)
    return x
"""

from __future__ import annotations

import gast

from srcad.transform.batching.core import NotLiftable, Value, aligned


def select(body, node, test: Value, pad: str, bind=None) -> list:
    """The lines of `if test: ... else: ...` per example; `body` is the statements' `_Body`
    (its names are updated to the chosen values). `bind(name, value)`: the line binding a
    chosen value (an `if` inside a branch binds the branch's version of the name)."""
    if bind is None:
        def bind(name, value):
            return f"{name} = {body.bind(name, value, node)}"
    taken = body.fresh("chosen")
    lines = [pad + f"{taken} = {test.text}"]
    before = dict(body.names)
    branches = []
    for statements, suffix in ((node.body, "then"), (node.orelse, "else")):
        body.names.clear()
        body.names.update(before)
        assigned = {}
        for statement in statements:
            lines += _assignment(body, statement, suffix, assigned, pad)
        branches.append(assigned)
    body.names.clear()
    body.names.update(before)
    for name in sorted(set(branches[0]) | set(branches[1])):
        versions = [branch.get(name) or before.get(name) for branch in branches]
        if None in versions:
            raise NotLiftable(f"{name} assigned in one branch only", node)
        rank = versions[0].rank
        if rank is None or versions[1].rank != rank or test.rank != 0:
            raise NotLiftable(f"{name} of another or unknown rank in each branch", node)
        condition = aligned(Value(taken, test.batched, 0), rank)
        batched = test.batched or versions[0].batched or versions[1].batched
        chosen = Value(f"np.where({condition}, {versions[0].text}, {versions[1].text})",
                       batched, rank)
        lines.append(pad + bind(name, chosen))
    return lines


def _assignment(body, statement, suffix, assigned, pad):
    """One statement of a branch: its value bound to the branch's own version of the name."""
    if isinstance(statement, gast.Pass):
        return []
    if isinstance(statement, gast.If):  # chosen per example too, into this branch's names
        def bind(name, value):
            version = body.fresh(f"{name}_{suffix}")
            assigned[name] = body.names[name] = Value(version, value.batched, value.rank)
            return f"{version} = {value.text}"
        test = body.expressions.lift(statement.test)
        return select(body, statement, test, pad, bind)
    if isinstance(statement, gast.Assign) and len(statement.targets) == 1 \
            and isinstance(statement.targets[0], gast.Name):
        name = statement.targets[0].id
        value = body.expressions.lift(statement.value)
    elif isinstance(statement, gast.AugAssign) and isinstance(statement.target, gast.Name) \
            and statement.target.id in body.names and body.names[statement.target.id].rank == 0:
        name = statement.target.id
        symbol = {gast.Add: "+", gast.Sub: "-", gast.Mult: "*", gast.Div: "/"}.get(
            type(statement.op))
        if symbol is None:
            raise NotLiftable("this augmented assignment", statement)
        value = body.expressions.elementwise(
            lambda a, b: f"{a} {symbol} {b}",
            [body.names[name], body.expressions.lift(statement.value)], statement)
    else:
        raise NotLiftable("a branch differing between examples that does more than assign "
                          "names", statement)
    version = body.fresh(f"{name}_{suffix}")
    assigned[name] = Value(version, value.batched, value.rank)
    body.names[name] = assigned[name]
    return body._comment(statement, pad.count("    ")) + [pad + f"{version} = {value.text}"]
