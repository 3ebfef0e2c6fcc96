"""A lifted loop runs block by block: memory bounded whatever the number of iterations.

srcad/transform/parallel_loops.py runs a loop's independent iterations as NumPy code on
arrays of iterations. Run on all iterations at once, every value of the loop body would be
an array as long as the loop (times the lanes of stacked tangents): a prepared in-place
jacobian would allocate in proportion to n at every call. Instead the lifted code runs over
blocks (strip-mining):

    span = range(a, b)
    block = max(BLOCK_MIN, min(BLOCK, BLOCK_ELEMENTS // lanes))   # lanes: 1 without them
    for start in range(span.start, span.stop, block):
        stop = min(start + block, span.stop)
        try:
            <the block's values>; <its writes>; <names read after: their last value>
        except Exception:
            for i in range(start, stop): <the loop's body>

A block holds at most BLOCK iterations and BLOCK_ELEMENTS lane-iteration pairs (stacked
tangents of W lanes: BLOCK_ELEMENTS // W iterations, never fewer than BLOCK_MIN), so each
value the lifted code holds has at most max(BLOCK_ELEMENTS, BLOCK_MIN * W) floats, whatever
the loop's length. An exception in a block runs that block's iterations as the loop (the
blocks before it wrote what the loop writes: iterations are independent), which raises what
CPython raises; the next blocks go on.

An element read or written through the loop variable itself, `x[i]`, `x[i - 1]`,
`A_dot[:, r, i]` (the other parts numbers the loop does not set), is a basic slice of the
block, `x[start - 1:stop - 1]`: a view, not a gathered copy. That is the gather of
`np.arange(start, stop) - 1` only when every index is in bounds, which the loop's guard
checks once for the whole range (`0 <= a - 1` and `b - 1 <= x.shape[0]`; else the loop
runs; `x[i - 1]` from a constant first iteration 0 reads x[-1] and stays a gather). A
vector of lanes read without the loop variable, `A_dot[:, r, k]`, is the column
`A_dot[:, r, k, None]` (lanes first, one iteration: it broadcasts against a value of every
iteration), a view too.

>>> import gast
>>> blocks = Blocks("i", [gast.parse("n", mode="eval").body], set(), "start", "stop")
>>> from srcad.frontend import syntax as S
>>> print(S.unparse_expr(blocks.read(gast.parse("x[i + 1] + a_dot[:, k]").body[0].value)))
x[start + 1:stop + 1] + a_dot[:, k, None]
>>> blocks.guards()
['n + 1 <= x.shape[0]']
"""

from __future__ import annotations

import gast

from srcad.frontend import syntax as S
from srcad.transform.parallel_arrays import lane_slice, parts_of

BLOCK = 256  # iterations a block at most
BLOCK_ELEMENTS = 8192  # lane-iteration pairs a block at most, with stacked lanes
BLOCK_MIN = 16  # iterations a block at least, however many lanes


