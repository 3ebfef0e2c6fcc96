"""numba, reverse mode whose caller never reads the returned value: the forward sweep computes
only what the reverse sweep needs.

Second order by reverse over forward (`hvp`, `hessian`, `gradient_and_hvp` on numba) runs
srcad's reverse mode over f's forward code `x, v -> grad f(x) . v` and reads only the
adjoints; the value grad f . v, which the forward sweep computes as its primal, is thrown
away. Computing it is most of that sweep's work: the tangent of every statement of f, such as
the tangent of each distance that k-means' running `min` then discards. Where the request says
so (`Request.value_unused`), the returned value is written `0.0` and every assignment of a
name that nothing kept reads is dropped: a name is needed when a kept statement reads it
(an element write, a tape record, a loop's range, a branch's test, a call whose effect is
unknown, the return) or an assignment of a needed name reads it, the least such set; `s += e`
is an assignment of `s` only where `s` holds a number (into an array it adds in place).

Only assignments whose right-hand side cannot raise or have an effect in numba's code are
dropped: arithmetic without division, comparisons, conditional expressions, reads of names,
attributes and elements, and the calls `min`, `max`, `abs`, `float`, `len` and `unshared`
(a division by zero raises ZeroDivisionError in numba, and a call may do anything). The
kept statements compute what they computed before, in the same order, so the adjoints have
the same bits.

>>> import gast
>>> from srcad.build.codegen import to_source
>>> tree = gast.parse("def f_reverse(x, x_bar, x_dot, tape):\\n"
...                   "    y = x * x\\n"
...                   "    y_dot = 2.0 * x * x_dot\\n"
...                   "    tape[0] = y\\n"
...                   "    x_bar[0] += tape[0]\\n"
...                   "    result = y_dot\\n"
...                   "    return result, (), None\\n")
>>> print(to_source(drop_unused_value(tree, "f_reverse", {"y": FLOAT, "y_dot": FLOAT})).strip())
def f_reverse(x, x_bar, x_dot, tape):
    y = x * x
    tape[0] = y
    x_bar[0] += tape[0]
    return 0.0, (), None
"""

from __future__ import annotations

import gast

from srcad.analysis.value_types import BOOL, FLOAT, INT
from srcad.frontend import syntax as S

# calls that neither raise nor have an effect in numba's code on the values they take
_HARMLESS_CALLS = frozenset({"min", "max", "abs", "float", "len", "unshared"})
_RAISING_OPERATORS = (gast.Div, gast.FloorDiv, gast.Mod, gast.MatMult)


def drop_unused_value(tree, name: str, env: dict):
    """`tree` with the function `name` returning `0.0` for its value and without the
    assignments nothing else needs (in place; the module docstring says which). `env`: a
    name's value type (`s += e` adds into an array a name holds, in place, unless the name
    holds a number). Left as it is when the function holds a nested function, a
    lambda or a return other than its last statement `return value, ...`."""
    for fn in (n for n in S.walk(tree) if isinstance(n, gast.FunctionDef) and n.name == name):
        last = fn.body[-1] if fn.body else None
        if not (isinstance(last, gast.Return) and isinstance(last.value, gast.Tuple)
                and last.value.elts):
            continue
        inner = [n for n in S.walk(fn) if n is not fn and isinstance(
            n, (gast.FunctionDef, gast.Lambda, gast.AsyncFunctionDef, gast.ClassDef))]
        returns = [n for n in S.walk(fn) if isinstance(n, gast.Return)]
        if inner or returns != [last]:
            continue
        last.value.elts[0] = gast.Constant(value=0.0, kind=None)
        numbers = {v for v, t in env.items() if t in (FLOAT, INT, BOOL)}
        needed = _needed_names(fn.body, numbers)
        fn.body = _kept(fn.body, needed, numbers)
    return tree


def _definition(stmt, numbers):
    """(name, its right-hand side) of `name = e`, or `name op= e` of a name in `numbers`,
    with `e` harmless, else None."""
    if isinstance(stmt, gast.Assign) and len(stmt.targets) == 1 \
            and isinstance(stmt.targets[0], gast.Name):
        target = stmt.targets[0]
    elif isinstance(stmt, gast.AugAssign) and isinstance(stmt.target, gast.Name) \
            and stmt.target.id in numbers and not isinstance(stmt.op, _RAISING_OPERATORS):
        target = stmt.target
    else:
        return None
    return (target.id, stmt.value) if harmless(stmt.value) else None


def harmless(node) -> bool:
    """Whether evaluating `node` in numba's code can neither raise nor have an effect."""
    for n in S.walk(node):
        if isinstance(n, gast.Call):
            if not (isinstance(n.func, gast.Name) and n.func.id in _HARMLESS_CALLS) \
                    or n.keywords:
                return False
        elif isinstance(n, _RAISING_OPERATORS):
            return False
        elif not isinstance(n, S.READING_NODES):
            return False
    return True


def _loads(node) -> set:
    return {n.id for n in S.walk(node) if isinstance(n, gast.Name)
            and isinstance(n.ctx, gast.Load)}


def _needed_names(body, numbers) -> set:
    """The least set of names read by a kept statement or by an assignment of a needed name
    (an augmented assignment reads its target too)."""
    reads_of: dict = {}  # name -> names its harmless assignments read
    needed: set = set()

    def visit(statements):
        for stmt in statements:
            definition = _definition(stmt, numbers)
            if definition is not None:
                target, value = definition
                reads = _loads(value) | ({target} if isinstance(stmt, gast.AugAssign) else set())
                reads_of.setdefault(target, set()).update(reads)
            elif isinstance(stmt, (gast.For, gast.While, gast.If)):
                head = stmt.iter if isinstance(stmt, gast.For) else stmt.test
                needed.update(_loads(head))
                visit(stmt.body)
                visit(stmt.orelse)
            else:  # kept whole: every name it reads (a written element's index too)
                needed.update(_loads(stmt))
                if isinstance(stmt, gast.AugAssign) and isinstance(stmt.target, gast.Name):
                    needed.add(stmt.target.id)  # the array it adds into, in place

    visit(body)
    work = list(needed)
    while work:
        for read in reads_of.get(work.pop(), ()):
            if read not in needed:
                needed.add(read)
                work.append(read)
    return needed


def _kept(statements, needed: set, numbers) -> list:
    """`statements` without the assignments of names not `needed` (and the comments just
    before one, which name its line)."""
    kept, comments = [], []
    for stmt in statements:
        if S.is_comment(stmt):
            comments.append(stmt)
            continue
        definition = _definition(stmt, numbers)
        if definition is not None and definition[0] not in needed:
            comments = []
            continue
        kept += comments
        comments = []
        if isinstance(stmt, (gast.For, gast.While, gast.If)):
            stmt.body = _kept(stmt.body, needed, numbers) or [gast.Pass()]
            stmt.orelse = _kept(stmt.orelse, needed, numbers)
        kept.append(stmt)
    return kept + comments
