"""scipy.special on the numba backend: numba has no scipy.special, so this module gives numba
an implementation of each function of srcad's special family (the calls a user writes and the
ones their derivatives call: digamma, polygamma, iv, ...), as numba `overload`s of the SciPy
objects themselves. Generated code calls `scipy.special.gammaln(x)` as the python backend's
does; imported by a generated numba module that calls one (srcad/build/compiler.py), never by
srcad itself.

Each function is a numba ufunc (`numba.vectorize`, compiled for the types it meets) of the
scalar algorithm in srcad/runtime/special_scalars.py or of numba's own `math` function, so a
call broadcasts over arrays and of numbers gives a number, as SciPy's ufuncs do. The values
agree with SciPy's to about 1e-13 relative (not bit for bit: a call srcad can make before the
compiled code runs, on constants or the function's own arguments, is still SciPy's own:
srcad/build/numba_constants.py).
"""

from __future__ import annotations

import math

import numba
import numpy as np
import scipy.special
from numba import types
from numba.extending import overload

from srcad.runtime import special_scalars as S
from srcad.runtime.numba_arrays import reducer
from srcad.runtime.runtime_names import NUMBA_SPECIAL_FUNCTIONS


def _ufunc(scalar, arity):
    """A numba ufunc of `scalar` (a function of `arity` floats), compiled per type met."""
    if arity == 1:
        def kernel(x):
            return scalar(x)
    else:
        def kernel(x, y):
            return scalar(x, y)
    return numba.vectorize(cache=False)(kernel)


@numba.extending.register_jitable
def _lgamma(x):
    return math.lgamma(x)


@numba.extending.register_jitable
def _gamma(x):
    if x == -math.inf or (x < 0.0 and x == math.floor(x)):
        return math.nan  # SciPy's, at the poles on the negative side
    return math.gamma(x)


@numba.extending.register_jitable
def _erf(x):
    return math.erf(x)


@numba.extending.register_jitable
def _erfc(x):
    return math.erfc(x)


def _bessel(order, scaled):
    """I_order (scaled: times exp(-|x|)) of one argument, or of two (v, x) for order None."""
    if order is None:
        @numba.extending.register_jitable
        def of_order(v, x):
            return S.scaled_bessel_i(v, x, scaled)
        return of_order

    @numba.extending.register_jitable
    def bessel(x):
        return S.scaled_bessel_i(order, x, scaled)
    return bessel


# scipy.special's name: (the scalar function, its number of arguments)
SCALARS = {
    "gammaln": (_lgamma, 1), "loggamma": (S.loggamma, 1), "gamma": (_gamma, 1),
    "digamma": (S.digamma, 1), "polygamma": (S.polygamma, 2), "beta": (S.beta, 2),
    "betaln": (S.betaln, 2), "erf": (_erf, 1), "erfc": (_erfc, 1), "erfinv": (S.erfinv, 1),
    "erfcinv": (S.erfcinv, 1), "expit": (S.expit, 1), "logit": (S.logit, 1),
    "xlogy": (S.xlogy, 2), "xlog1py": (S.xlog1py, 2), "ndtr": (S.ndtr, 1),
    "log_ndtr": (S.log_ndtr, 1), "ndtri": (S.ndtri, 1), "i0": (_bessel(0.0, False), 1),
    "i0e": (_bessel(0.0, True), 1), "i1": (_bessel(1.0, False), 1),
    "i1e": (_bessel(1.0, True), 1), "iv": (_bessel(None, False), 2),
    "ive": (_bessel(None, True), 2),
}
assert tuple(SCALARS) == NUMBA_SPECIAL_FUNCTIONS  # scipy.special.psi is digamma itself


def _register(name, scalar, arity):
    ufunc = _ufunc(scalar, arity)
    if arity == 1:
        def implementation(x):
            return lambda x: ufunc(x)
    else:
        def implementation(x, y):
            return lambda x, y: ufunc(x, y)
    overload(getattr(scipy.special, name))(implementation)


for _name, (_scalar, _arity) in SCALARS.items():
    _register(_name, _scalar, _arity)


