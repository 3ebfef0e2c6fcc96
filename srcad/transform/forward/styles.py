"""How forward mode stores tangents: a `TangentStyle` spells the tangent of a scalar, of an
array element, a fresh tangent array, and the statements of one primal statement.

* `Scalar()`: one tangent per value, `v_dot` (Forward mode);
* `Unrolled(k)`: lane k of a narrow batch, `v_dot_k` (BatchDuplicated, small W): W plain
  float tangents per value, the cheapest form in pure Python;
* `Stacked(W)`: one NumPy vector of W tangents per value, array shadows of shape (W, ...)
  (BatchDuplicated, wide W): pays per operation, wins for wide batches;
* `Looped(W)`: numba vector mode, every tangent statement a loop over the lanes, array
  tangents lanes last inside the function (`transform/forward/lanes.py`).
"""

from __future__ import annotations

from dataclasses import dataclass

import gast

from srcad.frontend import syntax as S
from srcad.transform.forward.lanes import lanes_first, lanes_last
from srcad.transform.normalize.unbounded_lists import is_growth


@dataclass(frozen=True)
class Scalar:
    suffix: str = "_dot"

    def name(self, v: str) -> str:
        return f"{v}{self.suffix}"

    def scalar(self, tangent: str):
        """The tangent of a scalar variable, as an expression."""
        return S.name(tangent)

    def wrap(self, stmts: list) -> list:
        """Tangent statements of one primal statement, as emitted."""
        return stmts

    def element(self, shadow: str, index):
        return gast.Subscript(value=S.name(shadow), slice=S.as_load(index), ctx=gast.Load())

    def zeros_like(self, array: str):
        """A fresh tangent array for the local array `array`."""
        return S.call("np.zeros_like", S.name(array))

    def zeros_result(self, array: str):
        """Zero tangents of a returned array, in the caller's layout."""
        return self.zeros_like(array)

    def grown(self, shadow: str, count):
        """The tangents of a list's buffer made longer with it (`grown(buffer, count)`,
        normalize/unbounded_lists.py), along the buffer's first axis."""
        return S.call("grown", S.name(shadow), S.clone(count))

    def copy_of(self, shadow: str, ndim: int):
        """The tangents of `x.copy()`, from x's tangent array."""
        return S.call("np.copy", S.name(shadow))

    def returned(self, shadow: str, ndim: int):
        """The tangents of a returned array in the caller's layout (None: `shadow` as is)."""
        return None


@dataclass(frozen=True)
class Unrolled(Scalar):
    lane: int = 0

    def name(self, v: str) -> str:
        return f"{v}_dot_{self.lane}"


@dataclass(frozen=True)
class Stacked(Scalar):
    width: int = 1

    def element(self, shadow: str, index):
        parts = index.elts if isinstance(index, gast.Tuple) else [index]
        if _apart(parts):
            # x[3, 2:, idx]: NumPy puts the axes of index arrays apart from each other first,
            # before a leading lane axis; with the lanes last they are the primal's axes
            last = S.call("np.moveaxis", S.name(shadow), S.const(0), S.const(-1))
            taken = gast.Subscript(value=last, slice=gast.Tuple(
                elts=[S.as_load(p) for p in parts], ctx=gast.Load()), ctx=gast.Load())
            return S.call("np.moveaxis", taken, S.const(-1), S.const(0))
        full = gast.Tuple(elts=[gast.Slice(lower=None, upper=None, step=None)]
                          + [S.as_load(p) for p in parts], ctx=gast.Load())
        return gast.Subscript(value=S.name(shadow), slice=full, ctx=gast.Load())

    def zeros_like(self, array: str):
        return S.parse_expr(f"np.zeros(({self.width},) + {array}.shape)")

    def grown(self, shadow: str, count):
        return S.call("grown", S.name(shadow), S.clone(count), S.const(1))  # lanes first


