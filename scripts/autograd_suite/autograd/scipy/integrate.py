from scipy.integrate import *  # noqa
