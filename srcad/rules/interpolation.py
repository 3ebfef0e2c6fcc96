"""np.interp(x, xp, fp): piecewise linear interpolation through the knots (xp, fp), JAX's
convention (jnp.interp; the formulas: srcad/runtime/interp_runtime.py). In x: the slope of
x's interval (the right-hand one at a knot, the last one at xp[-1]), 0 outside [xp[0],
xp[-1]]; in fp: the linear weights of x's two knots (fp[0] below, fp[-1] above, unless left=
or right= gives a constant). xp carrying a derivative is refused by name (the knots' positions
move the intervals); period= is not a keyword srcad follows (refused as such). Both backends
(numba: srcad/runtime/numba_interp.py; left= and right= refused by name, numba's np.interp
takes neither).

| operand | tangent                                 | adjoint                                  |
|---------|-----------------------------------------|------------------------------------------|
| x       | g * interp_slope(x, xp, fp)             | g * interp_slope(x, xp, fp)              |
| fp      | interp_tangent(x, xp, g, left, right)   | interp_adjoint(x, xp, g, left, right)    |
"""

from __future__ import annotations

from srcad.errors import SrcadError
from srcad.rules.rule_type import linear


def numba_refusal(count: int) -> str:
    """numba's np.interp takes x, xp and fp only (srcad/runtime/numba_interp.py compiles the
    derivatives): left= and right= are refused by name on the numba backend."""
    return "" if count <= 3 else ("numba's `np.interp` takes no left= or right= (srcad "
                                  "differentiates those on the python backend)")


XP_REFUSAL = ("np.interp's knots xp carry a derivative: srcad differentiates np.interp in x "
              "and fp only")


def interp(ranks, keywords):
    """np.interp(x, xp, fp, left=None, right=None) with 1-D xp and fp."""
    if ranks[1] != 1 or ranks[2] != 1:
        raise SrcadError(f"np.interp with knots of ranks {ranks[1]} and {ranks[2]}",
                         construct="interp", hint="xp and fp are 1-D arrays")
    left = keywords.get("left") is not None
    right = keywords.get("right") is not None
    slope = "g * interp_slope(x, xp, fp)"
    return linear("interp", "x xp fp", (slope, slope), (None, None),
                  (f"interp_tangent(x, xp, g, {left}, {right})",
                   f"interp_adjoint(x, xp, g, {left}, {right})"), shape="x_shape",
                  rank=ranks[0])
