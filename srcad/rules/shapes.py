"""Shapes: reshape, ravel / flatten, expand_dims, squeeze, and np.full / np.full_like of a
fill value that carries a derivative (a new array: its shape s is no operand with a
derivative, and an int n is the shape (n,)). Linear and elementwise in their
operand's values, so the tangent is the same reshaping of the tangent and the adjoint puts
the seed back into the operand's shape. The new shape of a reshape (expressions, `-1` for
one axis) is made of operands without derivative (`n0`, `n1`, ...).

| primitive               | tangent                    | adjoint                 |
|-------------------------|----------------------------|-------------------------|
| x.reshape(n0, n1)       | np.reshape(g, (n0, n1))    | np.reshape(g, x.shape)  |
| np.ravel(x), x.flatten()| np.ravel(g)                | np.reshape(g, x.shape)  |
| np.expand_dims(x, 1)    | np.expand_dims(g, 1)       | np.reshape(g, x.shape)  |
| np.squeeze(x, axis=0)   | np.squeeze(g, axis=0)      | np.reshape(g, x.shape)  |
| np.broadcast_to(x, s)   | np.broadcast_to(g, s)      | unbroadcast(g, x.shape) |
| unbroadcast(x, s)       | unbroadcast(g, s)          | np.broadcast_to(g, x.shape) |
| np.full(s, x)           | copy of broadcast_to(g, s) | unbroadcast(g, x.shape) |
| np.full_like(a, x)      | copy of broadcast_to(g, a.shape) | unbroadcast(g, x.shape) |

`unbroadcast` (srcad/runtime/array_runtime.py) and `np.broadcast_to` are what srcad's own array
adjoints call: their rules let hessian and hvp differentiate that code again. Their rank is
the length of the shape `s` (analysis/shape_lengths.py), which the code must show.
"""

from __future__ import annotations

from srcad.errors import SrcadError
from srcad.rules.rule_type import Rule, ShapeLength, shape_rank

_BACK = "np.reshape(g, x_shape)"


def reshape(ranks, keywords):
    """x.reshape(n0, n1, ...), x.reshape((n0, n1)), np.reshape(x, (n0, n1))."""
    count = len(ranks) - 1
    if count == 0:
        raise SrcadError("reshape without a shape", construct="reshape")
    if count == 1 and (ranks[1] != 0 or isinstance(ranks[1], ShapeLength)):
        # np.reshape(g, x.shape), np.reshape(x, ()): a shape value of that length
        return Rule("reshape", ("x", "s"), (_BACK, None), "float", ("np.reshape(g, s)", None),
                    False, "reshaped(x_shape, s)", _shape_rank(ranks, "reshape"))
    sizes = [f"n{k}" for k in range(count)]
    shape = "(" + ", ".join(sizes) + ("," if count == 1 else "") + ")"
    return Rule("reshape", ("x",) + tuple(sizes), (_BACK,) + (None,) * count, "float",
                (f"np.reshape(g, {shape})",) + (None,) * count, False,
                f"reshaped(x_shape, {shape})", count)


def ravel(ranks, keywords):
    """np.ravel(x), x.ravel(), x.flatten()."""
    return Rule("ravel", ("x",), (_BACK,), "float", ("np.ravel(g)",), False,
                "reshaped(x_shape, (-1,))", 1)


def _axis(keywords, rank, name) -> int:
    axis = keywords.get("axis")
    if not isinstance(axis, int) or not -rank <= axis < rank:
        raise SrcadError(f"{name} needs a literal int axis within the rank", construct=name,
                         hint=f"write np.{name}(x, axis=0)")
    return axis % rank


def expand_dims(ranks, keywords):
    """np.expand_dims(x, axis)."""
    a = _axis(keywords, ranks[0] + 1, "expand_dims")
    return Rule("expand_dims", ("x",), (_BACK,), "float", (f"np.expand_dims(g, {a})",), False,
                f"x_shape[:{a}] + (1,) + x_shape[{a}:]", ranks[0] + 1)


def squeeze(ranks, keywords):
    """np.squeeze(x, axis), x.squeeze(axis): an int or a tuple of ints (the axis must be
    given: the rank of the result depends on it)."""
    axis = keywords.get("axis")
    if axis is None:
        raise SrcadError("np.squeeze without an axis: the rank of its result depends on which "
                         "axes have length 1, and srcad's compiled code serves every shape of "
                         "a rank (it knows ranks, not sizes)", construct="squeeze",
                         hint="name the axes of length 1: np.squeeze(x, axis=0) or "
                         "x.squeeze((0, 2))")
    axes = sorted({_axis({"axis": a}, ranks[0], "squeeze")
                   for a in (axis if isinstance(axis, tuple) else (axis,))})
    kept = [k for k in range(ranks[0]) if k not in axes]
    shape = "(" + "".join(f"x_shape[{k}], " for k in kept) + ")"
    spelled = axes[0] if len(axes) == 1 else tuple(axes)  # numba: an int
    return Rule("squeeze", ("x",), (_BACK,), "float", (f"np.squeeze(g, axis={spelled})",),
                False, shape, len(kept))


def _shape_rank(ranks, name) -> int:
    rank = shape_rank(ranks[1])
    if rank is None:
        raise SrcadError(f"the length of the shape `{name}` broadcasts to is not known from "
                         "the code (a shape taken from a tape or a variable)", construct=name,
                         hint="use gradient or jacobian of this program")
    return rank


def broadcast_to(ranks, keywords):
    """np.broadcast_to(x, s): linear; the adjoint sums the broadcast axes back."""
    shape = "s" if isinstance(ranks[1], ShapeLength) else "np.broadcast_shapes(s)"  # n: (n,)
    return Rule("broadcast_to", ("x", "s"), ("unbroadcast(g, x_shape)", None), "float",
                ("np.broadcast_to(g, s)", None), False, shape, _shape_rank(ranks, "broadcast_to"))


def unbroadcast(ranks, keywords):
    """unbroadcast(x, s), srcad's sum of x down to the shape s: linear; the adjoint broadcasts
    the seed back up."""
    return Rule("unbroadcast", ("x", "s"), ("np.broadcast_to(g, x_shape)", None), "float",
                ("unbroadcast(g, s)", None), False, "s", _shape_rank(ranks, "unbroadcast"))


def _no_shape(keywords, name):
    if keywords.get("shape") is not None:
        raise SrcadError(f"np.{name} with shape=", construct=name,
                         hint="write np.full(shape, x) instead")


def full(ranks, keywords):
    """np.full(s, x): x broadcast to the shape s (an int or a tuple), a new array; the
    adjoint sums the seed back to x's shape (JAX's convention for a fill value that carries a
    derivative)."""
    rank = shape_rank(ranks[0])
    if rank is None:
        raise SrcadError("np.full with a shape whose length is not known from the code",
                         construct="full", hint="write the shape as an int or a tuple")
    return Rule("full", ("s", "x"), (None, "unbroadcast(g, x_shape)"), "float",
                (None, "np.copy(np.broadcast_to(g, s))"), False, "np.broadcast_shapes(s)",
                rank)


def full_like(ranks, keywords):
    """np.full_like(a, x): x broadcast to a's shape, a new array (a gives only its shape)."""
    _no_shape(keywords, "full_like")
    return Rule("full_like", ("a", "x"), (None, "unbroadcast(g, x_shape)"), "float",
                (None, "np.copy(np.broadcast_to(g, a_shape))"), False, "a_shape", ranks[0])
