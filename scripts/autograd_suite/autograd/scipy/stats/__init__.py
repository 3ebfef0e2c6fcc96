from . import beta, chi2, dirichlet, gamma, multivariate_normal, norm, poisson, t  # noqa
