"""scipy.stats on the numba backend: numba has no scipy.stats, so this module makes numba type
the distribution objects `scipy.stats.norm`, `t`, `gamma`, `beta`, `poisson` and
`multivariate_normal` (each a constant of a type of its own) and gives them the methods
srcad differentiates (`logpdf pdf cdf logcdf`; poisson's `logpmf pmf`;
multivariate_normal's `logpdf`), with SciPy's parameters by position or by name
(`scipy.stats.t.logpdf(x, df, loc=0.0, scale=1.0)`). Generated code calls them as the python
backend's does, however the user spelled the object (`norm.cdf(x)` after `from scipy.stats
import norm`); imported by a generated numba module that reads scipy.stats
(srcad/build/numba_constants.py), never by srcad itself.

Each method is a numba ufunc (`numba.vectorize`) of the scalar formula in
srcad/runtime/stats_scalars.py, so arguments broadcast and numbers give a number, as SciPy's.
multivariate_normal.logpdf(x, mean, cov) reads cov's lower triangle, as SciPy does, through
its Cholesky factor: -(d log(2 pi) + log det cov + |L^-1 (x - mean)|^2) / 2 for a vector x,
one value per row of a matrix x.
"""

from __future__ import annotations

import inspect
import math

import numba
import numpy as np
import scipy.stats
from numba import types
from numba.core.imputils import lower_constant
from numba.extending import (
    models,
    overload_method,
    register_jitable,
    register_model,
    typeof_impl,
)

from srcad.runtime import stats_scalars as Q


class Distribution(types.Dummy):
    """The numba type of a scipy.stats distribution object (a constant); one subclass per
    distribution, since numba looks a method up by the type's class."""

    def __init__(self):
        super().__init__(name=f"scipy.stats.{self.distribution}")


register_model(Distribution)(models.OpaqueModel)


@lower_constant(Distribution)
def _constant(context, builder, ty, pyval):
    return context.get_dummy_value()


# scipy.stats' object: its name (the objects are instances of one class each)
OBJECTS = {"norm": scipy.stats.norm, "t": scipy.stats.t, "gamma": scipy.stats.gamma,
           "beta": scipy.stats.beta, "poisson": scipy.stats.poisson,
           "multivariate_normal": scipy.stats.multivariate_normal}
_CLASSES = {name: type(f"Distribution_{name}", (Distribution,), {"distribution": name})
            for name in OBJECTS}
for _name, _obj in OBJECTS.items():
    register_model(_CLASSES[_name])(models.OpaqueModel)
    lower_constant(_CLASSES[_name])(_constant)
    typeof_impl.register(type(_obj))(lambda val, c, name=_name: _CLASSES[name]())


def _vectorized(scalar):
    return numba.vectorize(cache=False)(scalar)


@register_jitable
def _exp(v):
    return math.exp(v)


def _composed(expression, inner, arity):
    """A jitable function of `arity` floats: `expression` (of `inner(*args)`, spelled
    `inner(ARGS)`) with its arguments written out, as numba's ufuncs need."""
    names = ", ".join(f"a{k}" for k in range(arity))
    namespace = {"inner": inner, "Q": Q, "_exp": _exp}
    exec(f"def composed({names}):\n    return {expression.replace('ARGS', names)}\n",
         namespace)
    return register_jitable(namespace["composed"])


def _cdf(parts, arity):
    return _composed("inner(ARGS)[0]", parts, arity)


def _log_cdf(parts, arity):
    return _composed("Q.log_of(*inner(ARGS))", parts, arity)


def _pdf(logpdf, arity):
    return _composed("_exp(inner(ARGS))", logpdf, arity)


