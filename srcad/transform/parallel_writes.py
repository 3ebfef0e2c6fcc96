"""The writes of a loop run on all its iterations at once touch one element per iteration.

srcad/transform/parallel_loops.py lifts a loop whose writes `A[index] = value` (or `+=`)
give every iteration elements of its own: some part of the index is `k * i + c` (i the loop
variable, k a nonzero int, c an int, or plus a name the loop does not assign), and two writes
of one array never hit the same element. An inner loop's variable `j` over a constant range
may be added to that part (`A[3 * i + j]` for `j` in range(3)): the part then takes the
offsets c + j, which must be distinct modulo k. Other parts may read names the loop does not
assign and inner loops' variables (the same in every iteration), never the loop variable.

>>> import gast
>>> parts = [gast.parse("3 * i + j", mode="eval").body]
>>> check_writes([(parts, {"j": range(3)})], "i", {"j"}, {"j"})
>>> try:
...     check_writes([(parts, {"j": range(4)})], "i", {"j"}, {"j"})
... except NotParallel:
...     print("iteration i, j = 3 and iteration i + 1, j = 0 write one element")
iteration i, j = 3 and iteration i + 1, j = 0 write one element
"""

from __future__ import annotations

import gast

from srcad.frontend import syntax as S


class NotParallel(Exception):
    """The loop is not lifted (its iterations may depend on each other)."""


def check_writes(writes, var, assigned, uniform) -> None:
    """Each write hits one element per iteration; two writes never the same element.

    `writes`: [(index parts, {inner loop variable: its constant range})]; `assigned`: the
    names the loop sets; `uniform`: the inner loops' variables among them."""
    forms = []
    varying = (set(assigned) - set(uniform)) | {var}
    for parts, ranges in writes:
        form = None
        for position, part in enumerate(parts):
            affine = _affine(part, var, ranges) if form is None else None
            if affine is not None:
                scale, offsets, rest, rest_names = affine
                if rest_names & set(assigned):
                    raise NotParallel
                form = (position, scale, offsets, rest)
            elif _names([part]) & varying:
                raise NotParallel
        if form is None or form[1] == 0:
            raise NotParallel
        scale, offsets = form[1], form[2]
        if len({o % scale for o in offsets}) != len(offsets):
            raise NotParallel  # two inner iterations of two iterations meet
        forms.append((form, parts))
    for k, ((position, scale, offsets, rest), parts) in enumerate(forms):
        for (other_position, other_scale, other_offsets, other_rest), other in forms[:k]:
            constants_differ = any(
                isinstance(a, gast.Constant) and isinstance(b, gast.Constant)
                and a.value != b.value for j, (a, b) in enumerate(zip(parts, other))
                if j != position)
            if constants_differ:
                continue
            if (position, scale, rest) != (other_position, other_scale, other_rest) \
                    or any((a - b) % scale == 0 for a in offsets for b in other_offsets):
                raise NotParallel


def _affine(node, var, ranges):
    """(k, offsets, rest, names in rest) when `node` is k * var + c + rest, c an int or an
    inner variable of `ranges` (offsets: the values c takes), rest text without var."""
    if isinstance(node, gast.Name) and node.id == var:
        return 1, frozenset({0}), "", set()
    if isinstance(node, gast.BinOp) and isinstance(node.op, gast.Mult):
        for a, b in ((node.left, node.right), (node.right, node.left)):
            if isinstance(a, gast.Constant) and type(a.value) is int \
                    and isinstance(b, gast.Name) and b.id == var:
                return a.value, frozenset({0}), "", set()
        return None
    if isinstance(node, gast.BinOp) and isinstance(node.op, (gast.Add, gast.Sub)):
        sign = 1 if isinstance(node.op, gast.Add) else -1
        for a, b, b_sign in ((node.left, node.right, sign), (node.right, node.left, 1)):
            if isinstance(node.op, gast.Sub) and a is node.right:
                continue  # c - k * i: not handled
            inner = _affine(a, var, ranges)
            if inner is None or var in _names([b]):
                continue
            k, offsets, rest, names = inner
            if isinstance(b, gast.Constant) and type(b.value) is int:
                return k, frozenset(o + b_sign * b.value for o in offsets), rest, names
            if isinstance(b, gast.Name) and b.id in ranges and b_sign > 0:
                return k, frozenset(o + j for o in offsets for j in ranges[b.id]), rest, \
                    names
            text = ("+" if b_sign > 0 else "-") + S.unparse_expr(b)
            return k, offsets, rest + text, names | _names([b])
    return None


def _names(nodes) -> set:
    return {n.id for node in nodes for n in gast.walk(node) if isinstance(n, gast.Name)}
