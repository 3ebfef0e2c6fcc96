from scipy.special import *  # noqa
from scipy.special import logsumexp  # noqa
