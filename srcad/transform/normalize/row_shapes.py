"""The shape of the arrays appended to a list, as an expression of names bound before the
loop that appends them (srcad/transform/normalize/array_rows.py makes the list an array of
that many rows of this shape before the loop).

A shape is known for the shape of a name bound there (`h.shape`), and is computed from it
through elementwise arithmetic and NumPy functions (`np.broadcast_shapes` of the operands'),
`@` of vectors and matrices, `x.T`, `np.outer` of vectors, `x.copy()`, a row `x[i]` of an
array of rank 2 or more, a slice `x[i:i + c]` or `x[:c]`, and np.concatenate/np.stack/
np.hstack/np.vstack of a written-out list of such arrays (`np.concatenate([x, y])` has
`x.shape[0] + y.shape[0]` entries). A name bound after (in the loop) has the shape of a
value it is bound to; each append checks its value's shape against it, so another one raises.
"""

from __future__ import annotations

import gast

from srcad.analysis.value_types import INT
from srcad.frontend import syntax as S
from srcad.frontend.parse import resolve_callee
from srcad.rules import lookup_call
from srcad.rules.table import ELEMENTWISE

_ELEMENTWISE_OPS = (gast.Add, gast.Sub, gast.Mult, gast.Div, gast.Pow)
_JOINS = {"concatenate", "hstack", "vstack", "stack"}


class RowShape:
    """A shape expression, of names bound where the array is made, of an array expression
    (None when it is not known there)."""

    def __init__(self, norm, types, available):
        self.norm = norm
        self.types = types
        self.available = available
        self.following: set = set()

    def rank(self, e) -> int:
        return getattr(self.types.of(e), "ndim", 0)

    def of(self, e):
        if self.rank(e) == 0:
            return S.substitute("()", {})
        if isinstance(e, gast.Name):
            return self.name_shape(e.id)
        if isinstance(e, gast.BinOp) and isinstance(e.op, _ELEMENTWISE_OPS):
            return self.broadcast([e.left, e.right])
        if isinstance(e, gast.UnaryOp):
            return self.of(e.operand)
        if isinstance(e, gast.BinOp) and isinstance(e.op, gast.MatMult):
            return self.matmul(e.left, e.right)
        if isinstance(e, gast.Subscript):
            return self.subscript(e)
        if isinstance(e, gast.Attribute) and e.attr == "T":
            return self.part(e.value, "[::-1]")
        if isinstance(e, gast.Call):
            return self.call(e)
        return None

    def call(self, e):
        if isinstance(e.func, gast.Attribute) and e.func.attr == "copy" and not e.args:
            return self.of(e.func.value)
        callee = resolve_callee(self.norm.parsed, e.func, self.norm.extra_names)
        info = lookup_call(callee) if callee is not None else None
        if info is None or (e.keywords and info.name not in _JOINS):
            return None
        if info.arrays == ELEMENTWISE:
            return self.broadcast(e.args)
        if info.name in ("transpose", "copy", "array") and len(e.args) == 1 \
                and not isinstance(e.args[0], (gast.List, gast.Tuple)):
            return self.of(e.args[0]) if info.name != "transpose" else \
                self.part(e.args[0], "[::-1]")
        if info.name == "outer" and len(e.args) == 2 \
                and [self.rank(a) for a in e.args] == [1, 1]:
            shapes = [self.of(a) for a in e.args]
            return None if any(s is None for s in shapes) else gast.Tuple(
                elts=[entry(shape, 0, 1) for shape in shapes], ctx=gast.Load())
        if info.name in _JOINS and len(e.args) == 1 and isinstance(e.args[0], gast.List):
            return self.join(info.name, e.args[0].elts, e.keywords)
        return None

    def join(self, fname, parts, keywords):
        """np.concatenate/np.stack/np.hstack/np.vstack of the written-out list `parts` along
        axis 0 (of vectors, for hstack and vstack): the first part's shape with the length
        of that axis added up (or a new axis)."""
        ranks = {self.rank(p) for p in parts}
        if not parts or keywords or len(ranks) != 1:
            return None  # other axes, ranks NumPy refuses: not known here
        rank = ranks.pop()
        shapes = [self.of(p) for p in parts]
        if any(s is None for s in shapes):
            return None
        if fname == "stack" or (fname == "vstack" and rank == 1):
            return S.substitute("(n,) + s", {"n": S.const(len(parts)), "s": shapes[0]})
        if rank == 0 or (fname == "hstack" and rank > 1) or fname == "vstack":
            return None
        total = entry(shapes[0], 0, rank)
        for shape in shapes[1:]:
            total = gast.BinOp(left=total, op=gast.Add(), right=entry(shape, 0, rank))
        if rank == 1:
            return gast.Tuple(elts=[total], ctx=gast.Load())
        return S.substitute("(t,) + s[1:]", {"t": total, "s": shapes[0]})

    def joined(self, operands, template):
        shapes = [self.of(o) for o in operands]
        if any(s is None for s in shapes):
            return None
        return S.substitute(template, dict(zip("ab", shapes)))

    def name_shape(self, name_):
        if name_ in self.available:
            return S.substitute("x.shape", {"x": S.name(name_)})
        values = [n.value for stmt in self.norm.body for n in gast.walk(stmt)
                  if isinstance(n, gast.Assign) and len(n.targets) == 1
                  and isinstance(n.targets[0], gast.Name) and n.targets[0].id == name_]
        if name_ in self.following:
            return None
        self.following.add(name_)  # bound after: the shape of a value it is bound to (the
        # check of each row's shape catches another)
        shape = next((shape for shape in map(self.of, values) if shape is not None), None)
        self.following.discard(name_)
        return shape

    def broadcast(self, operands):
        shapes = [self.of(o) for o in operands if self.rank(o) > 0]
        if not shapes or any(s is None for s in shapes):
            return None
        return shapes[0] if len(shapes) == 1 else S.call("np.broadcast_shapes", *shapes)

    def matmul(self, left, right):
        ranks = self.rank(left), self.rank(right)
        if ranks == (2, 1):
            return self.part(left, "[:1]")
        if ranks == (1, 2):
            return self.part(right, "[1:]")
        if ranks == (2, 2):
            return self.joined([left, right], "a[:1] + b[1:]")
        return None

    def part(self, e, entries):
        shape = self.of(e)
        return None if shape is None else S.substitute(f"s{entries}", {"s": shape})

    def subscript(self, e):
        index = e.slice
        if self.rank(e.value) >= 2 and self.types.of(index) == INT:
            return self.part(e.value, "[1:]")  # a row
        if self.rank(e.value) == 1 and isinstance(index, gast.Slice) and index.step is None \
                and isinstance(index.upper, gast.BinOp) and isinstance(index.upper.op, gast.Add) \
                and isinstance(index.upper.right, gast.Constant) \
                and type(index.upper.right.value) is int and index.lower is not None \
                and S.unparse_expr(index.lower) == S.unparse_expr(index.upper.left):
            # x[i:i + c]: c entries (fewer at the end: the reshape refuses those)
            return S.substitute("(c,)", {"c": S.const(index.upper.right.value)})
        if self.rank(e.value) == 1 and isinstance(index, gast.Slice) and index.step is None \
                and (index.lower is None or _int(index.lower) == 0) \
                and _int(index.upper) is not None and _int(index.upper) >= 0:
            if isinstance(e.value, gast.Name) and e.value.id in self.available:
                return S.substitute("(len(x),)", {"x": e})  # x[:c]: c entries, or all
        return None


