"""Maximum likelihood with scipy.special: a negative binomial distribution fitted to counts
with scipy.optimize and the gradient from `srcad.grad`.

The parameters are log r (the number of successes) and logit p, so that any real pair is
valid; the negative log-likelihood of counts y_1..y_N is

    -sum_i [ gammaln(y_i + r) - gammaln(r) - gammaln(y_i + 1) + r log p + y_i log(1 - p) ]

srcad differentiates `scipy.special.gammaln` and `scipy.special.expit` with its rules
(digamma and expit's own derivative). The gradient is compared with central finite
differences, the likelihood with scipy.stats.nbinom's, and the fit with a property of the
maximum: the fitted mean r (1 - p) / p equals the sample mean.

Run with ``python examples/negative_binomial.py`` (needs scipy).
"""

import numpy as np
import scipy.special
from scipy import stats
from scipy.optimize import minimize

import srcad
from srcad import Constant


def negative_log_likelihood(theta, y):
    r = np.exp(theta[0])
    p = scipy.special.expit(theta[1])
    terms = (scipy.special.gammaln(y + r) - scipy.special.gammaln(r)
             - scipy.special.gammaln(y + 1.0) + r * np.log(p) + y * np.log1p(-p))
    return -np.sum(terms)


def main():
    y = stats.nbinom.rvs(3.0, 0.4, size=500, random_state=1).astype(float)
    theta = np.array([0.5, 0.2])
    gradient = srcad.gradient(negative_log_likelihood, theta, Constant(y))
    eps = 1e-6
    fd = np.array([(negative_log_likelihood(theta + eps * e, y)
                    - negative_log_likelihood(theta - eps * e, y)) / (2 * eps)
                   for e in np.eye(2)])
    difference = float(np.max(np.abs(gradient - fd) / np.abs(fd)))
    r, p = np.exp(theta[0]), scipy.special.expit(theta[1])
    assert np.isclose(negative_log_likelihood(theta, y), -np.sum(stats.nbinom.logpmf(y, r, p)))
    print("gradient:", gradient)
    print("max relative difference from finite differences:", difference)

    fit = minimize(negative_log_likelihood, np.zeros(2), args=(y,), method="BFGS",
                   jac=srcad.grad(negative_log_likelihood))
    r, p = np.exp(fit.x[0]), scipy.special.expit(fit.x[1])
    print(f"converged: {fit.success}; r = {r:.3f}, p = {p:.3f}")
    print(f"fitted mean {r * (1 - p) / p:.4f}, sample mean {np.mean(y):.4f}")
    assert fit.success and np.isclose(r * (1 - p) / p, np.mean(y), rtol=1e-5)
    return difference


if __name__ == "__main__":
    main()
