"""The one-line programs scripts/library_probe.py differentiates: every function of the
library surface srcad aims to cover (NumPy, SciPy, math), each written the usual way in a
function of one array `x`, with the keywords people pass.

A case is (family, label, expression, input): the expression is the function's return value;
the input names the array x (see INPUTS); C (a constant vector), W (weights), B (bins),
T (a constant matrix) and IDX (indices) are module constants, read as constants."""

import numpy as np

_rng = np.random.default_rng(7)
# x's values are away from integers and from the functions' kinks, distinct, inside every
# domain the family needs.
_SPD = np.array([[2.0, 0.3, 0.1], [0.3, 1.5, 0.2], [0.1, 0.2, 1.2]])
INPUTS = {
    "v": np.array([0.31, 0.77, 0.52, 0.64]),  # in (0, 1)
    "w": np.array([0.31, -0.77, 1.52, -1.34, 2.21, 0.46]),  # signed, 6 elements
    "big": np.array([1.31, 2.77, 1.52, 3.64]),  # > 1
    "m": np.array([[1.3, 0.4, -0.2], [0.1, 0.9, 0.5], [-0.3, 0.2, 1.7]]),
    "m23": np.array([[0.3, -1.4, 0.7], [1.1, 0.5, -0.6]]),
    "m34": np.arange(12.0).reshape(3, 4) * 0.37 - 1.9 + np.sin(np.arange(12.0)).reshape(3, 4),
    "spd": _SPD,
    "b": np.stack([np.eye(3) * 1.5 + 0.2 * np.sin(np.arange(9.0)).reshape(3, 3),
                   np.eye(3) * 1.2 + 0.3 * np.cos(np.arange(9.0)).reshape(3, 3)]),
    "bspd": np.stack([_SPD, _SPD + 0.4 * np.eye(3)]),
    "t234": np.sin(np.arange(24.0)).reshape(2, 3, 4) + 0.05,
}
CONSTANTS = {
    "C": np.array([0.21, 0.43, 0.95, 0.12]),
    "W": np.array([1.0, 2.0, 0.5, 3.0]),
    "B": np.array([0.0, 0.4, 0.6, 1.0]),
    "T": np.array([[0.7, -0.2, 0.4], [0.1, 1.1, 0.3], [0.5, 0.2, 0.9]]),
    "IDX": np.array([2, 0, 3, 3]),
}

_UNARY = ("exp exp2 expm1 log log2 log10 log1p sqrt cbrt square reciprocal negative positive "
          "sin cos tan arcsin arccos arctan sinh cosh tanh arcsinh arctanh sinc deg2rad "
          "rad2deg degrees radians fabs absolute abs sign floor ceil trunc rint round "
          "fix").split()
_BINARY = ("add subtract multiply divide true_divide power float_power arctan2 hypot "
           "logaddexp logaddexp2 maximum minimum fmax fmin mod fmod remainder copysign "
           "heaviside").split()

