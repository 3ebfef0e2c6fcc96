"""Does a loop rebind an array local with a shape that may differ between iterations?

The reverse sweep resets the adjoint of a rebound array to zeros of the replaced value's
shape. In a loop the replaced value is the previous iteration's, and `w = x[0:i + 1] * x[i]`
makes a longer `w` each time: the reset must make zeros of the recorded old shape. Where
the shape provably stays the same (`xc = x[i] - means[k]`, a row per iteration) the adjoint
is zeroed in place, with no allocation and nothing taped.

A shape is loop-invariant when its expression (`Broadcasting.shape_of`) reads only names
the outermost enclosing loop leaves alone, the shapes of arrays bound only inside that loop
with loop-invariant shapes, and, in a subscript, slice bounds of the same kind and integer
indices of any value (`A[i]` has the shape of a row whatever `i` is).

An array the loop carries (bound before it) is taken to keep its shape when each of its
bindings in the loop broadcasts its own shape with others (`y = y + k * h`). That holds for an
ODE or RNN step, but not for `y = y + v` with a (1,) `y` and a (3,) `v`: such a binding is
checked at run time (`assumed_to_keep_shape`, reverse/shape_guards.py), and so is every
binding of a carried array in a checkpointed loop, whose snapshots take them all to keep
their shapes.
"""

from __future__ import annotations

import gast

from srcad.frontend import syntax as S


def shape_may_change(recording, shapes, params, stmt, name, settled=frozenset(),
                     assume_carried=True) -> bool:
    """Can the value `stmt` (`name = value`, inside a loop) binds have another shape than the
    value it replaces, bound by the loop's previous iteration? The arrays in `settled` are
    taken to keep their shapes; without `assume_carried`, a carried array only when each of
    its bindings has its own shape (`y = np.sin(y)`), not when they broadcast it."""
    loops = recording.loops_around(stmt)
    if not loops:
        return False
    invariance = _Invariance(recording, shapes, params, loops[0], settled, assume_carried)
    return not invariance.binding(name, stmt)


def assumed_to_keep_shape(recording, shapes, params, stmt, checkpointed) -> str | None:
    """The array `stmt` (`name = value`, inside a loop) binds when reverse mode takes it to
    keep its shape without knowing it does: an array the outermost loop carries, whose every
    binding in the loop broadcasts its own shape with others (`_Invariance.array`), bound
    here to another shape expression than its own; in a `checkpointed` loop, any carried
    array bound to another shape expression than its own. Else None."""
    loops = recording.loops_around(stmt) if id(stmt) in recording.sites else []
    name = stmt.targets[0].id
    if not loops or not _plain(stmt, name):
        return None
    assigns = _bindings_in(loops[0].body + loops[0].orelse).get(name, [])
    if name not in params and len(assigns) == recording.bind_count.get(name, 0):
        return None  # not carried: bound only in the loop
    if _own(shapes.shape_of(stmt.value, S.as_load), name):
        return None
    if checkpointed:
        return name
    keeps = all(isinstance(s, gast.AugAssign) or (
        _plain(s, name) and _keeps(shapes.shape_of(s.value, S.as_load), name)) for s in assigns)
    return name if keeps else None


