"""numba, reverse mode: a `for` loop's tape reservation counts the records its code makes after
the numba rewrites, not those the reverse transform planned.

The reverse transform reserves a loop's records before the loop
(`tape = reserve_tape(tape, tape_size + 2 * len(range(k)) * len(range(n)))`, from the records
it planned per iteration); a later rewrite may record less: two values recorded only to be
compared become one flag (srcad/transform/numba_compare_tapes.py), so k-means' `dir` reserved
twice the tape it wrote (at k=1000, n=10000: 160 MB for 80 MB of flags). Here the count is
taken again from the code: each `tape_size += c` in the statements after the reservation,
up to the first that pops the tape (`tape_size -= c`) or rebinds it or its size otherwise,
times the trip counts `len(range(...))` of the `for` loops around it there. A record in a
branch counts as if the branch were always taken and a loop left early as if it ran every
iteration, so the count bounds the records from above, as a reservation must.

The count stays as it was when those statements hold a `while` loop, a function, or a `for`
loop over something other than `range` or whose bounds they assign, or when the reservation
is not followed (past other reservations, comments and constants assigned) by a `for` loop.

>>> from srcad.build.codegen import to_source
>>> tree = gast.parse("def f(tape, tape_size, x, n, k):\\n"
...                   "    tape = reserve_tape(tape,\\n"
...                   "                        tape_size + 2 * len(range(k)) * len(range(n)))\\n"
...                   "    for i in range(n):\\n"
...                   "        for j in range(k):\\n"
...                   "            tape[tape_size] = 1.0 if x[j] < x[i] else 0.0\\n"
...                   "            tape_size += 1\\n"
...                   "    tape_size -= 1\\n"
...                   "    return x\\n")
>>> print(to_source(exact_tape_counts(tree)).splitlines()[1].strip())
tape = reserve_tape(tape, tape_size + len(range(k)) * len(range(n)))
"""

from __future__ import annotations

import gast

from srcad.frontend import syntax as S
from srcad.transform.numba_extremum_lanes import _pure
from srcad.transform.simplify import simplify


def exact_tape_counts(tree):
    """`tree` with each reservation the module docstring describes counted again (in place)."""
    for node in list(S.walk(tree)):
        for field in ("body", "orelse"):
            block = getattr(node, field, None)
            if isinstance(block, list):
                for k, stmt in enumerate(block):
                    tape, size = _reservation(stmt)
                    if tape is not None:
                        count = _count_after(block, k, tape, size)
                        if count is not None:
                            stmt.value.args[1] = gast.BinOp(left=S.name(size), op=gast.Add(),
                                                            right=count)
    return tree


def _reservation(stmt):
    """(tape, size) of `tape = reserve_tape(tape, size + count)`, else (None, None)."""
    value = stmt.value if isinstance(stmt, gast.Assign) and len(stmt.targets) == 1 else None
    if not (isinstance(value, gast.Call) and isinstance(value.func, gast.Name)
            and value.func.id == "reserve_tape" and len(value.args) == 2
            and isinstance(stmt.targets[0], gast.Name)
            and isinstance(value.args[0], gast.Name)
            and value.args[0].id == stmt.targets[0].id
            and isinstance(value.args[1], gast.BinOp) and isinstance(value.args[1].op, gast.Add)
            and isinstance(value.args[1].left, gast.Name)):
        return None, None
    return stmt.targets[0].id, value.args[1].left.id


def counted_again(fn, node, tape: str, size: str) -> bool:
    """Whether `exact_tape_counts` counts the records of `node`, a statement of `fn`, in the
    reservation of `tape` before it (the nearest one, in its block or a block around it)."""
    path = _path(fn.body, node)
    for block, position in reversed(path or []):
        for k in range(position - 1, -1, -1):
            if _reservation(block[k]) == (tape, size):
                region = _region_after(block, k, tape, size)
                return region is not None and any(s is block[position] for s in region) \
                    and _count_after(block, k, tape, size) is not None
            if _ends_region(block[k], tape, size):
                return False
    return False


def _path(block, node):
    """[(block, index)] from `block` down to the statement `node`, or None."""
    for k, stmt in enumerate(block):
        if stmt is node:
            return [(block, k)]
        for field in ("body", "orelse"):
            inner = getattr(stmt, field, None)
            if isinstance(inner, list):
                found = _path(inner, node)
                if found is not None:
                    return [(block, k)] + found
    return None