def entry(shape, k, length):
    """The expression of entry `k` of the shape expression `shape` of `length` entries
    (`x.shape[1]` of `x.shape[1:]`, `y.shape[0]` of `x.shape[:1] + y.shape[1:]`), read
    through the tuples and slices `RowShape` builds, so that each is an int of a shape."""
    if isinstance(shape, gast.Tuple):
        return shape.elts[k]
    if isinstance(shape, gast.BinOp) and isinstance(shape.op, gast.Add):
        first = _length(shape.left)
        if first is not None:
            return entry(shape.left, k, first) if k < first else \
                entry(shape.right, k - first, length - first)
        last = _length(shape.right)
        if last is not None:
            return entry(shape.right, k - (length - last), last) if k >= length - last \
                else entry(shape.left, k, length - last)
    if isinstance(shape, gast.Subscript) and isinstance(shape.slice, gast.Slice):
        lower, upper, step = (_int(getattr(shape.slice, f)) for f in ("lower", "upper", "step"))
        if shape.slice.step is None and shape.slice.upper is None and lower is not None:
            return entry(shape.value, lower + k, length + lower)  # s[1:]
        if shape.slice.step is None and shape.slice.lower is None and upper is not None:
            return entry(shape.value, k, None)  # s[:1]
        if step == -1 and shape.slice.lower is None and shape.slice.upper is None \
                and length is not None:
            return entry(shape.value, length - 1 - k, length)  # s[::-1]
    return S.substitute(f"s[{k}]", {"s": shape})


def _length(shape):
    """How many entries a shape expression has, when it says so itself."""
    if isinstance(shape, gast.Tuple):
        return len(shape.elts)
    if isinstance(shape, gast.Subscript) and isinstance(shape.slice, gast.Slice) \
            and shape.slice.lower is None and shape.slice.step is None:
        return _int(shape.slice.upper)  # s[:1]
    return None


def _int(node):
    if isinstance(node, gast.UnaryOp) and isinstance(node.op, gast.USub):
        value = _int(node.operand)
        return None if value is None else -value
    return node.value if isinstance(node, gast.Constant) and type(node.value) is int else None
