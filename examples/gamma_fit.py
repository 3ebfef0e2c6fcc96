"""Maximum likelihood with scipy.stats: a gamma distribution's shape and scale fitted to
waiting times with scipy.optimize and the gradient from `srcad.grad`, with the
log-likelihood written two ways: through `scipy.stats.gamma.logpdf` (shape by position,
scale= by name) and through `scipy.special.gammaln` by hand,

    log p(x | a, s) = (a - 1) log x - x / s - gammaln(a) - a log s.

The parameters are log a and log s, so that any real pair is valid. srcad differentiates
both spellings with its rules (the gamma log-density's partials in x, a and scale; digamma
for gammaln). The gradients are compared with each other and with central finite
differences, and the fit with scipy.stats.gamma.fit.

Run with ``python examples/gamma_fit.py`` (needs scipy).
"""

import numpy as np
import scipy.special
import scipy.stats
from scipy.optimize import minimize

import srcad
from srcad import Constant


def negative_log_likelihood(theta, x):
    a, s = np.exp(theta[0]), np.exp(theta[1])
    return -np.sum(scipy.stats.gamma.logpdf(x, a, scale=s))


def by_hand(theta, x):
    a, s = np.exp(theta[0]), np.exp(theta[1])
    return -np.sum((a - 1.0) * np.log(x) - x / s - scipy.special.gammaln(a) - a * np.log(s))


def main():
    x = scipy.stats.gamma.rvs(2.5, scale=1.7, size=400, random_state=3)
    theta = np.array([0.3, -0.2])
    gradient = srcad.gradient(negative_log_likelihood, theta, Constant(x))
    gradient_by_hand = srcad.gradient(by_hand, theta, Constant(x))
    eps = 1e-6
    fd = np.array([(negative_log_likelihood(theta + eps * e, x)
                    - negative_log_likelihood(theta - eps * e, x)) / (2 * eps)
                   for e in np.eye(2)])
    difference = float(np.max(np.abs(gradient - fd) / np.abs(fd)))
    print("gradient (scipy.stats):", gradient)
    print("gradient (gammaln):    ", gradient_by_hand)
    print("max relative difference from finite differences:", difference)
    assert np.allclose(gradient, gradient_by_hand, rtol=1e-10)

    fit = minimize(negative_log_likelihood, np.zeros(2), args=(x,), method="BFGS",
                   jac=srcad.grad(negative_log_likelihood), options={"gtol": 1e-8})
    a, s = np.exp(fit.x)
    a_scipy, _, s_scipy = scipy.stats.gamma.fit(x, floc=0.0)
    print(f"converged: {fit.success}; shape {a:.4f}, scale {s:.4f}")
    print(f"scipy.stats.gamma.fit:   shape {a_scipy:.4f}, scale {s_scipy:.4f}")
    assert fit.success and np.allclose([a, s], [a_scipy, s_scipy], rtol=1e-3)
    return difference


if __name__ == "__main__":
    main()
