import scipy.stats as _stats

_d = _stats.beta


def __getattr__(name):
    return getattr(_d, name)
