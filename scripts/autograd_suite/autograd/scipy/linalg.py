from scipy.linalg import *  # noqa
