"""Maximum likelihood with scipy.optimize: a Weibull distribution fitted to data, once with
BFGS and the gradient from `srcad.grad`, once with Newton-CG and the Hessian from
`srcad.hessian` (or only Hessian-vector products, `srcad.hvp`).

The parameters are the logarithms of the shape k and the scale lam, so that any real pair is
valid; the negative log-likelihood of data x_1..x_N is

    -sum_i [ log k - log lam + (k - 1) log(x_i / lam) - (x_i / lam)^k ]

Both fits are compared with scipy.stats.weibull_min.fit.

Run with ``python examples/max_likelihood.py`` (needs scipy).
"""

import math

import numpy as np
from scipy import stats
from scipy.optimize import minimize

import srcad
from srcad import Constant


def negative_log_likelihood(theta, data):
    k = math.exp(theta[0])
    lam = math.exp(theta[1])
    total = 0.0
    for i in range(len(data)):
        z = data[i] / lam
        total += math.log(k) - math.log(lam) + (k - 1.0) * math.log(z) - z ** k
    return -total


def main():
    data = stats.weibull_min.rvs(1.7, scale=2.5, size=300, random_state=0)
    theta0 = np.zeros(2)
    fits = {}

    bfgs = minimize(negative_log_likelihood, theta0, args=(data,), method="BFGS",
                    jac=srcad.grad(negative_log_likelihood))
    fits["BFGS, srcad.grad"] = bfgs

    newton = minimize(negative_log_likelihood, theta0, args=(data,), method="Newton-CG",
                      jac=srcad.grad(negative_log_likelihood),
                      hess=srcad.hessian(negative_log_likelihood))
    fits["Newton-CG, srcad.hessian"] = newton

    def hessian_times(theta, direction, data):
        return srcad.hvp(negative_log_likelihood, theta, Constant(data), tangent=direction)

    newton_hvp = minimize(negative_log_likelihood, theta0, args=(data,), method="Newton-CG",
                          jac=srcad.grad(negative_log_likelihood), hessp=hessian_times)
    fits["Newton-CG, srcad.hvp"] = newton_hvp

    shape, _, scale = stats.weibull_min.fit(data, floc=0.0)
    print(f"scipy.stats.weibull_min.fit: shape {shape:.6f}, scale {scale:.6f}")
    worst, steepest = 0.0, 0.0
    grad = srcad.grad(negative_log_likelihood)
    for name, result in fits.items():
        k, lam = np.exp(result.x)
        worst = max(worst, abs(k - shape) / shape, abs(lam - scale) / scale)
        # scipy's own flag may say "precision loss" at the optimum (the line search can no
        # longer lower f in floating point): the gradient there says whether it is one
        slope = np.max(np.abs(grad(result.x, data)))
        steepest = max(steepest, slope)
        print(f"{name:26s}: shape {k:.6f}, scale {lam:.6f} "
              f"({result.nit} iterations, largest gradient entry {slope:.1e}, "
              f"scipy: {result.message})")
    # the gradient and the Hessian at the optimum against central finite differences
    theta, h = newton.x, 1e-5
    fd_hessian = np.column_stack([(grad(theta + h * e, data) - grad(theta - h * e, data)) / (2 * h)
                                  for e in np.eye(2)])
    hessian = srcad.hessian(negative_log_likelihood)(theta, data)
    error = np.max(np.abs(hessian - fd_hessian)) / np.max(np.abs(fd_hessian))
    print(f"Hessian at the optimum vs finite differences of the gradient: {error:.1e}")
    assert worst < 1e-4 and error < 1e-6 and steepest < 1e-4
    return error


if __name__ == "__main__":
    main()
