"""One evaluation of a linear-algebra call written twice in straight-line generated code.

Each operand's adjoint comes from its rule's own template, so the reverse sweep of
`x = np.linalg.solve(A, b)` solves with `A.T` once for A's adjoint and once more for b's, and
`sign, logdet = np.linalg.slogdet(A)` (unpacked into `.sign` and `.logabsdet`) computes the
determinant once per part. In a run of statements without control flow, a call of
`np.linalg.solve`, `inv`, `slogdet`, `det` or `cholesky` written the same way more than once
is evaluated once, into a fresh name, just before the first statement that reads it, while
nothing changes what it reads: no name it reads is bound again, written into (an element, a
slice, an augmented assignment) or passed to a call that may write into it (srcad's runtime
functions but a few known pure ones, methods but `append` of a list's element) between its
first and its last read. LAPACK runs once where it ran twice, and the same bits come out
(the same call on the same values).

Only reads that use the result without keeping it are shared: an operand of arithmetic, of
a matrix product, of `np.outer`, `np.trace`, another np.linalg call (a few calls known to
make a new value), an element of `slogdet`'s pair, or the added value of
`t += unshared(t, v)`. A result bound to a name, or passed through a function that may return
it or a view of it (`unbroadcast`, `np.expand_dims`), could be written into later and is
computed again instead.

>>> from srcad.frontend import syntax as S
>>> from srcad.transform.names import Namer
>>> tree = gast.Module(body=S.parse_stmts('''
... a_bar = -np.outer(np.linalg.solve(a.T, g), ans)
... b_bar = b_bar + np.linalg.solve(a.T, g)
... '''), type_ignores=[])
>>> print(gast.unparse(share_linalg_calls(tree, Namer({"a", "g", "ans", "b_bar"}))).strip())
shared_solve = np.linalg.solve(a.T, g)
a_bar = -np.outer(shared_solve, ans)
b_bar = b_bar + shared_solve
"""

from __future__ import annotations

import gast

from srcad.frontend import syntax as S

SHARED = frozenset({"np.linalg.solve", "np.linalg.inv", "np.linalg.slogdet", "np.linalg.det",
                    "np.linalg.cholesky",
                    # np.linalg's spelled for numba: numba_linalg_calls.py
                    "linalg_solve", "linalg_inv", "linalg_slogdet", "linalg_det"})
# calls that write into none of their operands
_PURE = frozenset({"array_matmul", "linalg_solve", "linalg_inv", "linalg_slogdet", "linalg_det",
                   "unbroadcast", "unshared", "float", "int",
                   "len", "range", "max", "min", "abs"})
# calls that make a new value of their operands (a read through them keeps no reference to
# the shared result; so do math's functions and arithmetic); any other call may return an
# operand or a view of it
_NEW_VALUE = frozenset({"array_matmul", "np.outer", "np.dot", "np.matmul", "np.trace",
                        "np.sum", "np.mean", "np.kron", "np.tril", "np.triu", "np.copy"}) | SHARED
_SIMPLE = (gast.Assign, gast.AugAssign, gast.AnnAssign, gast.Expr)
_SCOPES = (gast.Lambda, gast.ListComp, gast.SetComp, gast.DictComp, gast.GeneratorExp)


def share_linalg_calls(tree, namer):
    """`tree` with each repeated linear-algebra call of a straight-line run evaluated once
    (in place); `namer` gives the fresh names."""
    for node in list(S.nodes(tree)):
        for field in ("body", "orelse", "finalbody"):
            block = getattr(node, field, None)
            if isinstance(block, list) and block and isinstance(block[0], gast.stmt):
                setattr(node, field, _block(block, namer))
    return tree


def _block(block: list, namer) -> list:
    out, run = [], []
    for stmt in block + [None]:
        if isinstance(stmt, _SIMPLE):
            run.append(stmt)
            continue
        out += _run(run, namer)
        run = []
        if stmt is not None:
            out.append(stmt)
    return out