class _Invariance:
    def __init__(self, recording, shapes, params, loop, settled, assume_carried=True):
        self.shapes = shapes
        self.keeps = _keeps if assume_carried else _own
        self.params = set(params)
        self.settled = settled
        self.bound = recording.subtree_binds(loop)  # the For targets included
        self.bind_count = recording.bind_count
        self.bindings = _bindings_in(loop.body + loop.orelse)
        self.visiting: dict = {}  # name -> len(assumed) when its check started
        self.assumed: set = set()  # carried arrays taken to keep their shape (`array`)

    def binding(self, name, stmt) -> bool:
        """Is `stmt` the one binding of `name` in the loop, of a loop-invariant shape?"""
        assigns = self.bindings.get(name, [])
        return assigns == [stmt] and self.array(name)

    def array(self, name) -> bool:
        """Does the array `name` have the same shape wherever the loop reads it? One the loop
        carries (bound before it too) does when each of its bindings in the loop keeps its
        shape (`y = y + k * h`, `np.broadcast_shapes(y.shape, k.shape)`) with invariant parts:
        a binding that broadcasts could widen it, so the forward sweep checks that it did
        not (reverse/shape_guards.py); without `assume_carried`, each binding must have its
        own shape (`y = np.sin(y)`)."""
        if name not in self.bound or name in self.settled or name in self.assumed:
            return True
        if name in self.visiting:  # a cycle: through a carried array taken to keep its shape
            return self.visiting[name] < len(self.assumed)
        assigns = self.bindings.get(name, [])
        if not assigns or not all(isinstance(s, gast.AugAssign) or _plain(s, name)
                                  for s in assigns):
            return False  # bound by a `for` or a tuple
        carried = name in self.params or len(assigns) != self.bind_count.get(name, 0)
        shapes = [self.shapes.shape_of(s.value, S.as_load) for s in assigns
                  if isinstance(s, gast.Assign)]
        if carried and not all(self.keeps(shape, name) for shape in shapes):
            return False
        if carried:
            self.assumed.add(name)
        else:
            self.visiting[name] = len(self.assumed)
        try:
            return all(self.expr(shape) for shape in shapes)
        finally:
            self.assumed.discard(name)
            self.visiting.pop(name, None)

    def expr(self, e) -> bool:
        """Does the shape expression `e` have one value throughout the loop?"""
        if isinstance(e, gast.Attribute) and e.attr == "shape":
            return self.shape_source(e.value)
        if isinstance(e, gast.Name):
            return e.id not in self.bound
        return all(self.expr(c) for c in gast.iter_child_nodes(e) if isinstance(c, gast.expr))

    def shape_source(self, e) -> bool:
        """Does the array expression `e` have one shape throughout the loop?"""
        if isinstance(e, gast.Name):
            return self.array(e.id)
        if isinstance(e, gast.Attribute) and e.attr == "T":
            return self.shape_source(e.value)
        if isinstance(e, gast.Subscript):
            index = e.slice.elts if isinstance(e.slice, gast.Tuple) else [e.slice]
            return self.shape_source(e.value) and all(self.index(k) for k in index)
        return self.expr(e)

    def index(self, k) -> bool:
        if isinstance(k, gast.Slice):
            return all(self.expr(b) for b in (k.lower, k.upper, k.step) if b is not None)
        return self.shapes.rank(k) == 0 or self.expr(k)


def _keeps(shape, name) -> bool:
    """Is `shape` `name.shape`, or np.broadcast_shapes of it with other shapes?"""
    own = gast.dump(_own_shape(name))
    parts = shape.args if isinstance(shape, gast.Call) and isinstance(shape.func, gast.Attribute) \
        and shape.func.attr == "broadcast_shapes" else [shape]
    return any(gast.dump(p) == own for p in parts)


def _own(shape, name) -> bool:
    """Is `shape` `name.shape`?"""
    return gast.dump(shape) == gast.dump(_own_shape(name))


def _own_shape(name):
    return gast.Attribute(value=S.name(name), attr="shape", ctx=gast.Load())


def _plain(stmt, name) -> bool:
    return isinstance(stmt, gast.Assign) and len(stmt.targets) == 1 \
        and isinstance(stmt.targets[0], gast.Name) and stmt.targets[0].id == name


def _bindings_in(stmts) -> dict:
    """name -> the statements in `stmts` (nested blocks too) that rebind it."""
    out: dict = {}
    for node in stmts:
        for n in S.walk(node):
            if isinstance(n, (gast.Assign, gast.AugAssign, gast.For)):
                for name in S.bound_names(n) if not isinstance(n, gast.For) else \
                        {t.id for t in S.walk(n.target) if isinstance(t, gast.Name)}:
                    out.setdefault(name, []).append(n)
    return out
