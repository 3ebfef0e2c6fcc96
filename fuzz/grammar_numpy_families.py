"""NumPy's elementwise and reduction families in whole-array programs (`run.py --arrays
--shapes numpy-families`): each program gains one to three statements applying the float
ufuncs (exp2, log2, cbrt, arcsinh, sinc, fmax, logaddexp2, float_power, ...) to arrays in
scope, or reducing them (prod, var/std with ddof=, ptp, median, quantile, nansum, nanmean,
cumsum/cumprod, diff with n= and axis=, trapezoid, gradient, norm with ord=, axis=,
keepdims=), with keywords by name or by position; each result joins the program's terms.

Arguments stay in each function's domain by the form (`np.log2(1.0 + e * e)`) and away
from kinks (no mod, floor, ties of max/min with probability > 0); a p-norm reads a positive
array (at a zero vector its derivative is NaN, as in JAX, which finite differences do not see
when the vector stays zero). Drawn from its own random
stream (`random.Random("numpy families <seed>")`): without `numpy-families` every seed keeps
its program. On the numba backend the ufuncs compile; the reductions are refused by name.
"""

from __future__ import annotations

import random

ELEMENTWISE = ["np.exp2({0})", "np.log2(1.0 + {0} * {0})", "np.log10(1.5 + {0} * {0})",
               "np.cbrt(1.0 + {0} * {0})", "np.reciprocal(2.0 + np.sin({0}))",
               "np.positive({0})", "np.arcsinh({0})", "np.arccosh(1.5 + {0} * {0})",
               "np.arctanh(0.5 * np.tanh({0}))", "np.sinc({0})", "np.deg2rad({0})",
               "np.degrees({0})", "np.logaddexp2({0}, a)", "np.float_power(1.5 + {0} * {0}, a)",
               "np.fmax({0}, 0.5 * {0} + 0.1)", "np.fmin({0}, a * {0})",
               "np.copysign({0}, a)", "{0} * np.floor(a)"]
# reductions of an array of rank `r`: forms with {0} the operand, {1} an axis in range
REDUCTIONS = ["np.prod(1.0 + 0.1 * {0}{2})", "np.var({0}{2}, ddof=1)", "np.std({0}{2})",
              "np.ptp({0}{2})", "np.median({0}{2})", "np.quantile({0}, 0.3{2})",
              "np.percentile({0}, 70.0{2})", "np.nansum({0}{2})", "np.nanmean({0}{2})",
              "np.nanmax({0}{2})", "np.average({0}{2})", "np.cumsum({0}, axis={1})",
              "np.diff({0}, 1, {1})", "np.diff({0}, n=2, axis={1})",
              "np.trapezoid({0}, dx=0.5, axis={1})", "np.linalg.norm({0}, 1, axis={1})",
              "np.linalg.norm({0}, ord=np.inf, axis={1}, keepdims=True)",
              "np.linalg.norm(np.exp({0}), 3.0, {1})", "np.var({0}, {1}, None, None, 1, True)"]
VECTOR = ["np.cumprod(0.5 + 0.1 * {0})", "np.gradient({0})", "np.linalg.norm({0}, -np.inf)"]


def numpy_family_statements(grammar) -> list:
    """Statements binding family results (`grammar`: the ArrayGrammar drawing the program);
    each new local joins the result's terms."""
    rng = random.Random(f"numpy families {grammar.seed}")
    lines = []
    for _ in range(rng.randint(1, 3)):
        name = grammar.fresh("fam")
        array, shape = rng.choice(sorted(grammar.arr_scope.items()))
        operand = rng.choice([array, f"{array} * a", f"np.sin({array})"])
        kind = rng.random()
        if kind < 0.45:
            lines.append(f"{name} = {rng.choice(ELEMENTWISE).format(operand)}")
            grammar.arr_scope[name] = shape
            continue
        if kind < 0.55 and len(shape) == 1:
            value = rng.choice(VECTOR).format(operand)
        else:
            axis = rng.choice(range(-len(shape), len(shape)))
            where = rng.choice(["", f", axis={axis}", f", {axis}", f", axis={axis}, "
                                "keepdims=True"])
            value = rng.choice(REDUCTIONS).format(operand, axis, where)
            if ("np.diff" in value and "n=2" in value and shape[axis % len(shape)] < 3):
                value = f"np.diff({operand}, axis={axis})"
        lines.append(f"{name} = np.sum({value} * 1.5)")
        grammar.arr_floats.append(name)
    return lines