CASES = [("elementwise", f"np.{n}", f"np.{n}(x)", "v") for n in _UNARY] + [
    ("elementwise", "np.arccosh", "np.arccosh(x)", "big"),
    ("elementwise", "x.round()", "x.round(1) + x", "v"),
    ("elementwise", "%", "x % 0.3", "v"),
    ("elementwise", "//", "(x // 0.3) * x", "v"),
    ("elementwise", "np.divmod", "np.divmod(x, 0.3)[1]", "v"),
    ("elementwise", "np.add out=", "np.add(x, C, out=np.zeros(4))", "v"),
] + [("elementwise", f"np.{n}", f"np.{n}(x, C[::-1] + 0.05)", "v") for n in _BINARY] + [
    ("constants", "np.argmax", "x[np.argmax(x)] * x", "v"),
    ("constants", "np.argmin", "x[np.argmin(x)] * x", "v"),
    ("constants", "np.argsort", "x[np.argsort(x)]", "v"),
    ("constants", "np.searchsorted", "x * np.searchsorted(B, x)", "v"),
    ("constants", "np.digitize", "x * np.digitize(x, B)", "v"),
    ("constants", "np.isclose", "np.where(np.isclose(x, 0.5), 0.0, x)", "v"),
    ("reductions", "np.sum axis=tuple", "np.sum(x, axis=(0, 2))", "t234"),
    ("reductions", "np.mean keepdims", "np.mean(x, axis=-1, keepdims=True)", "m34"),
    ("reductions", "np.max axis", "np.max(x, axis=1)", "m34"),
    ("reductions", "np.prod", "np.prod(x)", "v"),
    ("reductions", "np.prod axis", "np.prod(x, axis=0)", "m34"),
    ("reductions", "np.var", "np.var(x)", "w"),
    ("reductions", "np.var ddof=1", "np.var(x, ddof=1)", "w"),
    ("reductions", "np.std ddof=1 axis", "np.std(x, axis=1, ddof=1)", "m34"),
    ("reductions", "x.std()", "x.std()", "w"),
    ("reductions", "np.ptp", "np.ptp(x)", "w"),
    ("reductions", "np.median", "np.median(x)", "w"),
    ("reductions", "np.median axis", "np.median(x, axis=0)", "m34"),
    ("reductions", "np.quantile", "np.quantile(x, 0.3)", "w"),
    ("reductions", "np.percentile", "np.percentile(x, 30.0, axis=1)", "m34"),
    ("reductions", "np.average weights=", "np.average(x, weights=W)", "v"),
    ("reductions", "np.nansum", "np.nansum(x)", "v"),
    ("reductions", "np.nanmean", "np.nanmean(x, axis=0)", "m34"),
    ("reductions", "np.nanmax", "np.nanmax(x)", "w"),
    ("reductions", "np.nanmin", "np.nanmin(x)", "w"),
    ("reductions", "np.cumsum axis", "np.cumsum(x, axis=1)", "m34"),
    ("reductions", "np.cumprod", "np.cumprod(x)", "v"),
    ("reductions", "np.cumprod axis", "np.cumprod(x, axis=0)", "m34"),
    ("reductions", "np.diff n= axis=", "np.diff(x, n=2, axis=1)", "m34"),
    ("reductions", "np.trapezoid", "np.trapezoid(x)", "w"),
    ("reductions", "np.gradient", "np.gradient(x)", "w"),
    ("reductions", "norm", "np.linalg.norm(x)", "w"),
    ("reductions", "norm ord=1", "np.linalg.norm(x, ord=1)", "w"),
    ("reductions", "norm ord=inf", "np.linalg.norm(x, ord=np.inf)", "w"),
    ("reductions", "norm ord=-inf", "np.linalg.norm(x, ord=-np.inf)", "w"),
    ("reductions", "norm ord=3", "np.linalg.norm(x, 3)", "w"),
    ("reductions", "norm axis keepdims", "np.linalg.norm(x, axis=1, keepdims=True)", "m34"),
    ("reductions", "norm 'fro'", "np.linalg.norm(x, 'fro')", "m"),
    ("reductions", "norm 'nuc'", "np.linalg.norm(x, 'nuc')", "m"),
    ("reductions", "norm ord=1 matrix", "np.linalg.norm(x, 1)", "m"),
    ("reductions", "norm ord=2 matrix", "np.linalg.norm(x, 2)", "m"),
    ("reductions", "norm ord=inf matrix", "np.linalg.norm(x, np.inf)", "m"),
    ("reductions", "logsumexp", "scipy.special.logsumexp(x)", "w"),
    ("shapes", "np.tile", "np.tile(x, 2)", "v"),
    ("shapes", "np.tile 2-D", "np.tile(x, (2, 1))", "m23"),
    ("shapes", "np.repeat", "np.repeat(x, 2)", "v"),
    ("shapes", "np.repeat axis", "np.repeat(x, 2, axis=1)", "m23"),
    ("shapes", "np.roll", "np.roll(x, 1)", "v"),
    ("shapes", "np.roll axis", "np.roll(x, -1, axis=1)", "m23"),
    ("shapes", "np.flip", "np.flip(x)", "v"),
    ("shapes", "np.fliplr", "np.fliplr(x)", "m23"),
    ("shapes", "np.flipud", "np.flipud(x)", "m23"),
    ("shapes", "np.rot90", "np.rot90(x)", "m23"),
    ("shapes", "np.pad constant", "np.pad(x, 2)", "v"),
    ("shapes", "np.pad edge", "np.pad(x, (1, 2), mode='edge')", "v"),
    ("shapes", "np.pad reflect", "np.pad(x, 2, mode='reflect')", "v"),
    ("shapes", "np.pad wrap", "np.pad(x, 2, mode='wrap')", "v"),
    ("shapes", "np.take", "np.take(x, IDX)", "v"),
    ("shapes", "np.take_along_axis", "np.take_along_axis(x, np.argsort(x, axis=1), axis=1)",
     "m23"),
    ("shapes", "np.diag", "np.diag(x)", "v"),
    ("shapes", "np.diag k=", "np.diag(x, k=1)", "m"),
    ("shapes", "np.diagonal offset=", "np.diagonal(x, offset=-1)", "m"),
    ("shapes", "np.diagflat", "np.diagflat(x)", "v"),
    ("shapes", "np.tril k=", "np.tril(x, k=-1)", "m"),
    ("shapes", "np.triu", "np.triu(x)", "m"),
    ("shapes", "np.trace offset=", "np.trace(x, offset=1)", "m"),
    ("shapes", "np.swapaxes", "np.swapaxes(x, 0, 2)", "t234"),
    ("shapes", "np.moveaxis", "np.moveaxis(x, 0, -1)", "t234"),
    ("shapes", "x.squeeze()", "x.reshape(1, 4, 1).squeeze()", "v"),
    ("shapes", "np.squeeze", "np.squeeze(x[None, :])", "v"),
    ("shapes", "np.split", "np.split(x, 2)[1]", "v"),
    ("shapes", "np.array_split", "np.array_split(x, 3)[0]", "w"),
    ("shapes", "np.hsplit", "np.hsplit(x, 3)[2]", "m23"),
    ("shapes", "np.vsplit", "np.vsplit(x, 2)[0]", "m23"),
    ("shapes", "np.broadcast_to", "np.broadcast_to(x, (2, 4))", "v"),
    ("shapes", "np.broadcast_arrays", "np.broadcast_arrays(x, T[:2, :1])[0]", "m23"),
    ("shapes", "np.sort", "np.sort(x)", "w"),
    ("shapes", "np.sort axis", "np.sort(x, axis=0)", "m34"),
    ("shapes", "np.r_", "np.r_[x, x[:2]]", "v"),
    ("shapes", "np.c_", "np.c_[x, 2.0 * x]", "v"),
    ("shapes", "list literal", "np.sum([x[0], x[1] * x[2]])", "v"),
    ("shapes", "nested list literal", "np.array([[x[0], x[1]], [x[2], 1.0]]) @ x[:2]", "v"),
    ("shapes", "np.array nested", "np.array([[x[0] * x[1], x[2]], [x[3], x[0]]])", "v"),
    ("shapes", "np.linspace ends", "np.linspace(x[0], x[1], 5)", "v"),
    ("shapes", "np.linspace arrays", "np.linspace(x[:2], x[2:], 3)", "v"),
    ("linalg", "np.einsum ij,jk", "np.einsum('ij,jk->ik', x, T)", "m"),
    ("linalg", "np.einsum trace", "np.einsum('ii', x)", "m"),
    ("linalg", "np.einsum implicit", "np.einsum('ij,kj', x, x)", "m23"),
    ("linalg", "np.einsum ellipsis", "np.einsum('...ij,...jk->...ik', x, x)", "b"),
    ("linalg", "np.tensordot axes=", "np.tensordot(x, T, axes=([1], [0]))", "m"),
    ("linalg", "np.tensordot axes=int", "np.tensordot(x, x, axes=2)", "m"),
    ("linalg", "np.kron", "np.kron(x, x[:2])", "v"),
    ("linalg", "np.cross", "np.cross(x[:3], x[1:])", "v"),
    ("linalg", "np.vdot", "np.vdot(x, C)", "v"),
    ("linalg", "np.inner", "np.inner(x, x)", "m"),
    ("linalg", "np.outer", "np.outer(x, C)", "v"),
    ("linalg", "matrix_power", "np.linalg.matrix_power(x, 3)", "m"),
    ("linalg", "multi_dot", "np.linalg.multi_dot([x, T, x])", "m"),
    ("linalg", "eigh", "np.linalg.eigh(x)[0]", "spd"),
    ("linalg", "eigh vectors", "np.abs(np.linalg.eigh(x)[1])", "spd"),
    ("linalg", "eigvalsh", "np.linalg.eigvalsh(x)", "spd"),
    ("linalg", "svd compute_uv=False", "np.linalg.svd(x, compute_uv=False)", "m"),
    ("linalg", "svd full_matrices=False", "np.linalg.svd(x, full_matrices=False)[1]", "m23"),
    ("linalg", "qr", "np.linalg.qr(x)[1]", "m"),
    ("linalg", "pinv", "np.linalg.pinv(x)", "m23"),
    ("linalg", "lstsq", "np.linalg.lstsq(x, C[:3], rcond=None)[0]", "m"),
    ("linalg", "cond", "np.linalg.cond(x)", "m"),
    ("linalg", "@ batched", "x @ x", "b"),
    ("linalg", "solve batched", "np.linalg.solve(x, x)", "b"),
    ("linalg", "inv batched", "np.linalg.inv(x)", "b"),
    ("linalg", "det batched", "np.linalg.det(x)", "b"),
    ("linalg", "slogdet batched", "np.linalg.slogdet(x)[1]", "b"),
    ("linalg", "cholesky batched", "np.linalg.cholesky(x)", "bspd"),
]