def _apart(parts) -> bool:
    """May `parts` hold index arrays apart from each other or from an int (a slice or
    np.newaxis between two parts that are not slices), with no `...`?"""
    if any(isinstance(p, gast.Constant) and p.value is Ellipsis for p in parts):
        return False
    taken = [k for k, p in enumerate(parts) if not isinstance(p, gast.Slice)
             and not (isinstance(p, gast.Constant) and p.value is None)]
    return len(taken) > 1 and taken[-1] - taken[0] + 1 > len(taken) and any(
        not isinstance(parts[k], gast.Constant) for k in taken)


@dataclass(frozen=True)
class Looped(Stacked):
    """W lanes in arrays, each tangent statement a loop over the lanes: what numba compiles
    into tight machine code with no temporaries. A scalar's tangents are an array of W,
    `v_dot[lane]`; an array's keep the lanes last, `a_dot[i, lane]`, so that a lane loop
    reads contiguous memory, except the caller's arrays named in `lanes_first`, used in the
    caller's layout (W, ...), `a_dot[lane, i]` (see transform/forward/lanes.py). The loops run to
    `lanes`, set at entry (`lanes.lane_count`)."""

    lane: str = "lane"
    lanes: str = "lanes"
    lanes_first: frozenset = frozenset()

    def element(self, shadow: str, index):
        parts = [S.as_load(p) for p in (index.elts if isinstance(index, gast.Tuple)
                                         else [index])]
        lane = [S.name(self.lane)]
        elts = lane + parts if shadow in self.lanes_first else parts + lane
        return gast.Subscript(value=S.name(shadow), slice=gast.Tuple(elts=elts, ctx=gast.Load()),
                              ctx=gast.Load())

    def scalar(self, tangent: str):
        return gast.Subscript(value=S.name(tangent), slice=S.name(self.lane), ctx=gast.Load())

    def zeros_like(self, array: str):
        return S.parse_expr(f"np.zeros({array}.shape + ({self.lanes},))")

    def zeros_result(self, array: str):
        return S.parse_expr(f"np.zeros(({self.lanes},) + {array}.shape)")

    def grown(self, shadow: str, count):
        return Scalar.grown(self, shadow, count)  # a local's lanes are last

    def copy_of(self, shadow: str, ndim: int):
        if shadow in self.lanes_first:
            return lanes_last(shadow, ndim)
        return super().copy_of(shadow, ndim)

    def returned(self, shadow: str, ndim: int):
        return None if shadow in self.lanes_first else lanes_first(shadow, ndim)

    def wrap(self, stmts: list) -> list:
        if not stmts:
            return stmts
        return [gast.For(target=S.name(self.lane, store=True),
                         iter=S.call("range", S.name(self.lanes)), body=stmts, orelse=[],
                         type_comment=None)]


def grown_tangents(transform, stmt):
    """`stmt` and the tangents made longer with it, in each style's layout, when `stmt` makes
    a list's buffer longer (`buffer = grown(buffer, n)`, normalize/unbounded_lists.py);
    else None. `transform`: the ForwardTransform (its styles and tangent names)."""
    if not is_growth(stmt):
        return None
    name, count = stmt.targets[0].id, stmt.value.args[1]
    return [stmt] + [S.assign(S.name(transform.tangent_name(k, name)),
                              style.grown(transform.tangent_name(k, name), count))
                     for k, style in enumerate(transform.styles)]


def tangent_styles(width: int, stacked: bool, backend: str, namer) -> tuple[list, str]:
    """(the styles of forward code's tangents, the suffix of its function's name) for `width`
    lanes: one number per tangent (width 1), the lanes in arrays (`stacked`: NumPy arrays on
    the python backend, a loop over the lanes on numba), else `width` unrolled numbers."""
    if width == 1 and not stacked:
        return [Scalar()], "forward"
    if stacked and backend == "numba":
        lane, lanes = namer.fresh("lane"), namer.fresh("lanes")
        return [Looped(width=width, lane=lane, lanes=lanes)], f"forward_{width}"
    if stacked:
        return [Stacked(width=width)], f"forward_{width}"
    return [Unrolled(lane=k) for k in range(width)], f"forward_{width}"