class Blocks:
    """The slices of one lifted loop's block: `var` the loop variable over range(*bounds),
    `varying` the names the loop sets that are not the same in every iteration, `start` and
    `stop` the names of the block's bounds, `column` (when given) the name standing for a
    lane part `:` in the lifted code."""

    def __init__(self, var, bounds, varying, start, stop, column=None):
        self.var, self.varying = var, set(varying) | {var}
        first = bounds[0] if len(bounds) == 2 else gast.Constant(0, None)
        self.known_first = first.value if isinstance(first, gast.Constant) else None
        self.first = S.unparse_expr(first)
        self.last = S.unparse_expr(bounds[-1])
        self.start, self.stop, self.column = start, stop, column
        self.sliced: list = []  # (array, axis, offset) of every slice made

    # -- the parts of one subscript
    def _offset(self, part):
        """c when `part` is `i`, `i + c`, `c + i` or `i - c` (c an int), else None."""
        if isinstance(part, gast.Name) and part.id == self.var:
            return 0
        if isinstance(part, gast.BinOp) and isinstance(part.op, (gast.Add, gast.Sub)):
            sign = 1 if isinstance(part.op, gast.Add) else -1
            pairs = [(part.left, part.right)] + ([(part.right, part.left)] if sign > 0 else [])
            for name, number in pairs:
                if isinstance(name, gast.Name) and name.id == self.var \
                        and isinstance(number, gast.Constant) and type(number.value) is int:
                    return sign * number.value
        return None

    def _fixed(self, part) -> bool:
        """The same number in every iteration: no name the loop varies."""
        return not any(isinstance(n, gast.Name) and n.id in self.varying
                       for n in gast.walk(part))

    def _is_lane(self, part) -> bool:
        return bool(lane_slice(part)) or (self.column is not None and isinstance(
            part, gast.Name) and part.id == self.column)

    def parts(self, array, parts):
        """Basic-index parts for `array[parts]` in a block, or None (a gather)."""
        lane = self._is_lane(parts[0])
        rest = list(enumerate(parts))[1 if lane else 0:]
        varied = [(axis, p) for axis, p in rest if not self._fixed(p)]
        if len(varied) > 1 or (not varied and not lane):
            return None
        new = ([gast.Slice(None, None, None)] if lane else []) + [p for _, p in rest]
        if not varied:  # a vector of lanes, the same in every iteration: a column
            return new + [gast.Constant(None, None)]
        axis, part = varied[0]
        offset = self._offset(part)
        if offset is None or (type(self.known_first) is int and self.known_first + offset < 0):
            return None  # `x[i - 1]` from i = 0 reads x[-1]: a gather
        self.sliced.append((array, axis, offset))
        new[axis] = gast.Slice(self._bound(self.start, offset), self._bound(self.stop, offset),
                               None)
        return new

    def _bound(self, name, offset):
        text = name if offset == 0 else f"{name} {'+' if offset > 0 else '-'} {abs(offset)}"
        return S.parse_expr(text)

    def write_index(self, array, parts):
        """The index of a write `array[parts] = ...` as a value (`slice(...)` for a slice),
        or None (a gather)."""
        new = self.parts(array, [S.clone(p) for p in parts])
        if new is None:
            return None
        new = [S.call("slice", *(S.clone(b) if b is not None else gast.Constant(None, None)
                                 for b in (p.lower, p.upper)))
               if isinstance(p, gast.Slice) else p for p in new]
        return new[0] if len(new) == 1 else gast.Tuple(new, gast.Load())

    # -- trees
    def read(self, tree):
        """`tree` (changed in place) with its reads of arrays sliced where they can be."""
        return _Sliced(self).visit(tree)

    def guards(self) -> list:
        """Every slice made stays in bounds over the whole range (checked once)."""
        out = []
        for array, axis, offset in sorted(set(self.sliced)):
            shift = "" if offset == 0 else f" {'+' if offset > 0 else '-'} {abs(offset)}"
            if type(self.known_first) is not int:  # (a constant one is checked on the tree)
                out.append(f"0 <= {self.first}{shift}")
            out.append(f"{self.last}{shift} <= {array}.shape[{axis}]")
        return list(dict.fromkeys(out))


class _Sliced(gast.NodeTransformer):
    def __init__(self, blocks):
        self.blocks = blocks

    def visit_Subscript(self, node):
        if isinstance(node.value, gast.Name) and isinstance(node.ctx, gast.Load):
            new = self.blocks.parts(node.value.id, parts_of(node))
            if new is not None:
                node.slice = new[0] if len(new) == 1 else gast.Tuple(new, gast.Load())
                return node
        self.generic_visit(node)
        return node


def block_size(lane_array) -> str:
    """The expression of a block's iterations (`lane_array`: one stacked-lanes array)."""
    if lane_array is None:
        return str(BLOCK)
    return f"max({BLOCK_MIN}, min({BLOCK}, {BLOCK_ELEMENTS} // max(1, {lane_array}.shape[0])))"


def strip_mined(loop, bounds, attempt, names, lane_array):
    """The statements running `attempt` (a block's lifted statements, then its writes) block
    by block, each block that raises run as `loop` over the block's iterations.
    `names`: fresh (span, block, start, stop)."""
    span, block, start, stop = names
    fallback = S.clone(loop)
    fallback.iter = S.parse_expr(f"range({start}, {stop})")
    text = ", ".join(S.unparse_expr(b) for b in bounds)
    head = S.parse_stmts(f"{span} = range({text})\n{block} = {block_size(lane_array)}\n"
                         f"for {start} in range({span}.start, {span}.stop, {block}):\n"
                         f"    {stop} = min({start} + {block}, {span}.stop)")
    head[-1].body.append(gast.Try(body=attempt, handlers=[gast.ExceptHandler(
        S.name("Exception"), None, [fallback])], orelse=[], finalbody=[]))
    return head
