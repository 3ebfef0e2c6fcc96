"""What each rule gives where its function has no derivative (JAX's answer, as the rule
families' docstrings say), keyed by the function as a user writes it. The supported-functions
page (docs/functions.md, scripts/coverage_page.py) shows it beside the function; a function
not named here is differentiable wherever it is defined.

>>> CONVENTIONS["np.abs"]
"abs'(0) = 1"
"""

from __future__ import annotations

_TIES = "a tie passes the derivative to the first operand"
# Python's min(x, y) is x unless y < x: a NaN second operand leaves x the result and its derivative
_KEEPS_FIRST = _TIES + "; so does a NaN second operand (Python's result is the first)"
_SHARED = "a tie shares the derivative equally; a NaN operand gets none (as JAX)"
_SPLIT = "tied extrema share the derivative equally"
_STEP = "no derivative: 0 everywhere"
_FIRST_TIED = "the derivative goes to the first tied element (a stable sort)"
_SUPPORT = ("0 outside the support (where SciPy gives -inf or 0); at its ends logpdf's and "
            "pdf's formula (inf or NaN), the cdf's 0, as jax.scipy.stats")
_SPECTRAL = "inf or NaN at repeated eigenvalues or singular values, as JAX"

CONVENTIONS = {
    "abs": "abs'(0) = 1", "np.abs": "abs'(0) = 1", "np.absolute": "abs'(0) = 1",
    "np.fabs": "abs'(0) = 1", "math.fabs": "abs'(0) = 1",
    "max": _KEEPS_FIRST, "min": _KEEPS_FIRST, "np.maximum": _SHARED, "np.minimum": _SHARED,
    "np.fmax": "a tie or a NaN first operand passes the derivative to the second",
    "np.fmin": "a tie or a NaN first operand passes the derivative to the second",
    "np.clip": ("as np.minimum(np.maximum(x, lo), hi) (as JAX): the bound gets the derivative "
                "where x is cut off, x and a bound it equals share it"),
    "np.max": _SPLIT, "np.min": _SPLIT, "np.amax": _SPLIT, "np.amin": _SPLIT,
    "np.ptp": _SPLIT, "np.nanmax": _SPLIT + "; 0 at NaN", "np.nanmin": _SPLIT + "; 0 at NaN",
    "np.median": _FIRST_TIED, "np.quantile": _FIRST_TIED, "np.percentile": _FIRST_TIED,
    "np.sort": "the derivative follows the stable order of ties",
    "np.mod": "d/dy is -floor(x / y), also where the result jumps",
    "np.remainder": "d/dy is -floor(x / y), also where the result jumps",
    "np.fmod": "d/dy is -trunc(x / y), also where the result jumps",
    "math.fmod": "d/dy is -trunc(x / y), also where the result jumps",
    "math.remainder": "d/dy is -round(x / y), also where the result jumps",
    "np.copysign": "sign(y) sign(x), +1 at x = 0; none in y",
    "math.copysign": "sign(y) sign(x), +1 at x = 0; none in y",
    "np.heaviside": "none in x; 1 in h0 where x == 0",
    "np.cbrt": "cbrt'(0) = inf", "math.cbrt": "cbrt'(0) = inf",
    "np.sqrt": "sqrt'(0) = inf", "math.sqrt": "sqrt'(0) = inf",
    "np.sinc": "sinc'(0) = 0",
    "np.floor": _STEP, "np.ceil": _STEP, "np.trunc": _STEP, "np.rint": _STEP,
    "np.round": _STEP, "np.around": _STEP, "np.fix": _STEP, "np.sign": _STEP,
    "np.floor_divide": _STEP,
    "np.std": "NaN at a constant sample (0 / 0), as JAX; 0 for a sample of one element",
    "np.linalg.norm": "2-norm: NaN at 0; 1-norm and max-norm: sign(x) with +1 at 0",
    "np.linalg.eigh": _SPECTRAL, "np.linalg.svd": _SPECTRAL,
    "np.linalg.pinv": "where the rank does not change (a jump otherwise)",
    "np.linalg.lstsq": "where A's rank does not change (a jump otherwise)",
    "np.linalg.cond": _SPECTRAL,
    "np.interp": ("the right-hand interval's slope at a knot (the last one at xp[-1]), 0 "
                  "outside the knots, as JAX"),
    "np.linalg.det": "the cofactor matrix also at a singular matrix (from the SVD), as JAX",
    "scipy.linalg.det": "the cofactor matrix also at a singular matrix (from the SVD), as JAX",
    "np.linalg.slogdet": "refused as a non-finite derivative at a singular matrix (JAX: inf)",
    "scipy.special.iv": "none in the order v: refused where v carries a derivative",
    "scipy.special.ive": "none in the order v: refused where v carries a derivative",
    "scipy.special.i0e": "sign(0) = 0 at x = 0, as jax.scipy.special",
    "scipy.special.i1e": "sign(0) = 0 at x = 0, as jax.scipy.special",
    "scipy.special.xlogy": "d/dx is log(y) at x = 0 (-inf at y = 0), as JAX",
    "scipy.special.xlog1py": "d/dx is log1p(y) at x = 0, as JAX",
    "math.hypot": "at the origin: 0.5 each of two coordinates (as jnp.hypot), abs'(0) = 1 of "
                  "one, NaN of more (as jnp.linalg.norm at 0)",
    "np.hypot": "0.5 each at (0, 0), as jnp.hypot",
    "math.dist": "NaN where the points coincide, as jnp.linalg.norm at 0",
    "scipy.stats.gamma": _SUPPORT, "scipy.stats.beta": _SUPPORT,
}
