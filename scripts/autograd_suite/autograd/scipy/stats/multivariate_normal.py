import scipy.stats as _stats

_d = _stats.multivariate_normal


def __getattr__(name):
    return getattr(_d, name)
