"""numba: a long loop that only adds exponentials into sums runs as two loops, the first
computing the exponentials with srcad's vectorizable exp, the second adding them in order.

A loop `for i in range(n): s += math.exp(x[i] - a)` (a log-sum-exp's, a softmax's
denominator) calls the C library's exp once per element, and LLVM cannot vectorize it: the
sum adds in order. The reverse transform already splits such loops in reverse sweeps
(transform/reverse/slots.py); this rewrite does the same for the other code numba compiles
(the primal, forward mode): from `SPLIT_MIN_TRIPS` iterations on, the first loop writes
each addend into a work array (`simd_exp`, srcad/runtime/numba_runtime.py, within 1 ulp of
the C library's, as in the reverse sweeps), the second adds them into the sums in the same
order. Only a loop outside any other loop (one work array per run of it) whose body is
nothing but such sums (`s += e`, `s += unshared(s, e)`, `s = s + e`, each `e` calling
`math.exp` and reading no sum) is split; a shorter run takes the loop as it was. Where the sums
may be reassociated (`SRCAD_NUMBA_REASSOCIATE=1`), such a loop stays one loop calling
`simd_exp`: LLVM vectorizes the exponentials and the sums together. That needs no work array,
so it applies inside other loops too (a log-sum-exp per data point, as gmm's objective
computes over the mixture's components: the reverse sweeps' forward loops already did).

>>> import gast
>>> from srcad.build.codegen import to_source
>>> from srcad.transform.names import Namer
>>> tree = gast.parse("def f(x, a):\\n"
...                   "    s = 0.0\\n"
...                   "    for i in range(len(x)):\\n"
...                   "        s += math.exp(x[i] - a)\\n"
...                   "    return s\\n")
>>> print(to_source(split_exp_sums(tree, Namer({"f", "x", "a", "s", "i"}))).strip())
def f(x, a):
    s = 0.0
    i_trips = len(range(len(x)))
    if i_trips >= 8:
        i_addends = np.empty(i_trips * 1)
        i_slot = 0
        for i in range(len(x)):
            i_addends[i_slot] = simd_exp(x[i] - a)
            i_slot += 1
        i_slot = 0
        for i_k in range(i_trips):
            s += i_addends[i_slot]
            i_slot += 1
    else:
        for i in range(len(x)):
            s += math.exp(x[i] - a)
    return s
"""

from __future__ import annotations

import gast

from srcad.frontend import syntax as S
from srcad.transform.reverse.slots import SPLIT_MIN_TRIPS


def split_exp_sums(tree, namer, reassociated=False):
    """`tree` with the loops the module docstring describes split (in place). `reassociated`:
    numba compiles with LLVM's `reassoc` (srcad/build/numba_fastmath.py), which vectorizes the
    sums too; such a loop then stays one loop, calling `simd_exp` (no work array to write and
    read back: the exp and the partial sums in the same SIMD pass)."""
    for fn in [n for n in S.walk(tree) if isinstance(n, gast.FunctionDef)]:
        fn.body = _split_in(fn.body, namer, reassociated)
    return tree


def _split_in(body, namer, reassociated):
    """`body` with its loops split, and those of its branches (not inside loops; inside loops
    too where `reassociated`: the rewrite then needs no work array)."""
    out = []
    for stmt in body:
        if isinstance(stmt, gast.For):
            addends = _addends(stmt)
            if addends is None:
                if reassociated:
                    stmt.body = _split_in(stmt.body, namer, reassociated)
                    stmt.orelse = _split_in(stmt.orelse, namer, reassociated)
                out.append(stmt)
            elif reassociated:
                out.append(_vector_exps(stmt, addends))
            else:
                out += _split(stmt, addends, namer)
        elif isinstance(stmt, gast.While) and reassociated:
            stmt.body = _split_in(stmt.body, namer, reassociated)
            stmt.orelse = _split_in(stmt.orelse, namer, reassociated)
            out.append(stmt)
        elif isinstance(stmt, gast.If):
            stmt.body = _split_in(stmt.body, namer, reassociated)
            stmt.orelse = _split_in(stmt.orelse, namer, reassociated)
            out.append(stmt)
        else:
            out.append(stmt)
    return out


def _vector_exps(loop, addends):
    """`loop` (its body the sums `addends`) calling `simd_exp` for `math.exp`."""
    for _, addend in addends:
        _vector_exp(addend)
    loop.body.insert(0, S.comment("exp vectorized (srcad.runtime.numba_runtime.simd_exp), the "
                                  "sums reassociated"))
    return loop


