import scipy.stats as _stats

_d = _stats.t


def __getattr__(name):
    return getattr(_d, name)