# distribution: (its shape parameters, {method: scalar function of (x, *shapes, loc, scale)})
_METHODS = {
    "norm": ((), {"logpdf": Q.norm_logpdf, "cdf": Q.norm_cdf, "logcdf": Q.norm_logcdf}),
    "t": (("df",), {"logpdf": Q.t_logpdf, "cdf": _cdf(Q.t_parts, 4),
                    "logcdf": _log_cdf(Q.t_parts, 4)}),
    "gamma": (("a",), {"logpdf": Q.gamma_logpdf, "cdf": _cdf(Q.gamma_parts_at, 4),
                       "logcdf": _log_cdf(Q.gamma_parts_at, 4)}),
    "beta": (("a", "b"), {"logpdf": Q.beta_logpdf, "cdf": _cdf(Q.beta_parts_at, 5),
                          "logcdf": _log_cdf(Q.beta_parts_at, 5)}),
}


def _method_source(shapes, loc_scale=True):
    """def impl(self, x, <shapes>, loc=0.0, scale=1.0): return ufunc(x, <shapes>, loc,
    scale)."""
    names = ", ".join(("x",) + shapes)
    if not loc_scale:  # poisson: (k, mu, loc=0)
        return (f"def impl(self, {names}, loc=0.0):\n    return ufunc({names}, loc)\n")
    return (f"def impl(self, {names}, loc=0.0, scale=1.0):\n"
            f"    return ufunc({names}, loc, scale)\n")


def _register(dist, method, scalar, shapes, loc_scale=True):
    ufunc = _vectorized(scalar)
    namespace = {"ufunc": ufunc}
    exec(_method_source(shapes, loc_scale), namespace)
    overload_method(_CLASSES[dist], method)(_typer(namespace["impl"]))


def _typer(impl):
    """An overload_method typer with `impl`'s parameters, giving `impl`."""
    parameters = ", ".join(str(p) for p in inspect.signature(impl).parameters.values())
    namespace = {"impl": impl}
    exec(f"def typer({parameters}):\n    return impl\n", namespace)
    return namespace["typer"]


for _dist, (_shapes, _scalars) in _METHODS.items():
    for _method, _scalar in _scalars.items():
        _register(_dist, _method, _scalar, _shapes)
    _register(_dist, "pdf", _pdf(_scalars["logpdf"], 3 + len(_shapes)), _shapes)
_register("poisson", "logpmf", Q.poisson_logpmf, ("mu",), loc_scale=False)
_register("poisson", "pmf", _pdf(Q.poisson_logpmf, 3), ("mu",), loc_scale=False)


# -- multivariate_normal.logpdf ------------------------------------------------------------

@register_jitable
def _mvn_rows(x, mean, cov):
    """logpdf of each row of the 2-D x."""
    d = cov.shape[0]
    lower = np.tril(cov) + np.tril(cov, -1).T  # SciPy reads the lower triangle
    factor = np.linalg.cholesky(lower)
    log_det = 0.0
    for i in range(d):
        log_det += 2.0 * math.log(factor[i, i])
    out = np.empty(x.shape[0])
    for r in range(x.shape[0]):
        z = np.empty(d)  # L z = x - mean, by forward substitution
        total = 0.0
        for i in range(d):
            s = x[r, i] - mean[i]
            for j in range(i):
                s -= factor[i, j] * z[j]
            z[i] = s / factor[i, i]
            total += z[i] * z[i]
        out[r] = -0.5 * (d * math.log(2.0 * math.pi) + log_det + total)
    return out


@overload_method(_CLASSES["multivariate_normal"], "logpdf")
def _mvn_logpdf(self, x, mean=None, cov=1, allow_singular=False):
    if not isinstance(x, types.Array) \
            or not isinstance(cov, types.Array) or not isinstance(mean, types.Array):
        return None
    if x.ndim == 1:
        def of_vector(self, x, mean=None, cov=1, allow_singular=False):
            return _mvn_rows(np.ascontiguousarray(x).reshape((1, x.shape[0])), mean, cov)[0]
        return of_vector

    def of_rows(self, x, mean=None, cov=1, allow_singular=False):
        return _mvn_rows(x, mean, cov)
    return of_rows
