"""Where the small arrays of numba code may be read, and written (the uses half of
srcad/transform/small_array_lengths.py's analysis; small_arrays.py rewrites what passes).

A small array may be read as an element with a constant index, by `.shape`, as an operand of
arithmetic bound to another small array (also through `unshared` and `unbroadcast`, the
reverse sweep's accumulations: `x_bar += unshared(x_bar, g)`), as an argument of a nested
kernel, and recorded on a list tape whose every array is a small array of one length and whose
every read binds a small array (srcad/transform/small_array_tapes.py). Any other read keeps it
an array.

Written in place (`v += e`, `v[0] = e`, `v[1] -= e`): held as numbers only where its array is
its own, since the numbers do not change along with another holder of the array: none of the
values bound to it is another array as it is (a name, a view, a kernel's array), and it is
never bound as it is to another name or recorded on a tape.

>>> import gast
>>> from srcad.transform.small_array_lengths import SmallArrays
>>> fn = gast.parse("def f(a):\\n    x = np.zeros(2)\\n    x[0] += a\\n    y = x\\n"
...                 "    return y[0]").body[0]
>>> SmallArrays(fn, {"a"}).settled()  # y shares x's array, which x's numbers would not
{}
"""

from __future__ import annotations

import gast

from srcad.frontend import syntax as S
from srcad.transform.small_array_kernels import kernel_kind
from srcad.transform.small_array_tapes import append_of, is_pop, recorded

# values that may be another holder's array as it is (the rest are new arrays)
_SHARING = ("broadcast_view", "unbroadcast", "unshared")


def refused_uses(analysis, lengths) -> set:
    """The small arrays (`lengths`) of `analysis.fn` (a SmallArrays) read or written anywhere
    but in the forms the module docstring lists."""
    refused = set()
    allowed: set = set()  # ids of Name nodes in a known form
    fn = analysis.fn
    for node in gast.walk(fn):
        if isinstance(node, gast.Assign) and len(node.targets) == 1 \
                and isinstance(node.targets[0], gast.Name) \
                and node.targets[0].id in lengths:
            _mark_operands(node.value, allowed)
        elif isinstance(node, gast.AugAssign) and isinstance(node.target, gast.Name) \
                and node.target.id in lengths:
            _mark_operands(node.value, allowed)
        elif isinstance(node, gast.Subscript) and analysis._element(node, lengths):
            allowed.add(id(node.value))
        elif isinstance(node, gast.Subscript) and not isinstance(node.ctx, gast.Load) \
                and isinstance(node.value, gast.Name) and node.value.id in lengths:
            refused.add(node.value.id)  # an element out of range
        elif isinstance(node, gast.Attribute) and node.attr == "shape" \
                and isinstance(node.value, gast.Name):
            allowed.add(id(node.value))
        elif analysis.small_sum(node, lengths):  # np.sum of such arrays: a number
            _mark_operands(node.args[0], allowed)
        elif kernel_kind(node) and isinstance(node, gast.Call):
            for a in node.args:
                if isinstance(a, gast.Name):
                    allowed.add(id(a))
    refused |= _tape_uses(analysis, lengths, allowed)
    kernel_statements = {id(n) for n in gast.walk(fn)
                         if isinstance(n, gast.Assign)
                         and any(kernel_kind(c) for c in gast.walk(n.value))}
    for statement in (n for n in gast.walk(fn) if isinstance(n, gast.stmt)):
        if id(statement) in kernel_statements:
            continue
        for node in S.statement_expressions(statement):
            if kernel_kind(node):  # a kernel call in an `if` test, a return, ...
                refused |= {a.id for a in node.args if isinstance(a, gast.Name)}
    for node in gast.walk(fn):
        if isinstance(node, gast.Name) and isinstance(node.ctx, gast.Load) \
                and node.id in lengths and id(node) not in allowed:
            refused.add(node.id)
    return refused | _shared_writes(analysis, lengths)


def _tape_uses(analysis, lengths, allowed) -> set:
    """Mark the arrays recorded on array tapes that will record numbers; the small arrays
    recorded on one that will not (one of its reads binds another array)."""
    refused = set()
    for tape in analysis.tapes.values():
        if tape.is_shape:
            continue
        names = [recorded(p) for p in tape.pushes]
        if isinstance(analysis._tape_length(tape, lengths), int) \
                and all(n in lengths for n in tape.pops):
            for push in tape.pushes:
                allowed.add(id(recorded(push)))
        else:
            refused |= {n.id for n in names if n.id in lengths}
    return refused


