"""Induction counters: integers the reverse sweep restores by undoing their steps instead of
reading them from the tape.

A counter `c` qualifies when the source proves it (otherwise it is taped as any value is):
* its type is int, and it has exactly one plain binding `c = e` (the *start*) and one or more
  *steps* `c += s`, `c -= s`, `c = c + s`, `c = c - s`, `c = s + c` (`s` does not read `c`),
  and no other binding (no tuple target, loop target or walrus);
* every step sits after the start in the start's block, either directly or inside `for`
  loops only (no `if`, `while` or `try` between): each step runs once per iteration of the
  loops around it, so the reverse sweep, which visits the same iterations, runs its inverse
  (`c -= s`) exactly as often;
* nothing in the *region* (the statements of that block from the start to the last one holding
  a step) exits early (`break`, `continue`, `return`).

Inside the region the reverse sweep then holds `c` at the value the forward sweep had at the
matching point: at the start of the region's reverse `c` is the value the region left (the
end of the run; in a loop, a value pushed once per run of the region), and the reverse of each
step undoes it. This is how Tapenade and Enzyme treat induction variables: gmm's
`lparamsidx += 1`, an index into the packed lower triangle, went on the tape once per
inner-loop iteration.
"""

from __future__ import annotations

from dataclasses import dataclass

import gast

from srcad.analysis.types import INT
from srcad.frontend.syntax import bound_names, loaded_names


@dataclass(frozen=True, eq=False)
class Induction:
    """A counter `name`: its start, its steps (id(statement) -> (inverse op, step)), the block
    holding the start and the region `block[first:last + 1]` (after the start up to the last
    statement holding a step)."""

    name: str
    start: gast.Assign
    steps: dict
    block: list
    first: int
    last: int

    def in_region(self, path) -> bool:
        """Is a statement at `path` (recording.py's sites) inside the region?"""
        return any(block is self.block and self.first <= index <= self.last
                   for block, index, _ in path)


def induction_counters(body: list, types) -> dict:
    """{name: Induction} for the int counters of `body` the module docstring describes."""
    bindings: dict = {}  # name -> [(statement, path of blocks and indices)]
    _collect(body, (), bindings)
    out = {}
    for name, sites in bindings.items():
        if types.env.get(name) != INT:
            continue
        found = _induction(name, sites)
        if found is not None:
            out[name] = found
    return out


def _collect(block, path, bindings):
    for index, stmt in enumerate(block):
        here = path + ((block, index, stmt),)
        for name in _binds_here(stmt):
            bindings.setdefault(name, []).append((stmt, here))
        for field in ("body", "orelse", "handlers", "finalbody"):
            sub = getattr(stmt, field, None)
            if isinstance(sub, list):
                _collect(sub, here, bindings)


def _binds_here(stmt) -> set:
    """The names `stmt` itself binds (not its nested blocks)."""
    if isinstance(stmt, (gast.For, gast.While, gast.If, gast.Try)):
        header = gast.For(target=stmt.target, iter=stmt.iter, body=[], orelse=[],
                          type_comment=None) if isinstance(stmt, gast.For) else None
        walrus = {n.target.id for field in ("test", "iter") if getattr(stmt, field, None)
                  for n in gast.walk(getattr(stmt, field)) if isinstance(n, gast.NamedExpr)}
        return (bound_names(header) if header is not None else set()) | walrus
    return bound_names(stmt)


def _induction(name, sites):
    starts = [(s, p) for s, p in sites if _is_start(s, name)]
    if len(starts) != 1:
        return None
    start, start_path = starts[0]
    block, start_index = start_path[-1][0], start_path[-1][1]
    depth = len(start_path) - 1
    steps, last = {}, None
    for stmt, path in sites:
        if stmt is start:
            continue
        step = _step(stmt, name)
        if step is None:
            return None
        # after the start, in its block, through for loops only
        if len(path) <= depth or path[depth][0] is not block \
                or path[depth][1] <= start_index \
                or any(p[0] is not q[0] or p[1] != q[1]
                       for p, q in zip(path[:depth], start_path[:depth])):
            return None
        if not all(isinstance(owner, gast.For) for _, _, owner in path[depth:-1]):
            return None
        steps[id(stmt)] = step
        last = max(last or 0, path[depth][1])
    if not steps:
        return None
    region = block[start_index + 1:last + 1]
    if any(isinstance(n, (gast.Break, gast.Continue, gast.Return))
           for stmt in region for n in gast.walk(stmt)):
        return None
    return Induction(name, start, steps, block, start_index + 1, last)


def _is_start(stmt, name) -> bool:
    return isinstance(stmt, gast.Assign) and len(stmt.targets) == 1 \
        and isinstance(stmt.targets[0], gast.Name) and stmt.targets[0].id == name \
        and name not in loaded_names(stmt.value)


def _step(stmt, name):
    """(the inverse operator, the step) of a step of `name`, else None."""
    if isinstance(stmt, gast.AugAssign) and isinstance(stmt.target, gast.Name) \
            and isinstance(stmt.op, (gast.Add, gast.Sub)) \
            and name not in loaded_names(stmt.value):
        return (gast.Sub() if isinstance(stmt.op, gast.Add) else gast.Add()), stmt.value
    if not (isinstance(stmt, gast.Assign) and len(stmt.targets) == 1
            and isinstance(stmt.targets[0], gast.Name) and isinstance(stmt.value, gast.BinOp)
            and isinstance(stmt.value.op, (gast.Add, gast.Sub))):
        return None
    left, right, op = stmt.value.left, stmt.value.right, stmt.value.op
    if isinstance(left, gast.Name) and left.id == name and name not in loaded_names(right):
        return (gast.Sub() if isinstance(op, gast.Add) else gast.Add()), right
    if isinstance(op, gast.Add) and isinstance(right, gast.Name) and right.id == name \
            and name not in loaded_names(left):
        return gast.Sub(), left
    return None
