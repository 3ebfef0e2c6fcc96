"""Forward mode: which tangents can be read on a path where they were never set, and their
zeros at entry.

A variable is active as a whole (the activity analysis is flow-insensitive), but its tangent
only exists once a statement of the tangent code has set it. A `Const` argument that becomes
active on one path (`if a > b: a = a * b`; then `return a`) has a value from the start and no
tangent until the assignment: reading `a_dot` on the other path is an UnboundLocalError (or,
in numba vector mode, a read of uninitialised lane memory). Its tangent there is zero: the
value does not depend on the varied inputs on that path.

`UnsetTangents` follows the forward transform statement by statement with the set of tangents
set on *every* path so far (definite assignment): a branch keeps what both arms set, a loop
what was set before it (it may run zero times). A tangent read outside that set is recorded,
and the transform initialises those to zero at entry; a later assignment overwrites the zero,
so the initialisation is never wrong, only sometimes unneeded.

An array's zero has its shape, known at entry only for an argument: `np.zeros_like(a)` (a
number, `0.0`, would make `a_dot` an array on one path and a number on another, which forward
mode refuses when it differentiates this code again: third derivatives). The primal values are
followed too: an array tangent read where its primal is itself unset on some path (`sin =
np.sin(x)` under `if x[0] > 0:`, read under the same test again in srcad's reverse code) is
read with its primal, which that path would not reach without an UnboundLocalError; it is
not zeroed.
"""

from __future__ import annotations

from srcad.analysis.definite_assignment import DefiniteAssignment
from srcad.analysis.types import Array
from srcad.frontend import syntax as S


class UnsetTangents(DefiniteAssignment):
    """The variables whose tangent is set on every path so far (`set`), those whose tangent
    some path reads unset (`unset_reads`), and those read so while their primal value is set
    on every path (`primal_set_reads`): srcad/analysis/definite_assignment.py over the tangent
    statements, and over the primal assignments (`assigned`) alongside.

    >>> paths = UnsetTangents(seeded=(), params=("a",))
    >>> paths.branch([lambda: (paths.assigned("t"), paths.write("t")), lambda: None])
    >>> paths.read("a"); paths.read("t")
    >>> sorted(paths.unset_reads), sorted(paths.primal_set_reads)
    (['a', 't'], ['a'])
    """

    def __init__(self, seeded, params):
        super().__init__(seeded)
        self.primals = DefiniteAssignment(params)
        self.params = frozenset(params)
        self.primal_set_reads: set = set()

    def read(self, name: str) -> None:
        if name not in self.set and name in self.primals.set:
            self.primal_set_reads.add(name)
        super().read(name)

    def assigned(self, name: str) -> None:
        """The primal `name` is bound by the statement just walked."""
        self.primals.write(name)

    def branch(self, arms) -> None:
        self._both("branch", arms)

    def loop(self, parts) -> None:
        self._both("loop", parts)

    def _both(self, kind, parts) -> None:
        """Walk `parts` once, following the tangents' and the primals' paths together."""
        before, after = set(self.primals.set), []

        def walked(part):
            def walk():
                self.primals.set = set(before)
                part()
                after.append(self.primals.set)
            return walk
        getattr(DefiniteAssignment, kind)(self, [walked(p) for p in parts])
        self.primals.set = set.intersection(*after) if kind == "branch" and after else before

    def zeros(self, types, styles, target_tangent) -> list:
        """The statements that zero, at entry, the tangents some path reads unset: a number's
        `0.0`, an argument array's `np.zeros_like`; an array read only where its primal may
        be unset too is left alone (module docstring)."""
        unset = []
        for v in sorted(self.unset_reads):
            if not isinstance(types[v], Array):
                unset.append((v, lambda k: S.const(0.0)))
            elif v in self.params and v in self.primal_set_reads:
                unset.append((v, lambda k, v=v: styles[k].zeros_like(v)))
            elif v in self.primal_set_reads:
                unset.append((v, lambda k: S.const(0.0)))  # its shape is not known at entry
        if not unset:
            return []
        zeros = [S.assign(target_tangent(k, S.name(v)), zero(k))
                 for v, zero in unset for k in range(len(styles))]
        return [S.comment(f"read before set on some path: zero tangents for "
                          f"{', '.join(v for v, _ in unset)}")] + styles[0].wrap(zeros)