_SPECIAL = [("gammaln", "big"), ("gamma", "big"), ("digamma", "big"), ("loggamma", "big"),
            ("erf", "w"), ("erfc", "w"), ("erfinv", "v"), ("erfcinv", "v"), ("expit", "w"),
            ("logit", "v"), ("ndtr", "w"), ("log_ndtr", "w"), ("ndtri", "v"), ("i0", "w"),
            ("i0e", "w"), ("i1", "w"), ("i1e", "w"), ("softmax", "w"), ("log_softmax", "w")]
CASES += [("scipy", f"special.{n}", f"scipy.special.{n}(x)", k) for n, k in _SPECIAL] + [
    ("scipy", "special.polygamma", "scipy.special.polygamma(1, x)", "big"),
    ("scipy", "special.beta", "scipy.special.beta(x, C + 0.5)", "big"),
    ("scipy", "special.betaln", "scipy.special.betaln(x, C + 0.5)", "big"),
    ("scipy", "special.xlogy", "scipy.special.xlogy(x, C)", "v"),
    ("scipy", "special.xlog1py", "scipy.special.xlog1py(x, C)", "v"),
    ("scipy", "special.logsumexp axis= b= keepdims=",
     "scipy.special.logsumexp(x, axis=1, b=T[:2, :] + 0.1, keepdims=True)", "m23"),
    ("scipy", "linalg.solve_triangular lower=",
     "scipy.linalg.solve_triangular(x, C[:3], lower=True)", "m"),
    ("scipy", "linalg.solve_triangular trans=",
     "scipy.linalg.solve_triangular(x, T, trans=1)", "m"),
    ("scipy", "linalg.cho_factor", "scipy.linalg.cho_factor(x, lower=True)[0]", "spd"),
    ("scipy", "linalg.cho_solve", "scipy.linalg.cho_solve(scipy.linalg.cho_factor(x), C[:3])",
     "spd"),
    ("scipy", "linalg.cholesky", "scipy.linalg.cholesky(x)", "spd"),
    ("scipy", "linalg.lu_factor", "scipy.linalg.lu_factor(x)[0]", "m"),
    ("scipy", "linalg.lu_solve", "scipy.linalg.lu_solve(scipy.linalg.lu_factor(x), C[:3])",
     "m"),
    ("scipy", "linalg.solve assume_a=", "scipy.linalg.solve(x, T, assume_a='pos')", "spd"),
    ("scipy", "linalg.expm", "scipy.linalg.expm(x)", "m"),
    ("scipy", "linalg.inv", "scipy.linalg.inv(x)", "m"),
    ("scipy", "linalg.det", "scipy.linalg.det(x)", "m"),
]
for _dist, _args in (("norm", "loc=0.2, scale=1.3"), ("t", "3.0"), ("gamma", "2.5"),
                     ("beta", "2.0, 3.0")):
    for _method in ("logpdf", "pdf", "cdf", "logcdf"):
        CASES.append(("scipy", f"stats.{_dist}.{_method}",
                      f"scipy.stats.{_dist}.{_method}(x, {_args})", "v"))