def _region_after(block, k, tape, size):
    """The statements after the reservation `block[k]` whose records it holds (to the first
    that pops or rebinds the tape), when a `for` loop follows it; else None."""
    rest = block[k + 1:]
    first = next((s for s in rest if not (S.is_comment(s) or _reservation(s)[0] is not None
                                          or _constant_assignment(s))), None)
    if not isinstance(first, gast.For):
        return None
    region = []
    for stmt in rest:
        if _ends_region(stmt, tape, size):
            break
        region.append(stmt)
    if not any(stmt is first for stmt in region):  # the loop reserved for is counted
        return None
    return region


def _count_after(block, k, tape, size):
    region = _region_after(block, k, tape, size)
    if region is None:
        return None
    assigned = {n.id for s in region for n in S.walk(s)
                if isinstance(n, gast.Name) and isinstance(n.ctx, gast.Store)}
    count = _records(region, tape, size, assigned)
    return None if count is _UNCOUNTED or count is None else simplify(count, integers=True)


def _constant_assignment(stmt) -> bool:
    return isinstance(stmt, gast.Assign) and isinstance(stmt.value, gast.Constant)


def _ends_region(stmt, tape, size) -> bool:
    """Whether `stmt` (at the reservation's level) pops `tape` or rebinds it or its size other
    than by `size += c`: the records after it are not this reservation's."""
    for node in S.walk(stmt):
        if isinstance(node, gast.AugAssign) and isinstance(node.target, gast.Name) \
                and node.target.id == size:
            if not (isinstance(node.op, gast.Add) and _step(node.value)):
                return True
        elif isinstance(node, (gast.Assign, gast.For)) and any(
                isinstance(n, gast.Name) and n.id in (tape, size)
                and isinstance(n.ctx, gast.Store)
                for t in getattr(node, "targets", [getattr(node, "target", None)])
                for n in S.walk(t)):
            return True
    return False


def _step(value) -> bool:
    return isinstance(value, gast.Constant) and type(value.value) is int and value.value >= 0


def _records(statements, tape, size, assigned):
    """An upper bound of the records `statements` make (an expression: the records they make
    themselves, then those of their loops and branches, as the reverse transform writes it),
    None when they make none, or _UNCOUNTED."""
    own, terms = 0, []
    for stmt in statements:
        if isinstance(stmt, gast.AugAssign) and isinstance(stmt.target, gast.Name) \
                and stmt.target.id == size:
            own += stmt.value.value
        elif isinstance(stmt, gast.For) and _records_in([stmt], size):
            inner = _records(stmt.body + stmt.orelse, tape, size, assigned)
            trips = _trips(stmt, assigned)
            if inner is _UNCOUNTED or trips is None:
                return _UNCOUNTED
            terms.append(gast.BinOp(left=inner, op=gast.Mult(), right=trips))
        elif isinstance(stmt, gast.If) and _records_in([stmt], size):
            for branch in (stmt.body, stmt.orelse):
                inner = _records(branch, tape, size, assigned)
                if inner is _UNCOUNTED:
                    return _UNCOUNTED
                if inner is not None:
                    terms.append(inner)
        elif _records_in([stmt], size):  # a while loop, a function, ...
            return _UNCOUNTED
    terms = ([S.const(own)] if own else []) + terms
    if not terms:
        return None
    total = terms[0]
    for term in terms[1:]:
        total = gast.BinOp(left=total, op=gast.Add(), right=term)
    return total


_UNCOUNTED = object()


def _records_in(statements, size) -> bool:
    return any(isinstance(n, gast.AugAssign) and isinstance(n.target, gast.Name)
               and n.target.id == size for s in statements for n in S.walk(s))


def _trips(loop, assigned):
    """`len(range(...))` of a `for` over `range` with bounds `assigned` does not touch."""
    it = loop.iter
    if not (isinstance(it, gast.Call) and isinstance(it.func, gast.Name) and it.func.id == "range"
            and 1 <= len(it.args) <= 3 and not it.keywords and all(_pure(a) for a in it.args)):
        return None
    for node in (n for a in it.args for n in S.walk(a)):
        if isinstance(node, gast.Name) and node.id in assigned:
            return None
        if isinstance(node, gast.Subscript) and not (  # an element may be written: shapes only
                isinstance(node.value, gast.Attribute) and node.value.attr == "shape"):
            return None
    return S.call("len", S.clone(it))
