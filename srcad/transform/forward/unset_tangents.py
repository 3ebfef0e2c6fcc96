"""Forward mode: which scalar tangents can be read on a path where they were never set.

A variable is active as a whole (the activity analysis is flow-insensitive), but its tangent
only exists once a statement of the tangent code has set it. A `Const` argument that becomes
active on one path (`if a > b: a = a * b`; then `return a`) has a value from the start and no
tangent until the assignment: reading `a_dot` on the other path is an UnboundLocalError (or,
in numba vector mode, a read of uninitialised lane memory). Its tangent there is zero: the
value does not depend on the varied inputs on that path.

`UnsetTangents` follows the forward transform statement by statement with the set of scalar
tangents set on *every* path so far (definite assignment): a branch keeps what both arms set,
a loop what was set before it (it may run zero times). A tangent read outside that set is
recorded, and the transform initialises exactly those to zero at entry; a later assignment
overwrites the zero, so the initialisation is never wrong, only sometimes unneeded.
"""

from __future__ import annotations


class UnsetTangents:
    def __init__(self, set_on_entry):
        self.set = set(set_on_entry)  # tangents set on every path to the current statement
        self.unset_reads: set = set()  # variables whose tangent some path reads unset

    def read(self, variable: str) -> None:
        if variable not in self.set:
            self.unset_reads.add(variable)

    def write(self, variable: str) -> None:
        self.set.add(variable)

    def branch(self, arms) -> None:
        """`arms`: one callable per arm of a conditional, each transforming its block; after
        them, a tangent is set if every arm set it (or it was set before)."""
        before, after = self.set, None
        for arm in arms:
            self.set = set(before)
            arm()
            after = self.set if after is None else after & self.set
        self.set = after if after is not None else before

    def loop(self, parts) -> None:
        """`parts`: the body (and `else`) of a loop, transformed in order; a loop may run zero
        times, so what it sets is not set after it."""
        before = self.set
        self.set = set(before)
        for part in parts:
            part()
        self.set = before