CASES += [
    ("scipy", "stats.poisson.pmf", "scipy.stats.poisson.pmf(3, x * 4.0)", "v"),
    ("scipy", "stats.poisson.logpmf", "scipy.stats.poisson.logpmf(3, x * 4.0)", "v"),
    ("scipy", "stats.multivariate_normal.logpdf",
     "scipy.stats.multivariate_normal.logpdf(x, mean=C, cov=np.diag(W))", "v"),
]
_MATH = ("lgamma gamma log2 log10 degrees radians exp expm1 log log1p sqrt sin cos tan asin "
         "acos atan sinh cosh tanh asinh atanh erf erfc fabs cbrt exp2").split()
CASES += [("math", f"math.{n}", f"math.{n}(x[1]) * x[0]", "v") for n in _MATH] + [
    ("math", "math.acosh", "math.acosh(x[1] + 1.0)", "v"),
    ("math", "math.log base", "math.log(x[1], 3.0)", "v"),
    ("math", "math.pow", "math.pow(x[1], 2.5)", "v"),
    ("math", "math.atan2", "math.atan2(x[0], x[1])", "v"),
    ("math", "math.hypot", "math.hypot(x[0], x[1], x[2])", "v"),
    ("math", "math.copysign", "math.copysign(x[0], -1.0)", "v"),
    ("math", "math.fmod", "math.fmod(x[1], 0.3)", "v"),
    ("math", "math.remainder", "math.remainder(x[1], 0.3)", "v"),
    ("math", "math.fsum", "math.fsum(x)", "v"),
    ("math", "math.prod", "math.prod(x)", "v"),
    ("math", "math.dist", "math.dist(x[:2], x[2:])", "v"),
    ("math", "statistics.fmean", "statistics.fmean(x)", "v"),
]
# the convolutions, partitions and the other forms added last
CASES += [
    ("linalg", "np.convolve same", "np.convolve(x, C[:3], 'same')", "v"),
    ("linalg", "np.correlate full", "np.correlate(x, x[1:] * 2.0, mode='full')", "v"),
    ("linalg", "signal.convolve valid", "scipy.signal.convolve(x, T[:2, :2], mode='valid')",
     "m34"),
    ("linalg", "signal.correlate same", "scipy.signal.correlate(x, x[:2, :2], 'same')", "m"),
    ("linalg", "np.kron ranks 2, 1", "np.kron(x, C[:2])", "m23"),
    ("linalg", "pinv of a stack", "np.linalg.pinv(x)", "t234"),
    ("linalg", "np.cross 2-vector", "np.cross(x[:2], C[:3])", "v"),
    ("shapes", "np.partition kth=", "np.partition(x, kth=2)", "w"),
    ("shapes", "np.rollaxis start=", "np.rollaxis(x, 2, start=1)", "t234"),
    ("shapes", "np.squeeze axis tuple", "np.squeeze(x[None, :, None], axis=(0, 2))", "v"),
    ("reductions", "np.gradient axis=", "np.gradient(x, axis=1)", "m34"),
    ("scipy", "special.iv", "scipy.special.iv(1.5, x)", "big"),
    ("scipy", "special.ive", "scipy.special.ive(2, x)", "w"),
    ("scipy", "special.multigammaln", "scipy.special.multigammaln(x, 3)", "big"),
]
