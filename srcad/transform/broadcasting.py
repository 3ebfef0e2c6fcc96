"""Shapes of array expressions in generated code, and the one place broadcasting is undone.

An adjoint contribution must have exactly the shape of the operand it flows into. A rule's
contribution to an operand of an elementwise node has the node's (broadcast) shape; when
another operand is an array it may be wider, so the contribution is summed back
(`unbroadcast(c, x.shape)`, or `np.sum(c)` for a float operand). In forward mode a tangent
narrower than its node (the tangent `x_dot` of `x + t` with `t` inactive) is broadcast up
where the exact shape matters. Shapes are expressions built from the leaves (`x.shape`,
`np.broadcast_shapes(...)`, a rule's `shape` template), never a recomputed value.
"""

from __future__ import annotations

import gast

from srcad.analysis.types import Array
from srcad.frontend import syntax as S
from srcad.transform.simplify import shape_value, simplify


class Broadcasting:
    """Shape reasoning over the expression trees of one `ExpressionDiff`."""

    def __init__(self, diff):
        self.diff = diff
        self.sink = None  # reverse: statements where compound shapes are named, once each
        self._named: dict[str, str] = {}

    def collect(self, sink) -> None:
        """Name compound shapes (`shape = np.broadcast_shapes(y.shape, z.shape)`) in `sink`
        from now on (None: write them inline)."""
        self.sink, self._named = sink, {}

    def named_shape(self, node, rebuild):
        """`shape_of(node)`, as a temporary when it calls np.broadcast_shapes."""
        shape = self.shape_of(node, rebuild)
        if self.sink is None or not any(isinstance(n, gast.Call) for n in S.walk(shape)):
            return shape  # `x.shape`, `W.shape[:1]`: as cheap to read as a name
        key = gast.dump(shape)
        if key not in self._named:
            self._named[key] = self.diff.namer.fresh("shape")
            self.sink.append(S.assign(S.name(self._named[key]), shape))
        return S.name(self._named[key])

    def drop_unused(self, stmts) -> None:
        """Remove from `stmts` the named shapes nothing reads (a seed first broadcast to a
        shape and then used unbroadcast, expressions.py `_contribution`)."""
        names = set(self._named.values())
        read = {n.id for s in stmts for n in S.walk(s)
                if isinstance(n, gast.Name) and isinstance(n.ctx, gast.Load)}
        stmts[:] = [s for s in stmts if not (isinstance(s, gast.Assign)
                                             and isinstance(s.targets[0], gast.Name)
                                             and s.targets[0].id in names - read)]

    def rank(self, node) -> int:
        types = self.diff.types
        t = types.of(node) if types is not None else None
        return t.ndim if isinstance(t, Array) else 0

    def shape_of(self, node, rebuild):
        """An expression for the run-time shape of `node` (marked as one: a taped shape is a
        name, and np.outer(u, u)'s `u_shape + u_shape` must stay a concatenation)."""
        return shape_value(self._shape_of(node, rebuild))

    def _shape_of(self, node, rebuild):
        if self.rank(node) == 0:
            return gast.Tuple(elts=[], ctx=gast.Load())
        if isinstance(node, (gast.Name, gast.Subscript)):
            taped = self.diff.leaf_value(shape_attribute(node))  # the shape, recorded alone
            if gast.dump(taped) != gast.dump(shape_attribute(node)):
                return taped
            return gast.Attribute(value=rebuild(node), attr="shape", ctx=gast.Load())
        prim = self.diff.primitive(node)
        if prim is None:
            return S.call("np.shape", rebuild(node))
        rule, operands = prim
        if not rule.elementwise:
            used = S.template_names(rule.shape)
            mapping = {f"{p}_shape": self.shape_of(o, rebuild)
                       for p, o in zip(rule.operands, operands) if f"{p}_shape" in used}
            mapping.update({p: rebuild(o) for p, o in zip(rule.operands, operands)
                            if p in used})  # the sizes of a reshape
            # `()[:0] + (2,)` of a number's shape written out: `(2,)`, a shape srcad reads
            return simplify(S.substitute(rule.shape, mapping), integers=True)
        shapes = {}  # one of each: np.broadcast_shapes(x.shape, t.shape), flat
        for o in operands:
            if self.rank(o) == 0:
                continue
            shape = self.shape_of(o, rebuild)
            parts = shape.args if _is_broadcast_shapes(shape) else [shape]
            for part in parts:
                shapes.setdefault(gast.dump(part), part)
        if len(shapes) == 1:
            return next(iter(shapes.values()))
        return S.call("np.broadcast_shapes", *shapes.values())

    def shape_reads(self, node) -> list:
        """What the shape expression of `node` reads: `x.shape` attributes of its leaves, the
        values it reads otherwise (the sizes of a reshape; `np.shape(value)` where no rule
        gives a shape)."""
        out = []

        def walk(e):
            if isinstance(e, gast.Attribute) and e.attr == "shape":
                out.append(e)
            elif isinstance(e, gast.Name) or (isinstance(e, gast.Subscript)
                                              and not _computed_shape(_base(e))):
                out.append(e)
            elif isinstance(e, gast.Call):
                for a in e.args:
                    walk(a)
            else:
                for child in gast.iter_child_nodes(e):
                    if isinstance(child, gast.expr):
                        walk(child)
        walk(self.shape_of(node, lambda leaf: S.as_load(leaf)))
        return out

    def may_broadcast(self, operands, k) -> bool:
        """Can the elementwise node over `operands` be wider than its operand k? Only if
        another operand is an array (and not the same expression: `h * h`)."""
        own = gast.dump(operands[k])
        return any(self.rank(o) > 0 and gast.dump(o) != own
                   for j, o in enumerate(operands) if j != k)

    def reduce_to(self, contribution, operand, rebuild):
        """`contribution` (the node's shape) summed to the shape of `operand`."""
        if self.rank(operand) == 0:
            if isinstance(contribution, gast.UnaryOp) and isinstance(contribution.op, gast.USub):
                # the sum negated rather than every element: one pass over the array less
                return gast.UnaryOp(op=gast.USub(), operand=S.call("np.sum",
                                                                    contribution.operand))
            return S.call("np.sum", contribution)
        return S.call("unbroadcast", contribution, self.named_shape(operand, rebuild))

    def term_exact(self, rule, k, operands, tangent_exact: bool, partial=False) -> bool:
        """Does the forward term of operand k (rule k applied to its tangent) have the whole
        node's shape? Yes when every array operand is either mentioned by the formula or is
        operand k with a tangent of its own shape. `partial`: the same question of the
        adjoint formula (the seed is then `g`)."""
        used = S.template_names(rule.partials[k] if partial else rule.tangent(k))
        if "ans" in used:
            return True
        return all(self.rank(o) == 0 or p in used or (j == k and tangent_exact)
                   for j, (p, o) in enumerate(zip(rule.operands, operands)))

    def widen(self, tangent, node, rebuild):
        """A tangent narrower than `node`, broadcast to its shape (a read-only view)."""
        return S.call("np.broadcast_to", tangent, self.shape_of(node, rebuild))


def _is_broadcast_shapes(node) -> bool:
    return isinstance(node, gast.Call) and isinstance(node.func, gast.Attribute) \
        and node.func.attr == "broadcast_shapes"


def shape_attribute(leaf) -> gast.Attribute:
    """`x.shape` of a leaf: what the reverse sweep reads (and the forward sweep records, when
    the leaf is rebound later) where it needs only the shape of `x`, not its value."""
    return gast.Attribute(value=S.as_load(leaf), attr="shape", ctx=gast.Load())


def _base(e):
    """The expression a chain of subscripts and attributes starts from (`x` of `x.shape[:1]`,
    the call of `np.broadcast_shapes(...)[:-1]`)."""
    while isinstance(e, (gast.Subscript, gast.Attribute)):
        e = e.value
    return e


def _computed_shape(e) -> bool:
    """Is `e` a shape computed from other shapes (`np.broadcast_shapes(...)`, a runtime helper
    such as `reshaped(...)`)? A part of it is no value to record: what it reads is walked.
    (`np.shape(value)` is recorded as it is: its value has a type.)"""
    if not isinstance(e, gast.Call):
        return False
    f = e.func
    return not (isinstance(f, gast.Attribute) and f.attr == "shape")
