"""scipy.stats distributions: `logpdf pdf cdf logcdf` of norm, t, gamma and beta, `logpmf pmf`
of poisson, and `multivariate_normal.logpdf`, in the variate and every parameter (shape
parameters, loc=, scale=, by position or by name). Loaded only once the user's code has
imported scipy.stats (srcad/rules/table.py), as scipy.special's family is.

Elementwise rules: x, the parameters and the result broadcast; with y = (x - loc) / scale the
standardized variate and f the standard log-density,

| primitive                  | partial in x            | in loc       | in scale                |
|----------------------------|-------------------------|--------------|-------------------------|
| logpdf(x, ..., loc, scale) | g * f'(y) / scale       | -(that)      | -g * (1 + y f'(y)) / scale |
| pdf                        | ans times the logpdf's partials                            |
| cdf (logcdf)               | g * exp(f(y)) / scale (/ cdf) | -(that) | -(that) * y             |
| poisson.logpmf(k, mu)      | - (k: no derivative)    | mu: g * (k / mu - 1); pmf: ans times |

Shape parameters: norm none; t df; gamma a; beta a, b (their logpdf partials are digamma
formulas). The cdf of t, gamma and beta has no closed-form derivative in its shape
parameters (jax.scipy.stats does not give one either): a shape parameter that carries a
derivative there is refused by name (srcad/analysis/rule_backends.py). Outside the support
(gamma: y < 0, beta: y outside [0, 1]) SciPy's logpdf is -inf and pdf 0: the partials are 0
there, as in jax.scipy.stats (whose `where` passes no derivative to the other branch). At its
ends (gamma y = 0, beta y = 0 and 1) logpdf's and pdf's partials are their formulas' (inf,
-inf or NaN: gamma.logpdf at 0 is inf in x for a > 1, NaN for a = 1), as jax.scipy.stats; the
cdf's are 0 there, as JAX's. Where a parameter is outside its domain (scale, df, a or b <= 0,
or NaN) SciPy's value is NaN, and so is every partial (JAX, which does not check, gives the
formula's numbers there).

multivariate_normal.logpdf(x, mean, cov): x a vector or rows of vectors, mean a vector, cov a
matrix; SciPy reads cov's lower triangle only (scipy.linalg.eigh(cov, lower=True)), so its
adjoint is folded onto that triangle and its tangent mirrored from it.

On the numba backend (which has no scipy.stats) the same methods are compiled from their
formulas (srcad/runtime/numba_stats.py, srcad/runtime/stats_scalars.py).
"""

from __future__ import annotations

import scipy.stats

from srcad.errors import SrcadError
from srcad.rules.rule_type import Rule, linear

_S = "scipy.special."
_LOG_SQRT_2PI = "0.9189385332046727"


class _Terms:
    """The text of a call's operands: a parameter left out is its default."""

    def __init__(self, present, defaults):
        self.names = ["x"] + [p for p in defaults if p in present]
        self.value = {p: (p if p in present else str(d)) for p, d in defaults.items()}
        loc, scale = self.value.get("loc", "0.0"), self.value.get("scale", "1.0")
        shifted = "x" if loc == "0.0" else f"(x - {loc})"
        self.scale = scale
        self.y = shifted if scale == "1.0" else f"({shifted} / {scale})"

    def __getitem__(self, name):
        return self.value[name]


# per distribution: its parameters after the variate with their defaults, and per parameter
# of its log-density f(y) (y standardized) the text of d f / d parameter
_PARAMETERS = {
    "norm": {"loc": 0.0, "scale": 1.0},
    "t": {"df": None, "loc": 0.0, "scale": 1.0},
    "gamma": {"a": None, "loc": 0.0, "scale": 1.0},
    "beta": {"a": None, "b": None, "loc": 0.0, "scale": 1.0},
}