def _run(run: list, namer) -> list:
    """The statements of `run` (no control flow) with each call written twice or more while
    its operands stay the same evaluated once before its first read."""
    open_groups: dict = {}  # spelling -> [first statement's index, reads, [(node, parent, field)]]
    done = []
    for i, stmt in enumerate(run):
        by_calls, by_targets = _changed(stmt)
        for node, parent, field in _candidates(stmt):
            key = S.unparse_expr(node)
            reads = S.loaded_names(node)
            if reads & by_calls:  # the statement may write into an operand before this read
                if key in open_groups:
                    done.append(open_groups.pop(key))
                continue
            group = open_groups.setdefault(key, [i, reads, []])
            group[2].append((node, parent, field))
        for key in [k for k, g in open_groups.items() if g[1] & (by_calls | by_targets)]:
            done.append(open_groups.pop(key))
    done += open_groups.values()
    before: dict = {}
    for first, _, uses in done:
        if len(uses) < 2:
            continue
        call = uses[0][0]
        shared = namer.fresh("shared_" + _spelled(call.func).split(".")[-1].removeprefix("linalg_"))
        before.setdefault(first, []).append(
            gast.copy_location(S.assign(S.name(shared, store=True), S.clone(call)), run[first]))
        for node, parent, field in uses:
            _replace(parent, field, node, S.name(shared))
    out = []
    for i, stmt in enumerate(run):
        out += before.get(i, []) + [stmt]
    return out


def _replace(parent, field, node, new) -> None:
    value = getattr(parent, field)
    if isinstance(value, list):
        value[value.index(node)] = new
    else:
        setattr(parent, field, new)


def _candidates(stmt) -> list:
    """(call, parent, field) of each outermost shareable call in `stmt` whose result the
    statement uses without keeping it."""
    found = []

    def visit(node, parent, field, kept):
        if isinstance(node, _SCOPES):  # its names may be its own (a comprehension's index)
            return
        if isinstance(node, gast.Call) and _spelled(node.func) in SHARED:
            if not kept:
                found.append((node, parent, field))
            return
        for name_, value in gast.iter_fields(node):
            for child in value if isinstance(value, list) else [value]:
                if isinstance(child, gast.AST):
                    visit(child, node, name_, _kept(node, name_, child, kept))

    visit(stmt, None, None, True)
    return found


def _kept(node, field, child, kept) -> bool:
    """May `child` (a value under `node`) end up referenced by what `node` gives, where
    `kept` says whether `node`'s own value may be kept?"""
    if isinstance(node, gast.AugAssign):  # `t += unshared(t, v)`: v is only read
        return not (field == "value" and isinstance(child, gast.Call)
                    and _spelled(child.func) == "unshared")
    if isinstance(node, gast.Call) and node.func is not child:
        name_ = _spelled(node.func)
        if name_ in _NEW_VALUE or name_.startswith("math.") \
                or name_ == "outer_add" and field == "args" and child is not node.args[0]:
            return False  # outer_add(a, x, y) reads x and y into a
        return kept if name_ == "unshared" else True  # unshared(t, v): v, or a copy of it
    if isinstance(node, (gast.BinOp, gast.UnaryOp, gast.Compare)):
        return False  # a new value (or a number)
    if isinstance(node, gast.Subscript) and field == "value" and isinstance(child, gast.Call) \
            and _spelled(child.func) in ("np.linalg.slogdet", "linalg_slogdet"):
        return False  # slogdet's sign or log: numbers
    return True


def _changed(stmt) -> tuple[set, set]:
    """(names a call in `stmt` may write into, names `stmt` binds or writes into)."""
    by_calls, by_targets = set(), set()
    targets = stmt.targets if isinstance(stmt, gast.Assign) else \
        [stmt.target] if isinstance(stmt, (gast.AugAssign, gast.AnnAssign)) else []
    for target in targets:
        by_targets |= {n.id for n in S.nodes(target) if isinstance(n, gast.Name)}
    for node in S.nodes(stmt):
        if not isinstance(node, gast.Call):
            continue
        name_ = _spelled(node.func)
        if _pure(name_):
            continue
        if name_ == "outer_add" and node.args:  # a += outer(x, y): writes into a only
            by_calls |= S.loaded_names(node.args[0])
            continue
        if isinstance(node.func, gast.Attribute):  # a method: its object may change
            by_calls |= S.loaded_names(node.func.value)
            if node.func.attr == "append":  # a list's append keeps what it appends as it is
                continue
        for arg in node.args + [k.value for k in node.keywords]:
            by_calls |= S.loaded_names(arg)
    return by_calls, by_targets


def _pure(name_: str) -> bool:
    """Does the call of `name_` write into none of its operands?"""
    if name_.startswith("np.") and name_.count(".") > 1 and not name_.startswith("np.linalg."):
        return False  # np.add.at(a, i, v) writes into a
    return name_ in _PURE or name_.startswith(("np.", "math.")) and name_ != "np.copyto"


def _spelled(func) -> str:
    """`np.linalg.solve` of the attribute chain `func`, '' for anything else."""
    parts = []
    while isinstance(func, gast.Attribute):
        parts.append(func.attr)
        func = func.value
    if not isinstance(func, gast.Name):
        return ""
    return ".".join([func.id, *reversed(parts)])