def _addends(loop):
    """[(the sum statement, its addend)] when `loop` is one to split, else None."""
    if loop.orelse or not isinstance(loop.target, gast.Name) \
            or not (isinstance(loop.iter, gast.Call) and isinstance(loop.iter.func, gast.Name)
                    and loop.iter.func.id == "range"
                    and all(_plain(a) for a in loop.iter.args)):
        return None
    found = []
    for stmt in loop.body:
        if S.is_comment(stmt):
            continue
        addend = _addend(stmt)
        if addend is None:
            return None
        found.append((stmt, addend))
    sums = {_target(stmt) for stmt, _ in found}
    if not found or len(sums) != len(found) or any(
            S.loaded_names(addend) & sums or not _calls_exp(addend) for _, addend in found):
        return None
    return found


def _plain(node) -> bool:
    """Names, numbers, `len`, attributes and subscripts of names, arithmetic of them: an
    expression read twice (the trip count, then the loop) with no effect."""
    for n in S.walk(node):
        if isinstance(n, gast.Call) and not (isinstance(n.func, gast.Name)
                                             and n.func.id == "len"):
            return False
        if not isinstance(n, (gast.Call, gast.Name, gast.Constant, gast.BinOp, gast.UnaryOp,
                              gast.Attribute, gast.Subscript, gast.operator, gast.unaryop,
                              gast.expr_context)):
            return False
    return True


def _target(stmt) -> str:
    return (stmt.target if isinstance(stmt, gast.AugAssign) else stmt.targets[0]).id


def _addend(stmt):
    """e of `s += e`, `s += unshared(s, e)` or `s = s + e` (s a name), else None."""
    if isinstance(stmt, gast.AugAssign) and isinstance(stmt.op, gast.Add) \
            and isinstance(stmt.target, gast.Name):
        value = stmt.value
        if isinstance(value, gast.Call) and isinstance(value.func, gast.Name) \
                and value.func.id == "unshared" and len(value.args) == 2:
            return value.args[1]
        return value
    if isinstance(stmt, gast.Assign) and len(stmt.targets) == 1 \
            and isinstance(stmt.targets[0], gast.Name) and isinstance(stmt.value, gast.BinOp) \
            and isinstance(stmt.value.op, gast.Add) and isinstance(stmt.value.left, gast.Name) \
            and stmt.value.left.id == stmt.targets[0].id:
        return stmt.value.right
    return None


def _is_exp(node) -> bool:
    return (isinstance(node, gast.Call) and isinstance(node.func, gast.Attribute)
            and isinstance(node.func.value, gast.Name) and node.func.value.id == "math"
            and node.func.attr == "exp" and len(node.args) == 1)


def _calls_exp(node) -> bool:
    return any(_is_exp(n) for n in S.walk(node))


def _vector_exp(node):
    for n in S.walk(node):
        if _is_exp(n):
            n.func = S.name("simd_exp")
    return node


def _split(loop, addends, namer) -> list:
    index = loop.target.id
    trips, work, slot, k = (namer.fresh(f"{index}_{role}")
                            for role in ("trips", "addends", "slot", "k"))
    width = len(addends)
    first = [S.assign(_slot(work, slot, j, store=True), _vector_exp(S.clone(e)))
             for j, (_, e) in enumerate(addends)]
    first.append(S.parse_stmts(f"{slot} += {width}")[0])
    second = []
    for j, (stmt, _) in enumerate(addends):
        summed = S.clone(stmt)
        _replace(summed, stmt, _slot(work, slot, j))
        second.append(summed)
    second.append(S.parse_stmts(f"{slot} += {width}")[0])
    split = [
        *S.parse_stmts(f"{work} = np.empty({trips} * {width})\n{slot} = 0"),
        gast.For(target=S.name(index, store=True), iter=S.clone(loop.iter), body=first,
                 orelse=[], type_comment=None),
        *S.parse_stmts(f"{slot} = 0"),
        gast.For(target=S.name(k, store=True), iter=S.parse_expr(f"range({trips})"),
                 body=second, orelse=[], type_comment=None),
    ]
    count = S.assign(S.name(trips, store=True),
                     S.substitute("len(span)", {"span": S.clone(loop.iter)}))
    test = S.parse_expr(f"{trips} >= {SPLIT_MIN_TRIPS}")
    return [count, gast.If(test=test, body=split, orelse=[loop])]


def _slot(work, slot, j, store=False):
    """`work[slot + j]`, the j-th addend of this iteration."""
    element = S.parse_expr(f"{work}[{slot} + {j}]" if j else f"{work}[{slot}]")
    if store:
        S.set_store(element)
    return element


def _replace(summed, original, read) -> None:
    """In `summed`, a clone of the sum statement `original`, its addend replaced by `read`."""
    if isinstance(summed, gast.AugAssign):
        if _addend(original) is original.value:
            summed.value = read
        else:  # s += unshared(s, e)
            summed.value.args[1] = read
    else:
        summed.value.right = read