def _log_density(name, t: _Terms) -> tuple[str, str, dict]:
    """(f(y), f'(y), {shape parameter: d f / d parameter}) of the standard distribution."""
    y = t.y
    if name == "norm":
        return f"(-0.5 * {y} * {y} - {_LOG_SQRT_2PI})", f"(-{y})", {}
    if name == "t":
        v = t["df"]
        return (f"({_S}gammaln(0.5 * ({v} + 1.0)) - {_S}gammaln(0.5 * {v}) - 0.5 * "
                f"np.log({v} * np.pi) - 0.5 * ({v} + 1.0) * np.log1p({y} * {y} / {v}))",
                f"(-({v} + 1.0) * {y} / ({v} + {y} * {y}))",
                {"df": f"(0.5 * ({_S}digamma(0.5 * ({v} + 1.0)) - {_S}digamma(0.5 * {v}) "
                       f"- 1.0 / {v} - np.log1p({y} * {y} / {v})) + 0.5 * ({v} + 1.0) * {y} "
                       f"* {y} / ({v} * ({v} + {y} * {y})))"})
    if name == "gamma":
        a = t["a"]
        return (f"(({a} - 1.0) * np.log({y}) - {y} - {_S}gammaln({a}))",
                f"(({a} - 1.0) / {y} - 1.0)", {"a": f"(np.log({y}) - {_S}digamma({a}))"})
    a, b = t["a"], t["b"]
    both = f"{_S}digamma({a} + {b})"
    return (f"(({a} - 1.0) * np.log({y}) + ({b} - 1.0) * np.log1p(-{y}) - {_S}betaln({a}, {b}))",
            f"(({a} - 1.0) / {y} - ({b} - 1.0) / (1.0 - {y}))",
            {"a": f"(np.log({y}) - {_S}digamma({a}) + {both})",
             "b": f"(np.log1p(-{y}) - {_S}digamma({b}) + {both})"})


def _support(name, t: _Terms, closed: bool) -> str:
    """The condition of y inside the support ("" where it is every real), its ends included
    where `closed` (logpdf and pdf: their formulas' inf or NaN there, as jax.scipy.stats)."""
    low, high = (">=", "<=") if closed else (">", "<")
    return {"gamma": f"({t.y} {low} 0.0)",
            "beta": f"(({t.y} {low} 0.0) & ({t.y} {high} 1.0))"}.get(name, "")


_SHAPES = {"t": ("df",), "gamma": ("a",), "beta": ("a", "b")}


def _valid(name, t: _Terms) -> str:
    """The condition of the parameters inside their domain (scale and the shape parameters
    positive; "" where no parameter is given): outside it SciPy's value is NaN, and so are the
    partials."""
    given = [t[p] for p in _SHAPES.get(name, ())] + ([t.scale] if t.scale != "1.0" else [])
    return " & ".join(f"({p} > 0.0)" for p in given)


def _in_domain(valid, formula, numbers) -> str:
    if not valid:
        return formula
    return f"({formula} if {valid} else math.nan)" if numbers else \
        f"np.where({valid}, {formula}, np.nan)"


def _guarded(support, formula, numbers) -> str:
    """`formula` inside the support, 0 outside: of numbers a conditional expression (numba's
    np.where of numbers makes a 0-d array)."""
    if not support:
        return formula
    return f"({formula} if {support} else 0.0)" if numbers else \
        f"np.where({support}, {formula}, 0.0)"


def distribution(dist, method):
    """A `select` for scipy.stats.<dist>.<method>(x, *shapes, loc=0, scale=1)."""
    parameters = _PARAMETERS[dist]

    def select(ranks, keywords):
        t = _Terms({p for p in parameters if keywords.get(p)}, parameters)
        missing = [p for p, d in parameters.items() if d is None and p not in t.names]
        if missing:
            raise SrcadError(f"scipy.stats.{dist}.{method} without its shape parameter "
                             f"`{missing[0]}`", construct=method,
                             hint=f"pass {', '.join(missing)} after x")
        f, slope, shape_partials = _log_density(dist, t)
        support = _support(dist, t, closed=method in ("logpdf", "pdf"))
        partials = {}
        if method in ("logpdf", "pdf"):
            times = "ans * " if method == "pdf" else ""
            partials["x"] = f"{times}g * {slope} / {t.scale}"
            partials["loc"] = f"-{times}g * {slope} / {t.scale}"
            partials["scale"] = f"-{times}g * (1.0 + {t.y} * {slope}) / {t.scale}"
            for p, d in shape_partials.items():
                partials[p] = f"{times}g * {d}"
        else:  # cdf, logcdf: the density at y over scale (over the cdf for logcdf)
            density = f"np.exp({f} - ans)" if method == "logcdf" else f"np.exp({f})"
            partials["x"] = f"g * {density} / {t.scale}"
            partials["loc"] = f"-g * {density} / {t.scale}"
            partials["scale"] = f"-g * {density} * {t.y} / {t.scale}"
            for p in shape_partials:  # refused where they carry a derivative (no closed form)
                partials[p] = "0.0 * g"
        numbers, valid = not any(ranks), _valid(dist, t)
        formulas = tuple(_in_domain(valid, _guarded(support, partials[n], numbers), numbers)
                         for n in t.names)
        return Rule(f"{dist}_{method}", tuple(t.names), formulas)
    return select


