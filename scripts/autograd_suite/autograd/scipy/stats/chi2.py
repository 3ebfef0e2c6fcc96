import scipy.stats as _stats

_d = _stats.chi2


def __getattr__(name):
    return getattr(_d, name)
