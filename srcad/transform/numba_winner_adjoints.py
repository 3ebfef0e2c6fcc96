"""numba, reverse mode: the reverse loop of a running `max`/`min` read for
srcad/transform/numba_extremum_winners.py: the comparisons `X > m` (`X < m`) that say a step
set `m`, whether every other addition of the loop is zero when they are false, and the loop's
statements for the step that set `m` (each select on the comparison replaced by its taken
branch). What a step adds is read by srcad/transform/numba_step_effects.py.

>>> import gast
>>> from srcad.frontend import syntax as S
>>> rest = S.parse_stmts("g = m_bar\\n"
...                      "m_bar = 0.0\\n"
...                      "m_bar += 0.0 if x[i] > m else g\\n"
...                      "x_bar[i] += (g if x[i] > m else 0.0) * y[i]\\n")
>>> compares, m_bar = reverse_compares(rest, "m", gast.Gt, "tape", "c", {"m_bar", "x_bar"})
>>> [S.unparse_expr(c) for c in compares]
['x[i] > m', 'x[i] > m']
>>> taken = TakenStep({id(c) for c in compares}).visit
>>> [S.unparse_expr(taken(s).value) for s in rest[2:]]
['0.0', 'g * y[i]']
>>> reverse_compares(S.parse_stmts("g = m_bar\\nm_bar = 0.0\\nm_bar += 0.0 if x[i] > m else g\\n"
...                                "x_bar[i] += g * y[i]\\n"), "m", gast.Gt, "tape", "c",
...                  {"m_bar", "x_bar"}) is None
True

A temporary carried from the step before cannot be recomputed at the winner's step alone:

>>> reverse_compares(S.parse_stmts("t = t * 2.0\\n" + "g = m_bar\\nm_bar = 0.0\\n"
...                                "m_bar += 0.0 if x[i] > m else g\\n"
...                                "x_bar[i] += (g if x[i] > m else 0.0) * t\\n"),
...                  "m", gast.Gt, "tape", "c", {"m_bar", "x_bar"}) is None
True
"""

from __future__ import annotations

import gast

from srcad.frontend import syntax as S
from srcad.transform.numba_extremum_lanes import _pure
from srcad.transform.numba_step_effects import _is_unshared, follow, target_name


def reverse_compares(rest, m, taken, tape, counter, adjoints):
    """(the comparisons `X > m` (`X < m`), `m`'s adjoint) of the reverse loop's statements
    after the pops when they have the shape srcad/transform/numba_extremum_winners.py reads:
    temporaries, `g = m_bar`, `m_bar = 0.0`, then temporaries and additions; else None."""
    start = next((k for k in range(len(rest) - 1) if _takes_adjoint(rest[k], rest[k + 1],
                                                                     adjoints)), None)
    if start is None:
        return None
    g, m_bar = rest[start].targets[0].id, rest[start].value.id
    temporaries = rest[:start]  # temporaries the step's adjoints read
    for k, stmt in enumerate(temporaries):
        if not (isinstance(stmt, gast.Assign) and len(stmt.targets) == 1
                and isinstance(stmt.targets[0], gast.Name) and _pure(stmt.value)) \
                or S.loaded_names(stmt.value) & (set(adjoints) | {g, m, tape, counter}) \
                or stmt.targets[0].id in (g, m, m_bar, tape, counter):
            return None
        # one carried from the step before (`t = t * 2.0`) would be wrong at the winner's
        # step replayed alone
        if S.loaded_names(stmt.value) & _bound(temporaries[k:]):
            return None
    rest = rest[start:]
    compares = [n for s in rest for n in S.walk(s) if isinstance(n, gast.Compare)
                and m in S.loaded_names(n)]
    if not compares or any(
            len(c.ops) != 1 or not isinstance(c.ops[0], taken)
            or not isinstance(c.comparators[0], gast.Name) or c.comparators[0].id != m
            or m in S.loaded_names(c.left) or gast.dump(c) != gast.dump(compares[0])
            for c in compares):
        return None
    test = S.unparse_expr(compares[0])
    tests = {id(c) for c in compares}
    selects = [n for s in rest for n in S.walk(s) if isinstance(n, gast.IfExp)
               and id(n.test) in tests]
    if len(selects) != len(compares):
        return None  # a comparison outside a select
    restores, steps = [], []
    for stmt in rest[2:]:
        names = {n.id for n in S.walk(stmt) if isinstance(n, gast.Name)}
        if names & {tape, counter} or not _read_in_selects(stmt, g, tests):
            return None
        if isinstance(stmt, gast.AugAssign) and isinstance(stmt.target, gast.Name) \
                and stmt.target.id == m_bar:
            restores.append(stmt)
            continue
        if m_bar in names or (isinstance(stmt, gast.Assign) and len(stmt.targets) == 1
                              and isinstance(stmt.targets[0], gast.Name)
                              and stmt.targets[0].id in (g, m)) \
                or (isinstance(stmt, gast.AugAssign)
                    and target_name(stmt.target) not in adjoints):
            return None
        steps.append(stmt)
    # what the other steps add is zero when the comparison is false
    false = {id(c): False for c in compares}
    if len(restores) != 1 or not _restores(restores[0], m_bar, test, g) \
            or follow(steps, decide=lambda t: false.get(id(t)), adjoints=adjoints,
                      allowed=_pure) is None:
        return None
    return compares, m_bar


def _bound(stmts) -> set[str]:
    """The names the single-name assignments among `stmts` bind."""
    return {s.targets[0].id for s in stmts if isinstance(s, gast.Assign)
            and len(s.targets) == 1 and isinstance(s.targets[0], gast.Name)}


def _takes_adjoint(stmt, next_stmt, adjoints) -> bool:
    """Whether `stmt` is `g = m_bar` for an adjoint `m_bar` and `next_stmt` `m_bar = 0.0`."""
    return isinstance(stmt, gast.Assign) and len(stmt.targets) == 1 \
        and isinstance(stmt.targets[0], gast.Name) and isinstance(stmt.value, gast.Name) \
        and stmt.value.id in adjoints and gast.dump(next_stmt) == gast.dump(
            S.parse_stmts(f"{stmt.value.id} = 0.0")[0])


def _read_in_selects(stmt, g, tests) -> bool:
    """Whether every read of `g` in `stmt` is inside a select on one of `tests`."""
    inside = {id(n) for s in S.walk(stmt) if isinstance(s, gast.IfExp) and id(s.test) in tests
              for n in S.walk(s)}
    return all(id(n) in inside for n in S.walk(stmt)
               if isinstance(n, gast.Name) and n.id == g and isinstance(n.ctx, gast.Load))


def _restores(stmt, m_bar, test, g) -> bool:
    """Whether `stmt` is `m_bar += 0.0 if C else g` (or through `unshared(m_bar, ...)`)."""
    value = stmt.value
    if _is_unshared(value):
        if not S.same(value.args[0], S.name(m_bar)):
            return False
        value = value.args[1]
    return isinstance(stmt.op, gast.Add) \
        and S.same(value, S.parse_expr(f"0.0 if {test} else {g}"))


class TakenStep(gast.NodeTransformer):
    """The reverse loop's statement for the step that set `m`: each select on the
    comparison replaced by its taken branch."""

    def __init__(self, tests):
        self.tests = tests

    def visit_IfExp(self, node):
        if id(node.test) in self.tests:
            return self.visit(node.body)
        return self.generic_visit(node)