def poisson(method):
    """A `select` for scipy.stats.poisson.logpmf / pmf (k, mu): k counts, no derivative."""
    def select(ranks, keywords):
        if not keywords.get("mu"):
            raise SrcadError(f"scipy.stats.poisson.{method} without mu", construct=method,
                             hint="pass mu after k")
        times = "ans * " if method == "pmf" else ""
        return Rule(f"poisson_{method}", ("k", "mu"), (None, f"{times}g * (k / mu - 1.0)"))
    return select


def multivariate_normal_logpdf(ranks, keywords):
    """multivariate_normal.logpdf(x, mean, cov): with r = x - mean and P = cov^-1, the partials
    are -P r in x, P r in mean and (P r r^T P - P) / 2 in cov, read from its lower triangle."""
    if keywords.get("allow_singular"):
        raise SrcadError("multivariate_normal.logpdf with allow_singular=True",
                         construct="logpdf", hint="leave allow_singular out")
    if not keywords.get("mean") or not keywords.get("cov"):
        raise SrcadError("multivariate_normal.logpdf without mean and cov", construct="logpdf",
                         hint="pass both: multivariate_normal.logpdf(x, mean, cov)")
    x_rank, mean_rank, cov_rank = ranks
    if x_rank not in (1, 2) or mean_rank != 1 or cov_rank != 2:
        raise SrcadError(f"multivariate_normal.logpdf of ranks {tuple(ranks)}",
                         construct="logpdf", hint="x a vector or rows of vectors, mean a "
                         "vector and cov a matrix")
    p = "np.linalg.inv(np.tril(cov) + np.tril(cov, -1).T)"
    r = "(x - mean)"
    if x_rank == 1:
        pr = f"({p} @ {r})"
        g_pr, tangent_x = f"(g * {pr})", f"-({pr} @ g)"
        dense = f"(0.5 * g * (np.outer({pr}, {pr}) - {p}))"
        tangent_cov = f"0.5 * ({pr} @ ({{m}} @ {pr}) - np.trace({p} @ {{m}}))"
    else:  # rows: one value per row
        pr = f"({r} @ {p})"
        g_pr, tangent_x = f"(g[:, None] * {pr})", f"-np.sum({pr} * g, axis=1)"
        dense = (f"(0.5 * ({pr}.T @ (g[:, None] * {pr}) - np.sum(g) * {p}))")
        tangent_cov = f"0.5 * (np.sum(({pr} @ {{m}}) * {pr}, axis=1) - np.trace({p} @ {{m}}))"
    mirrored = "(np.tril(g) + np.tril(g, -1).T)"
    tangent_cov = tangent_cov.format(m=mirrored)
    folded = f"np.tril({dense} + {dense}.T, -1) + np.diag(np.diag({dense}))"
    mean_rows = f"np.sum({g_pr}, axis=0)" if x_rank == 2 else g_pr
    shape, rank = ("()", 0) if x_rank == 1 else ("x_shape[:1]", 1)
    return linear("multivariate_normal_logpdf", "x mean cov",
                  (tangent_x, f"-{g_pr}"),
                  (f"-({tangent_x})", mean_rows), (tangent_cov, folded),
                  shape=shape, rank=rank)


# (object, method name, select, keywords by position after the variate, keywords that are
# operands, parameters whose derivative is refused with the reason)
SHAPED = []
for _dist, _parameters in _PARAMETERS.items():
    for _method in ("logpdf", "pdf", "cdf", "logcdf"):
        _names = tuple(_parameters)
        _shapes = tuple(p for p, d in _parameters.items() if d is None)
        _refused = tuple((p, f"scipy.stats.{_dist}.{_method} has no closed-form derivative "
                          f"in its shape parameter `{p}` (jax.scipy.stats gives none either)")
                         for p in _shapes) if _method in ("cdf", "logcdf") else ()
        SHAPED.append((getattr(scipy.stats, _dist), _method, distribution(_dist, _method),
                       _names, _names, _refused))
for _method in ("logpmf", "pmf"):
    SHAPED.append((scipy.stats.poisson, _method, poisson(_method), ("mu",), ("mu",), ()))
SHAPED.append((scipy.stats.multivariate_normal, "logpdf", multivariate_normal_logpdf,
               ("mean", "cov", "allow_singular"), ("mean", "cov"), ()))
