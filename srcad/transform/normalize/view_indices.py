"""An int index into a slice of an array, as one index of the array, checked as NumPy checks it.

views.py reads `v = a[lo:hi:step]; v[q]` as `a[lo + q*step]`, and `a[lo + q*step]` may exist
where `v[q]` does not. Guarantees: the composed index raises IndexError wherever NumPy's
`v[q]` does (an index past the view, `a[1:3][5]`, or before it, `a[-3:][-4]`), in every
mode and on both backends, and a negative q counts from the view's end (`v[-1]` is its last
element). The check costs nothing where NumPy's own check of the array is the view's (no
upper bound, a start and an index never negative: `a[1:][k]` for a `range` counter k). For a
counter into literal bounds (`a[1:3][k]`) it is one comparison with the view's size and,
for a view bound to a name whose bounds are known only at run time (`v = a[i:i + d]`), one
comparison with its size computed where the view is made (`v_size = view_size(...)`, NumPy
fixes a view's bounds there too); `view_element` (srcad/runtime/array_runtime.py) is called only out
of range, and everywhere else.
"""

from __future__ import annotations

import gast

from srcad.frontend import syntax as S
from srcad.runtime.array_runtime import view_element, view_size, view_start

RUNTIME = {f.__name__: f for f in (view_element, view_size, view_start)}


class NotComposable(Exception):
    """The indices do not compose into one basic index of the array (the reason)."""


def slice_step(p) -> int:
    """The step of the slice `p`, a positive literal; NotComposable otherwise."""
    step = p.step.value if isinstance(p.step, gast.Constant) else 1 if p.step is None else None
    if not isinstance(step, int) or step <= 0:
        raise NotComposable(f"the step of `{S.unparse_expr(p)}` is not a positive number")
    return step


def needs_size(p, counters: set) -> bool:
    """Whether `base[p][q]` for a counter q needs the slice's size at run time: bounds not
    both literal (or a start never negative with no upper bound)."""
    lower, upper = literal(p.lower, 0), literal(p.upper, None)
    plain_start = lower is not None and lower >= 0 or _never_negative(p.lower, counters)
    return not (plain_start and (p.upper is None or lower is not None and upper is not None
                                 and upper >= 0))


def size_assignments(base: str, axis: int, p, start: str, size: str) -> list:
    """`start = view_start(...)` and `size = view_size(...)` of the slice p of `axis`."""
    arguments = _bounds(base, axis, p, slice_step(p))
    return [S.assign(S.name(start, store=True), _call("view_start", arguments)),
            S.assign(S.name(size, store=True), _call("view_size", arguments))]


def element_of_slice(base: str, axis: int, p, q, counters: set, sized=None):
    """`base[p][q]` for a slice p of `axis` and an int q, as one index of `base` (module
    docstring). `sized`: the names of the slice's start and size, if the view has them."""
    step = slice_step(p)
    checked = _call("view_element", [S.clone(q)] + _bounds(base, axis, p, step))
    offset = q if step == 1 else gast.BinOp(left=q, op=gast.Mult(), right=S.const(step))
    if sized is not None:
        start, size = sized
        position = gast.BinOp(left=S.name(start), op=gast.Add(), right=offset)
        back = literal(q, None)
        if back is not None and back < 0:  # start + (size - m)*step if size >= m
            from_end = gast.BinOp(left=S.name(size), op=gast.Sub(), right=S.const(-back))
            if step != 1:
                from_end = gast.BinOp(left=from_end, op=gast.Mult(), right=S.const(step))
            return gast.IfExp(test=gast.Compare(left=S.name(size), ops=[gast.GtE()],
                                                comparators=[S.const(-back)]),
                              body=gast.BinOp(left=S.name(start), op=gast.Add(),
                                              right=from_end), orelse=checked)
        if _never_negative(q, counters):  # q < size
            test = gast.Compare(left=S.clone(q), ops=[gast.Lt()], comparators=[S.name(size)])
        else:  # 0 <= q < size
            test = gast.Compare(left=S.const(0), ops=[gast.LtE(), gast.Lt()],
                                comparators=[S.clone(q), S.name(size)])
        return gast.IfExp(test=test, body=position, orelse=checked)
    if p.lower is None or (isinstance(p.lower, gast.Constant) and p.lower.value == 0):
        position = offset
    else:
        position = gast.BinOp(left=S.clone(p.lower), op=gast.Add(), right=offset)
    if not _never_negative(q, counters) or needs_size(p, counters):
        return checked
    if p.upper is None:  # start + q*step < len(base) exactly when q is in the view
        return position
    size = len(range(literal(p.lower, 0), literal(p.upper, None), step))  # or less, where
    if isinstance(q, gast.Constant):  # base is shorter: its own check
        return position if q.value < size else checked
    return gast.IfExp(test=gast.Compare(left=S.clone(q), ops=[gast.Lt()],
                                        comparators=[S.const(size)]),
                      body=position, orelse=checked)


def literal(e, absent):
    """The int `e` spells (a literal, or minus one), `absent` for no bound, else None."""
    if e is None:
        return absent
    if isinstance(e, gast.UnaryOp) and isinstance(e.op, gast.USub):
        inner = literal(e.operand, None)
        return -inner if inner is not None else None
    return e.value if isinstance(e, gast.Constant) and type(e.value) is int else None


def _never_negative(e, counters) -> bool:
    return isinstance(e, gast.Constant) and type(e.value) is int and e.value >= 0 \
        or isinstance(e, gast.Name) and e.id in counters


def _bounds(base, axis, p, step) -> list:
    """[start, stop, step, len(axis)] of the slice p of `axis` of `base`."""
    length = gast.Subscript(value=gast.Attribute(value=S.name(base), attr="shape",
                                                 ctx=gast.Load()),
                            slice=S.const(axis), ctx=gast.Load())
    start = S.const(0) if p.lower is None else S.clone(p.lower)
    stop = S.clone(length) if p.upper is None else S.clone(p.upper)
    return [start, stop, S.const(step), length]


def _call(name, arguments):
    return gast.Call(func=S.name(name), args=arguments, keywords=[])