# logsumexp, softmax and log_softmax along axes: made for the call's literal axis= and
# keepdims= (numba passes literals when the non-literal form is refused, returning None),
# from the reductions of srcad/runtime/numba_arrays.py
def _literal(value, default):
    """The Python value of a literal argument type, `default` when left out, else raise
    (a non-literal: numba then asks again with the literal)."""
    if not isinstance(value, types.Type):  # left out: the overload's own default
        return value
    if isinstance(value, (types.Omitted, types.NoneType)):
        return getattr(value, "value", default) if isinstance(value, types.Omitted) else default
    if isinstance(value, types.Literal):
        return value.literal_value
    if isinstance(value, types.BaseTuple) and all(isinstance(t, types.Literal) for t in value):
        return tuple(t.literal_value for t in value)
    raise _NotLiteral


class _NotLiteral(Exception):
    pass


def _axes_of(axis, keepdims):
    try:
        return _literal(axis, None), bool(_literal(keepdims, False))
    except _NotLiteral:
        return None


@overload(scipy.special.logsumexp, prefer_literal=True)
def _logsumexp(a, axis=None, b=None, keepdims=False, return_sign=False):
    found = _axes_of(axis, keepdims)
    if not isinstance(a, types.Array) or found is None or _literal(return_sign, False):
        return None
    axes, keep = found
    largest_kept, largest, total = (reducer("max", axes, True), reducer("max", axes, keep),
                                    reducer("sum", axes, keep))
    weighted = isinstance(b, types.Type) and not isinstance(b, (types.Omitted, types.NoneType))

    def logsumexp(a, axis=None, b=None, keepdims=False, return_sign=False):
        shift = largest_kept(a)
        shift = np.where(np.isfinite(shift), shift, 0.0)
        out_shift = largest(a)
        out_shift = np.where(np.isfinite(out_shift), out_shift, 0.0)
        terms = np.exp(a - shift)
        if weighted:
            terms = b * terms
        return np.log(total(terms)) + out_shift
    return logsumexp


@overload(scipy.special.softmax, prefer_literal=True)
def _softmax(x, axis=None):
    found = _axes_of(axis, False)
    if not isinstance(x, types.Array) or found is None:
        return None
    largest, total = reducer("max", found[0], True), reducer("sum", found[0], True)

    def softmax(x, axis=None):
        e = np.exp(x - largest(x))
        return e / total(e)
    return softmax


@overload(scipy.special.log_softmax, prefer_literal=True)
def _log_softmax(x, axis=None):
    found = _axes_of(axis, False)
    if not isinstance(x, types.Array) or found is None:
        return None
    largest, total = reducer("max", found[0], True), reducer("sum", found[0], True)

    def log_softmax(x, axis=None):
        shifted = x - largest(x)
        return shifted - np.log(total(np.exp(shifted)))
    return log_softmax


@overload(scipy.special.multigammaln)
def _multigammaln(a, d):
    """SciPy's: d (d - 1) / 4 log(pi) plus the sum of gammaln(a - j / 2) over j < d, with its
    ValueError where some a <= (d - 1) / 2."""
    if not isinstance(d, types.Integer):
        return None
    of_array = isinstance(a, types.Array)

    def multigammaln(a, d):
        if np.any(np.asarray(a) <= 0.5 * (d - 1)):
            raise ValueError("condition a > 0.5 * (d-1) not met")
        total = np.zeros_like(np.asarray(a) * 1.0)
        for j in range(d):
            total = total + np.asarray(_lgamma_array(a - 0.5 * j))
        return (d * (d - 1) * 0.25) * math.log(math.pi) + total
    if of_array:
        return multigammaln
    return lambda a, d: multigammaln(np.array([a * 1.0]), d)[0]


_lgamma_array = _ufunc(_lgamma, 1)


@overload(np.expand_dims)
def _expand_dims_of_a_number(a, axis):
    """np.expand_dims(a, -1) of a number (multigammaln's derivative of a number): NumPy's
    vector of one element; numba's np.expand_dims takes arrays only."""
    if not isinstance(a, types.Number) or not isinstance(axis, types.Integer):
        return None

    def of_number(a, axis):
        if axis not in (0, -1):
            raise ValueError("axis out of bounds for an array of dimension 1")
        return np.array([a])
    return of_number
