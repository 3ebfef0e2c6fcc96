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

from srcad.analysis.definite_assignment import DefiniteAssignment


class UnsetTangents(DefiniteAssignment):
    """The variables whose scalar tangent is set on every path so far (`set`), and those
    whose tangent some path reads unset (`unset_reads`): srcad/analysis/definite_assignment.py
    over the tangent statements."""
