"""Definite assignment along the paths of a structured body: the names set on *every* path to
the current statement, and the names some path reads before setting them.

A branch keeps what all its arms set (or what was set before it); a loop keeps what was set
before it, since it may run zero times, and its `else` starts from there too (it runs after
zero or more iterations). The caller walks its own statements and reports reads and writes; the
rules of the paths live here once, for forward mode's tangents
(srcad/transform/forward/unset_tangents.py) and numba's possibly unset locals
(srcad/transform/defined.py).

>>> paths = DefiniteAssignment({"x"})
>>> paths.branch([lambda: paths.write("t"), lambda: paths.write("u")])
>>> paths.read("x"); paths.read("t")
>>> sorted(paths.unset_reads)
['t']
"""

from __future__ import annotations

import gast


class DefiniteAssignment:
    def __init__(self, set_on_entry):
        self.set = set(set_on_entry)  # names set on every path to the current statement
        self.unset_reads: set = set()  # names some path reads before setting them

    def read(self, name: str) -> None:
        if name not in self.set:
            self.unset_reads.add(name)

    def write(self, name: str) -> None:
        self.set.add(name)

    def branch(self, arms) -> None:
        """`arms`: one callable per arm of a conditional, each walking its block; after them,
        a name is set if every arm set it (or it was set before)."""
        before, after = self.set, None
        for arm in arms:
            self.set = set(before)
            arm()
            after = self.set if after is None else after & self.set
        self.set = after if after is not None else before

    def loop(self, parts) -> None:
        """`parts`: the body and the `else` of a loop, each walked from what was set before
        the loop (the body may run zero times); nothing they set is set after it."""
        before = self.set
        for part in parts:
            self.set = set(before)
            part()
        self.set = before


def bound_on_every_branch(body, set_on_entry=()) -> set:
    """The names every path through `body`'s branches binds (`name = ...`): an `if` keeps what
    all its arms bind; a loop's body counts as run (only branches are told apart here)."""
    paths = DefiniteAssignment(set_on_entry)

    def walk(stmts):
        for stmt in stmts:
            if isinstance(stmt, gast.If):
                paths.branch([lambda b=stmt.body: walk(b), lambda b=stmt.orelse: walk(b)])
            elif isinstance(stmt, (gast.For, gast.While)):
                walk(stmt.body)
            elif isinstance(stmt, gast.Assign):
                for target in stmt.targets:
                    if isinstance(target, gast.Name):
                        paths.write(target.id)
    walk(body)
    return paths.set