def _shared_writes(analysis, lengths) -> set:
    """The small arrays written in place whose array another name or tape may hold."""
    written = analysis.mutated & set(lengths)
    if not written:
        return set()
    refused = {name for name in written
               if any(_sharing(v, analysis) for v in analysis.values.get(name, ()))}
    handed_over = _handed_over(analysis)
    for node in gast.walk(analysis.fn):
        if isinstance(node, gast.Assign) and id(node) not in handed_over:
            refused |= {name for name in _shared_names(node.value) if name in written}
        found = append_of(node) if isinstance(node, gast.stmt) else None
        if found:
            refused |= {name for name in _shared_names(recorded(found[1])) if name in written}
    return refused


def _handed_over(analysis) -> set:
    """ids of the statements `w = v` after which v is bound at once to a new array and w is
    never written in place (the reverse sweep's `g_1 = x_bar`, `x_bar = np.zeros(s)`): the
    array they shared is w's alone from then on, and no write reaches it through v."""
    found = set()
    for node in gast.walk(analysis.fn):
        for field in ("body", "orelse"):
            block = getattr(node, field, None)
            if not isinstance(block, list):
                continue
            for i, stmt in enumerate(block):
                if _plain(stmt) and isinstance(stmt.value, gast.Name) \
                        and stmt.targets[0].id not in analysis.mutated \
                        and _rebound_first(stmt.value.id, block[i + 1:], analysis):
                    found.add(id(stmt))
    return found


def _rebound_first(name, following, analysis) -> bool:
    """Is `name` bound to a new array by one of the statements `following` before any of them
    writes it in place or binds it otherwise?"""
    for stmt in following:
        if _plain(stmt) and stmt.targets[0].id == name:
            return not _sharing(stmt.value, analysis)
        for node in gast.walk(stmt):
            target = node.target if isinstance(node, gast.AugAssign) else \
                node if isinstance(node, (gast.Name, gast.Subscript)) \
                and not isinstance(node.ctx, gast.Load) else None
            while isinstance(target, gast.Subscript):
                target = target.value
            if isinstance(target, gast.Name) and target.id == name:
                return False
    return False


def _plain(stmt) -> bool:
    return isinstance(stmt, gast.Assign) and len(stmt.targets) == 1 \
        and isinstance(stmt.targets[0], gast.Name)


def _sharing(value, analysis) -> bool:
    """May `value` be another holder's array (not a new array)?"""
    if isinstance(value, (gast.Name, gast.Subscript)) or is_pop(value, analysis.tapes):
        return True
    if kernel_kind(value):
        return True
    return isinstance(value, gast.Call) and isinstance(value.func, gast.Name) \
        and value.func.id in _SHARING


def _shared_names(value) -> set:
    """The names whose array `value` may be as it is."""
    while isinstance(value, gast.Call) and isinstance(value.func, gast.Name) \
            and value.func.id in _SHARING and value.args:
        value = value.args[1] if value.func.id == "unshared" else value.args[0]
    if isinstance(value, gast.Call) and isinstance(value.func, gast.Attribute) \
            and value.func.attr == "ascontiguousarray" and value.args:
        value = value.args[0]
    return {value.id} if isinstance(value, gast.Name) else set()


def _mark_operands(node, allowed):
    if isinstance(node, gast.Name):
        allowed.add(id(node))
    elif isinstance(node, gast.UnaryOp):
        _mark_operands(node.operand, allowed)
    elif isinstance(node, gast.BinOp):
        _mark_operands(node.left, allowed)
        _mark_operands(node.right, allowed)
    elif isinstance(node, gast.Call) and isinstance(node.func, gast.Name) \
            and node.func.id in ("broadcast_view", "array_copy", "unbroadcast"):
        _mark_operands(node.args[0], allowed)
        for shape in node.args[1:]:
            for n in gast.walk(shape):
                if isinstance(n, gast.Name):
                    allowed.add(id(n))
    elif isinstance(node, gast.Call) and isinstance(node.func, gast.Name) \
            and node.func.id == "unshared" and len(node.args) == 2:
        for a in node.args:  # the first is read only to learn whether they overlap
            _mark_operands(a, allowed)
    elif isinstance(node, gast.Call) and isinstance(node.func, gast.Attribute) \
            and node.func.attr in ("copy", "zeros_like", "ones_like", "sum"):
        for n in [node.func.value, *node.args]:
            _mark_operands(n, allowed)
