"""Trip counts of nested for loops, written so that they can be read before an enclosing loop
(used by the numba tape reservations, control_flow.py).

A loop's pushes are reserved once before the outermost loop in which its trip count is fixed,
instead of on every iteration of the loops around it: a call to `reserve_tape` inside a hot
loop nest, and the tape rebound there, cost the mixture's gradient ~40% (numba, d=10, k=25).
`fixed_span(span, arounds, recording)` gives for `range(...)` inside the loops `arounds`
(outermost first) a range at least as long on every iteration whose bounds no loop of
`arounds` changes, or None. It sees through

* names bound once, in the whole function, to a value built from constants, names and `len`
  of names (`d = len(x)`, an inlined helper's own `n = len(a)`): the same value on every
  iteration, so read through their definition (`range(d)` -> `range(len(x))`);
* `len(r)` of a row view `r = a[i]` of a parameter (parameter_rows.py): `a.shape[1]`, the length
  of every row (a helper over rows, `for k in range(len(r))`, inlined in the loop over i);
* the index `i` of the innermost loop of `arounds` when that loop is `range(lo, hi)` (step 1)
  and nothing else binds `i`: in a start `i + c`, `i >= lo` bounds the trip count by that
  of `lo + c`; in a stop `i + c`, `i <= hi - 1` by that of `hi - 1 + c` (a triangular nest
  `for j in range(i + 1, d)` reserves `len(range(1, d))` per i: at most twice its pushes).

Guarantee: the range returned never has fewer iterations than `span` on any iteration of the
loops around it (over-reserving costs tape space, never correctness); nothing in it can raise
where `span` would not (no subscripts, no calls but `len` of a name, no division).
"""

from __future__ import annotations

import gast

from srcad.frontend import syntax as S
from srcad.transform.reverse.parameter_rows import is_shape_entry, row_length

_RESOLVE_DEPTH = 4  # definitions read through a chain of at most this many names


def fixed_span(span, arounds: list, recording, rows=None):
    """A range at least as long as `span` on every iteration of `arounds`, fixed in all of
    them, or None (see the module docstring). `rows(name)`: (a, count) for a row view of a
    parameter (parameter_rows.row_view), else None."""
    bounded = _index_bounded(span, arounds[-1], recording)
    if bounded is None:
        return None
    for loop in arounds:
        bounded = resolved(bounded, loop, recording, rows)
        if not _fixed_in(bounded, loop, recording):
            return None
    return bounded


def resolved(expr, loop, recording, rows=None):
    """`expr` with the names `loop` binds replaced by their single simple definition, where
    they have one, and `len(r)` of a row view `r` it binds by the length of the rows."""
    for _ in range(_RESOLVE_DEPTH):
        bound = recording.subtree_binds(loop)
        if rows is not None:
            expr = _row_lengths(expr, bound, rows)
        subst = {}
        for name in S.loaded_names(expr) & bound:
            value = _simple_definition(name, recording)
            if value is not None:
                subst[name] = value
        if not subst:
            return expr
        expr = S.substitute(expr, subst)
    return expr


def _fixed_in(span, loop, recording) -> bool:
    bound = recording.subtree_binds(loop)
    return not any(isinstance(n, gast.Subscript) and not is_shape_entry(n)
                   for n in gast.walk(span)) and not (S.loaded_names(span) & bound)


def _row_lengths(expr, bound: set, rows):
    """`expr` with each `len(r)` of a row view `r` in `bound` written `a.shape[count]`."""
    class Lengths(gast.NodeTransformer):
        def visit_Call(self, node):
            self.generic_visit(node)
            if _is_len_of_name(node) and node.args[0].id in bound:
                row = rows(node.args[0].id)
                if row is not None:
                    return row_length(*row)
            return node
    return Lengths().visit(S.clone(expr))


def _is_len_of_name(node) -> bool:
    return isinstance(node, gast.Call) and isinstance(node.func, gast.Name) \
        and node.func.id == "len" and len(node.args) == 1 and not node.keywords \
        and isinstance(node.args[0], gast.Name)


def _simple_definition(name, recording):
    """The value of `name`'s only binding when it is `name = <simple>`, else None."""
    stmt = recording.only_assignment(name)
    return stmt.value if stmt is not None and _simple(stmt.value) else None


def _simple(expr) -> bool:
    if isinstance(expr, gast.Constant):
        return isinstance(expr.value, int) and not isinstance(expr.value, bool)
    if isinstance(expr, gast.Name):
        return True
    if isinstance(expr, gast.BinOp):
        return isinstance(expr.op, (gast.Add, gast.Sub, gast.Mult)) \
            and _simple(expr.left) and _simple(expr.right)
    return (isinstance(expr, gast.Call) and isinstance(expr.func, gast.Name)
            and expr.func.id == "len" and len(expr.args) == 1 and not expr.keywords
            and isinstance(expr.args[0], gast.Name))


def _range_bounds(span):
    """(start, stop) of `range(stop)` / `range(start, stop)`, else None (a step, keywords)."""
    if not (isinstance(span, gast.Call) and isinstance(span.func, gast.Name)
            and span.func.id == "range" and not span.keywords and 1 <= len(span.args) <= 2):
        return None
    if len(span.args) == 1:
        return S.const(0), span.args[0]
    return span.args[0], span.args[1]


def _index_bounded(span, loop, recording):
    """`span` with the index of `loop` replaced as the module docstring says, or `span` when
    it does not read that index; None when it reads it otherwise."""
    if not (isinstance(loop, gast.For) and isinstance(loop.target, gast.Name)):
        return span
    index = loop.target.id
    if index not in S.loaded_names(span):
        return span
    inner, outer = _range_bounds(span), _range_bounds(loop.iter)
    if inner is None or outer is None \
            or any(index in recording.subtree_binds(stmt) for stmt in loop.body):
        return None
    lo, hi = outer
    last = gast.BinOp(left=S.clone(hi), op=gast.Sub(), right=S.const(1))
    start = _offset_from(inner[0], index, lo)
    stop = _offset_from(inner[1], index, last)
    if start is None or stop is None:
        return None
    return gast.Call(func=S.name("range"), args=[start, stop], keywords=[])


def _offset_from(expr, index, extreme):
    """`expr` with `index` replaced by `extreme` when `expr` is `index`, `index + c`,
    `c + index` or `index - c` (c an int constant), `expr` itself when it does not read
    `index`, else None."""
    if index not in S.loaded_names(expr):
        return S.clone(expr)
    if isinstance(expr, gast.Name):
        return S.clone(extreme)
    if isinstance(expr, gast.BinOp) and isinstance(expr.op, (gast.Add, gast.Sub)):
        left, right = expr.left, expr.right
        if isinstance(left, gast.Name) and left.id == index and _int_constant(right):
            return gast.BinOp(left=S.clone(extreme), op=expr.op, right=S.clone(right))
        if isinstance(expr.op, gast.Add) and isinstance(right, gast.Name) \
                and right.id == index and _int_constant(left):
            return gast.BinOp(left=S.clone(left), op=gast.Add(), right=S.clone(extreme))
    return None


def _int_constant(expr) -> bool:
    return isinstance(expr, gast.Constant) and isinstance(expr.value, int) \
        and not isinstance(expr.value, bool)

