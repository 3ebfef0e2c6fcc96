"""Which statements between two runs of adjoint statements may run before both, so that the
two runs share one loop over the lanes (srcad/operators/batched_lanes.py).

The batched reverse code loops over the lanes around each run of consecutive adjoint
statements; the primal and tape statements between two runs (`tape_size -= 1`,
`mul_19 = z * y`) split them into two loops, each of which numba types and lowers and LLVM
optimizes and vectorizes apart (ht's reverse jacobian: 49 loops). A statement that runs before
the loop of the run it follows, instead of after it, leaves the run open. It may when
`moves_before(stmt, run_names, counters)` says that

* it writes no memory: it binds names only (an assignment to names, or `n -= 1` of an
  integer counter), so no array the adjoint statements read through another name changes;
* it calls nothing but `math` functions, plain builtins and a list's `pop()` (a tape's);
* it shares no variable with the run: it reads nothing the run writes and binds nothing the
  run reads or writes.

Each lane then computes the same operations on the same values in the same order as before,
and the primal statements keep their order among themselves: the results are the same to the
last bit.

>>> import ast
>>> moves_before(ast.parse("b = math.cos(a)").body[0], {"x_bar", "c"}, set())
True
>>> moves_before(ast.parse("c = tape[n]").body[0], {"x_bar", "c"}, set())
False
"""

from __future__ import annotations

import ast

_PURE_BUILTINS = {"abs", "min", "max", "float", "int", "bool", "len", "range", "pow", "round"}


def variables(function: ast.FunctionDef) -> set:
    """The names `function` binds (its parameters and every assigned name): what two
    statements can share; the others are modules and globals (`math`, `np`)."""
    names = {a.arg for a in ast.walk(function.args) if isinstance(a, ast.arg)}
    return names | {n.id for n in ast.walk(function) if isinstance(n, ast.Name)
                    and isinstance(n.ctx, ast.Store)}


def integer_counters(function: ast.FunctionDef) -> set:
    """Names every assignment of which is integer arithmetic of int constants, `len(...)`,
    `x.shape[k]` and other such names (`tape_size = 0`, `tape_size += 2 * len(range(n))`):
    `-=` of one rebinds an int and writes no memory."""
    assignments = {}
    for node in ast.walk(function):
        if isinstance(node, ast.Assign):
            for target in node.targets:
                for name in ast.walk(target):
                    if isinstance(name, ast.Name):
                        assignments.setdefault(name.id, []).append(
                            node.value if isinstance(target, ast.Name) else None)
        elif isinstance(node, ast.AugAssign) and isinstance(node.target, ast.Name):
            assignments.setdefault(node.target.id, []).append(node.value)
        elif isinstance(node, (ast.For, ast.comprehension)):
            for name in ast.walk(node.target):
                if isinstance(name, ast.Name):
                    assignments.setdefault(name.id, []).append(None)
    counters = set(assignments)
    changed = True
    while changed:
        changed = False
        for name in list(counters):
            if not all(value is not None and _integer(value, counters)
                       for value in assignments[name]):
                counters.discard(name)
                changed = True
    return counters


def _integer(value, counters) -> bool:
    if isinstance(value, ast.Constant):
        return type(value.value) is int
    if isinstance(value, ast.Name):
        return value.id in counters
    if isinstance(value, ast.BinOp) and isinstance(value.op, (ast.Add, ast.Sub, ast.Mult,
                                                              ast.FloorDiv)):
        return _integer(value.left, counters) and _integer(value.right, counters)
    if isinstance(value, ast.Subscript):  # `x.shape[0]`
        return isinstance(value.value, ast.Attribute) and value.value.attr == "shape" \
            and isinstance(value.slice, ast.Constant) and type(value.slice.value) is int
    return isinstance(value, ast.Call) and isinstance(value.func, ast.Name) \
        and value.func.id == "len" and not value.keywords


def moves_before(stmt, run_names: set, counters: set) -> bool:
    """May `stmt` (no adjoint in it) run before the adjoint statements whose variables are
    `run_names`? (the module doc)"""
    if isinstance(stmt, ast.Assign):
        if not all(isinstance(n, ast.Name) for t in stmt.targets
                   for n in ([t] if isinstance(t, ast.Name) else getattr(t, "elts", [t]))):
            return False  # a store into an element or a slice writes memory
    elif isinstance(stmt, ast.AugAssign):
        if not (isinstance(stmt.target, ast.Name) and stmt.target.id in counters):
            return False  # `a -= b` of an array writes into it
    else:
        return False
    for node in ast.walk(stmt.value):
        if isinstance(node, ast.Call) and not _pure_call(node):
            return False
        if isinstance(node, (ast.NamedExpr, ast.Lambda, ast.Yield, ast.YieldFrom, ast.Await,
                             ast.ListComp, ast.SetComp, ast.DictComp, ast.GeneratorExp)):
            return False
    names = {n.id for n in ast.walk(stmt) if isinstance(n, ast.Name)}
    return not names & run_names


def _pure_call(call: ast.Call) -> bool:
    func = call.func
    if isinstance(func, ast.Name):
        return func.id in _PURE_BUILTINS
    if isinstance(func, ast.Attribute) and isinstance(func.value, ast.Name):
        if func.value.id == "math":
            return True
        return func.attr == "pop" and not call.args and not call.keywords  # a tape's
    return False
