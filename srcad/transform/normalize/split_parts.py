"""`a, b, c = np.split(x, 3, axis=1)` unpacked into the slices NumPy's parts are (views of x,
as np.split's are), so each part's derivative is a slice's:

    a, b = np.split(x, 2)          ->  a = x[0 * x.shape[0] // 2:1 * x.shape[0] // 2]
                                       b = x[1 * x.shape[0] // 2:2 * x.shape[0] // 2]
    a, b = np.split(x, [2], 1)     ->  a = x[:, :2]; b = x[:, 2:]
    a, b = np.array_split(x, 2)    ->  bounds k * (n // 2) + min(k, n % 2)
    a, b = np.hsplit(x, 2)         ->  np.split(x, 2, axis=1) (vsplit: axis 0, dsplit: 2)

np.split of a count first checks that the axis divides evenly, raising NumPy's ValueError
otherwise. Only literal sections (an int, or a list or tuple of ints), a literal axis that is
not negative and as many names as parts are unpacked; any other form is left as it
is (refused as a call without a rule when its argument carries a derivative). The split
value is bound to a fresh name first when it is not a name.

A part read by a literal index, `np.split(x, 3)[1]` in any statement, is the same: the parts
are unpacked into fresh names before the statement (`hoisted_parts`), which reads its part.
"""

from __future__ import annotations

import gast
import numpy as np

from srcad.analysis.fence import EMPTY_REDUCTION
from srcad.frontend import syntax as S
from srcad.frontend.transformer import Transformer


def split_assignments(targets, value, callee, namer, origin) -> list | None:
    """The statements unpacking `targets = value` when `value` is np.split or np.array_split
    of literal sections into that many parts, else None."""
    fixed = _FIXED_AXES.get(callee)
    if (callee not in (np.split, np.array_split) and fixed is None) \
            or not isinstance(value, gast.Call) or len(value.args) < 2:
        return None
    if fixed is not None:  # np.vsplit(x, 2) is np.split(x, 2, axis=0)
        value = gast.Call(func=value.func, args=value.args[:2] + [S.const(fixed)],
                          keywords=value.keywords)
    arguments = dict(zip(("sections", "axis"), value.args[1:]))
    for keyword in value.keywords:
        arguments[{"indices_or_sections": "sections"}.get(keyword.arg, keyword.arg)] = \
            keyword.value
    sections = _literal(arguments.get("sections"))
    axis = _literal(arguments["axis"]) if "axis" in arguments else 0
    if set(arguments) - {"sections", "axis"} or not isinstance(axis, int) or axis < 0:
        return None
    if isinstance(sections, int) and sections == len(targets) > 0:
        bounds = None
    elif isinstance(sections, tuple) and len(sections) + 1 == len(targets) \
            and all(isinstance(i, int) for i in sections):
        bounds = [None, *sections, None]
    else:
        return None
    out = []
    array = value.args[0]
    written = set().union(*(S.stored_names(S.assign(t, S.const(0))) for t in targets))
    if not isinstance(array, gast.Name) or array.id in written:
        name = namer.fresh("split")
        out.append(gast.copy_location(S.assign(S.name(name), array), origin))
        array = S.name(name)
    if fixed is not None and callee is not np.hsplit:  # NumPy's check of the rank
        check = S.parse_stmts(f"if {array.id}.ndim < {max(fixed, 1) + 1}:\n"
                              f"    raise ValueError({EMPTY_REDUCTION[callee.__name__]!r})\n")
        out += [S.relocated(stmt, origin) for stmt in check]
    parts = _parts(targets, array, sections, bounds, axis, callee is np.array_split, origin)
    if callee is np.hsplit:  # a vector's parts are along its axis 0
        vector = _parts(targets, array, sections, bounds, 0, False, origin)
        test = S.relocated(S.parse_expr(f"{array.id}.ndim == 1"), origin)
        return out + [gast.copy_location(gast.If(test=test, body=vector, orelse=parts), origin)]
    return out + parts


def _parts(targets, array, sections, bounds, axis, spread, origin) -> list:
    """The check of an even division (np.split of a count) and each part's slice."""
    out = []
    length = f"{array.id}.shape[{axis}]"
    if bounds is None and not spread:
        check = S.parse_stmts(f"if {length} % {sections} != 0:\n"
                              f"    raise ValueError({EMPTY_REDUCTION['split']!r})\n")
        out += [S.relocated(stmt, origin) for stmt in check]
    for k, target in enumerate(targets):
        if bounds is not None:
            low, high = bounds[k], bounds[k + 1]
        elif not spread:
            low, high = (f"{j} * {length} // {sections}" for j in (k, k + 1))
        else:
            low, high = (f"{j} * ({length} // {sections}) + min({j}, {length} % {sections})"
                         for j in (k, k + 1))
        span = f"{'' if low is None else low}:{'' if high is None else high}"
        where = ":, " * axis + span
        part = S.relocated(S.parse_expr(f"{array.id}[{where}]"), origin)
        out.append(gast.copy_location(S.assign(S.clone(target), part), origin))
    return out


# np.hsplit, vsplit, dsplit: np.split along a fixed axis (hsplit's of a vector: its axis 0)
_FIXED_AXES = {np.hsplit: 1, np.vsplit: 0, np.dsplit: 2}


def _literal(node):
    if isinstance(node, gast.Constant) and isinstance(node.value, int) \
            and not isinstance(node.value, bool):
        return node.value
    if isinstance(node, gast.UnaryOp) and isinstance(node.op, gast.USub):
        inner = _literal(node.operand)
        return -inner if isinstance(inner, int) else None
    if isinstance(node, (gast.List, gast.Tuple)):
        return tuple(_literal(e) for e in node.elts)
    return None


_SPLITS = (np.split, np.array_split, *_FIXED_AXES)


def hoisted_parts(stmt, resolve, namer) -> list | None:
    """`stmt` reading `np.split(...)[k]` (a literal k; any function of the family) as the
    unpacking of each such split into fresh names followed by `stmt` reading the k-th name,
    or None when it reads none (or a form split_assignments leaves as it is)."""
    before: list = []

    class Parts(Transformer):
        def visit_Subscript(self, node):
            self.generic_visit(node)
            call, index = node.value, _literal(node.slice)
            if not (isinstance(call, gast.Call) and isinstance(index, int)
                    and isinstance(node.ctx, gast.Load) and resolve(call.func) in _SPLITS):
                return node
            sections = _literal(call.args[1]) if len(call.args) > 1 else None
            count = sections if isinstance(sections, int) else \
                len(sections) + 1 if isinstance(sections, tuple) else 0
            if not -count <= index < count:
                return node
            names = [namer.fresh("part") for _ in range(count)]
            targets = [S.name(n, store=True) for n in names]
            if split_assignments(targets, call, resolve(call.func), namer, stmt) is None:
                return node
            unpack = gast.Assign(targets=[gast.Tuple(elts=targets, ctx=gast.Store())],
                                 value=call, type_comment=None)
            before.append(gast.copy_location(unpack, stmt))
            return gast.copy_location(S.name(names[index]), node)

    rewritten = Parts().visit(stmt)
    return before + [rewritten] if before else None
