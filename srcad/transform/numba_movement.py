"""numba spellings of NumPy's movement and selecting functions: `np.roll(x, 1, axis=0)`
becomes `moved_roll(x, 1, axis=0)`, the same arguments, a function of
srcad/runtime/numba_movement.py, numba_padding.py or numba_selection.py that follows NumPy's
keywords where numba's own does not (numba has np.roll and np.repeat without `axis=`, np.flip
of a whole array, np.trace of the main diagonal, np.sort along the last axis, and no np.tile,
np.pad or np.diagonal). The methods `x.repeat(...)`, `x.take(...)`, `x.diagonal(...)` and
`x.trace(...)` become the same calls of their receiver. The adjoints the rules call (`untile`,
`unpad`, ...) keep their names: the numba module imports the compiled ones
(srcad/build/compiler.py). np.median, np.quantile and np.percentile become `moved_median`,
... (srcad/runtime/numba_quantiles.py), and a stable np.argsort (the ranks their derivative
reads) or one with an axis written `sort_order` (numba's np.argsort sorts a vector);
np.einsum `moved_einsum` (srcad/runtime/numba_einsum.py). `np.atleast_1d(v)` becomes
`moved_atleast_1d(v)` (2d, 3d alike): numba's take arrays (srcad/runtime/numba_movement.py
wraps a number).
`np.prod(x.shape)`, the size in a rule's result shape, becomes
`size_of(x.shape)` (numba's np.prod takes no tuple).

>>> from srcad.frontend import syntax as S
>>> S.unparse_expr(moved_call(S.parse_expr("x.repeat(2, axis=0)"), module=False))
'moved_repeat(x, 2, axis=0)'
"""

from __future__ import annotations

import gast

from srcad.frontend import syntax as S

# np.<name> spelled moved_<name> (srcad/runtime/runtime_names.py lists the runtime's names)
MOVED = ("flip", "fliplr", "flipud", "roll", "rot90", "tile", "repeat", "pad", "take",
         "diagonal", "trace", "sort", "median", "quantile", "percentile", "einsum",
         # srcad/runtime/numba_scans.py
         "cumsum", "cumprod", "diff", "trapezoid", "gradient", "average", "linspace",
         "partition", "rollaxis",  # srcad/runtime/numba_reorder.py
         "convolve", "correlate",  # srcad/runtime/numba_convolution.py
         "kron")  # srcad/runtime/numba_products.py
# array methods that are these functions of their receiver (x.sort() sorts in place: not one)
_METHODS = ("repeat", "take", "diagonal", "trace", "cumsum", "cumprod")


def moved_call(node, module: bool):
    """`moved_<name>(...)` for a call `np.<name>(...)` (`module`) or `x.<name>(...)` of one of
    these functions; `node` itself for any other call."""
    name = node.func.attr
    if module and name == "prod" and len(node.args) == 1 and not node.keywords \
            and isinstance(node.args[0], gast.Attribute) and node.args[0].attr == "shape":
        # the size in a rule's result shape (np.diagflat, np.sort(x, axis=None)): numba's
        # np.prod takes arrays, not a shape tuple
        return gast.copy_location(S.call("size_of", node.args[0]), node)
    if module and name == "argsort" and node.args and (_stable(node.keywords)
                                                       or _axis_written(node)):
        # the ranks in np.median's derivative, and an argsort along an axis (numba's sorts a
        # vector): srcad/runtime/numba_selection.py's stable order
        axis = next((k.value for k in node.keywords if k.arg == "axis"),
                    node.args[1] if len(node.args) > 1 else S.const(-1))
        return gast.copy_location(S.call("sort_order", node.args[0], axis), node)
    if module and name in ("atleast_1d", "atleast_2d", "atleast_3d") \
            and len(node.args) == 1 and not node.keywords:
        # numba's take arrays: of a number, srcad/runtime/numba_movement.py's
        return gast.copy_location(S.call(f"moved_{name}", node.args[0]), node)
    if not module and name == "swapaxes":  # numba has np.swapaxes, not the method
        return gast.copy_location(gast.Call(
            func=gast.Attribute(value=S.name("np"), attr="swapaxes", ctx=gast.Load()),
            args=[node.func.value, *node.args], keywords=node.keywords), node)
    if not (module and name in MOVED or not module and name in _METHODS):
        return node
    arguments = [_tuples(a) for a in node.args]
    keywords = [gast.keyword(arg=k.arg, value=_tuples(k.value)) for k in node.keywords
                if not (name == "einsum" and k.arg == "optimize")]  # the order of the work
    if not module:  # the receiver is the operand
        arguments.insert(0, node.func.value)
    return gast.copy_location(gast.Call(func=S.name(f"moved_{name}"), args=arguments,
                                        keywords=keywords), node)


def _stable(keywords) -> bool:
    """kind='stable' (or 'mergesort', NumPy's stable sort) among `keywords`, and no other
    keyword but axis."""
    kinds = [k.value for k in keywords if k.arg == "kind"]
    return len(kinds) == 1 and isinstance(kinds[0], gast.Constant) \
        and kinds[0].value in ("stable", "mergesort") \
        and all(k.arg in ("kind", "axis") for k in keywords)


def _axis_written(node) -> bool:
    """An argsort with an axis written (`np.argsort(x, axis=1)`, `np.argsort(x, 0)`, also
    axis=None) and no keyword but axis= (the stable order is NumPy's on distinct values)."""
    return (len(node.args) == 2 or any(k.arg == "axis" for k in node.keywords)) \
        and all(k.arg == "axis" for k in node.keywords)


def _tuples(e):
    """A list written out (`[1, 0, 2]`, `[[1, 0], [0, 2]]`) as the tuple numba types as a
    constant; anything else as it is."""
    if isinstance(e, (gast.List, gast.Tuple)):
        return gast.Tuple(elts=[_tuples(v) for v in e.elts], ctx=gast.Load())
    return e
